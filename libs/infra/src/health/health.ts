/**
 * Health probes of the ledger's processes (docs/architecture.md §8): the checks their readiness
 * runs (PostgreSQL, the schema, Kafka) with a bound on each, the report in `@nestjs/terminus`'s
 * shape, and the small HTTP listener of the relay and the projector (`/health/live`,
 * `/health/ready`, `/metrics`).
 */
import { createServer, type Server } from 'node:http';
import { Client } from 'pg';
import type { KafkaAdmin, KafkaClient } from '@ledger/kafka';
import { registry } from '@ledger/metrics';
import { pgClientConfig } from '../database/session-settings';

/** Bound of one check, in ms: a hanging dependency is reported down after this (the probe answers within ~2 s). */
export const CHECK_TIMEOUT_MS = 1500;

/** One check's outcome, as terminus spells it: `status` and the check's own details. */
export type CheckResult = { readonly status: 'up' | 'down' } & Readonly<Record<string, unknown>>;

/**
 * A readiness report in `@nestjs/terminus`'s shape: `status` `ok` when every check is up, else
 * `error`; `info` the checks up, `error` the checks down, `details` all of them.
 */
export interface HealthReport {
  readonly status: 'ok' | 'error';
  readonly info: Readonly<Record<string, CheckResult>>;
  readonly error: Readonly<Record<string, CheckResult>>;
  readonly details: Readonly<Record<string, CheckResult>>;
}

/** Thrown by a check that ran but found its dependency unfit; `details` go into the report. */
export class CheckDown extends Error {
  constructor(
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

/** A check: resolves its details when up; throws ({@link CheckDown} or any error) when down. */
export type HealthCheck = () => Promise<Readonly<Record<string, unknown>>>;

/**
 * `p`, or a rejection `<what> did not answer within <ms> ms` after `ms`.
 * @throws CheckDown on timeout; `p`'s own rejection
 */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckDown(`${what} did not answer within ${ms} ms`, { timeoutMs: ms })), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `check`, whose last outcome (details or error) is answered again for `ms` after it settled instead
 * of running the check again: for a check that costs the server something (a commit that writes WAL)
 * behind a route anyone may call as often as they like (`GET /health/ready`). Calls while it runs
 * are answered by the healthRunner's single flight.
 * @param ms how long an outcome is reused, ms
 * @param now the clock, ms @default Date.now
 */
export function reusedFor(check: HealthCheck, ms: number, now: () => number = Date.now): HealthCheck {
  let last: { at: number; outcome: Promise<Readonly<Record<string, unknown>>> } | null = null;
  return () => {
    if (last && now() - last.at < ms) return last.outcome;
    const outcome = check();
    outcome.then(
      () => (last = { at: now(), outcome }),
      () => (last = { at: now(), outcome }),
    );
    return outcome;
  };
}

/**
 * Runs every check at once, each bounded by `timeoutMs`, and builds the report. A check still in
 * flight from an earlier probe is not started again: the new probe waits for the same one (a hanging
 * dependency never piles up connections).
 * @param checks name → check (the names are the report's keys)
 */
export function healthRunner(checks: Readonly<Record<string, HealthCheck>>, timeoutMs = CHECK_TIMEOUT_MS): () => Promise<HealthReport> {
  const inFlight = new Map<string, Promise<Readonly<Record<string, unknown>>>>();
  const once = (name: string, check: HealthCheck) => {
    let p = inFlight.get(name);
    if (!p) {
      p = check().finally(() => inFlight.delete(name));
      p.catch(() => undefined);
      inFlight.set(name, p);
    }
    return p;
  };
  return async () => {
    const entries = await Promise.all(
      Object.entries(checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
        try {
          const details = await withTimeout(once(name, check), timeoutMs, name);
          return [name, { status: 'up', ...details }];
        } catch (err) {
          const extra = err instanceof CheckDown ? err.details : {};
          return [name, { status: 'down', message: err instanceof Error ? err.message : String(err), ...extra }];
        }
      }),
    );
    const details = Object.fromEntries(entries);
    const info = Object.fromEntries(entries.filter(([, r]) => r.status === 'up'));
    const error = Object.fromEntries(entries.filter(([, r]) => r.status === 'down'));
    return { status: Object.keys(error).length === 0 ? 'ok' : 'error', info, error, details };
  };
}

/** A query on the probe's own PostgreSQL session. */
export type ProbeQuery = <R extends Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;

/**
 * The probe's own PostgreSQL session (one per process, opened on first use, dropped on any error or
 * timeout and opened again at the next probe), so that a probe never waits behind the service's pool.
 * @param url the service's own login (its role reads what it needs, docs/architecture.md §10)
 */
export function probeSession(url: string, applicationName: string): { readonly query: ProbeQuery; close(): Promise<void> } {
  let client: Client | null = null;
  const drop = () => {
    const c = client;
    client = null;
    if (c) void c.end().catch(() => undefined);
  };
  const query: ProbeQuery = async <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) => {
    try {
      if (!client) {
        const c = new Client({ ...pgClientConfig(url, applicationName), connectionTimeoutMillis: CHECK_TIMEOUT_MS, query_timeout: CHECK_TIMEOUT_MS, statement_timeout: CHECK_TIMEOUT_MS });
        c.on('error', () => {
          if (client === c) client = null;
        });
        client = c;
        await c.connect();
      }
      return (await client.query<R>(sql, params)).rows;
    } catch (err) {
      drop();
      throw err;
    }
  };
  return { query, close: async () => drop() };
}

/** `postgres`: `SELECT 1` on the probe's session; details `{ latencyMs }`. */
export function postgresCheck(query: ProbeQuery): HealthCheck {
  return async () => {
    const t0 = performance.now();
    await query('SELECT 1');
    return { latencyMs: Math.round(performance.now() - t0) };
  };
}

/**
 * `migrations`: the relations this service needs exist, i.e. the migrations that create them ran.
 * The runtime roles cannot read the migrations' own bookkeeping tables (docs/architecture.md §10),
 * so the check is on their outcome: each named relation (`schema.table`) through `to_regclass`.
 * @throws CheckDown `{ missing: [...] }` when one is absent
 */
export function schemaCheck(query: ProbeQuery, relations: readonly string[]): HealthCheck {
  return async () => {
    const rows = await query<{ r: string; present: boolean }>('SELECT r, to_regclass(r) IS NOT NULL AS present FROM unnest($1::text[]) AS r', [[...relations]]);
    const missing = rows.filter((x) => !x.present).map((x) => x.r);
    if (missing.length > 0) throw new CheckDown('pending migrations: relations missing', { missing });
    return { relations: relations.length };
  };
}

/**
 * `kafka`: `describeCluster` on an admin client of its own (made from `kafka`, connected on first
 * use, dropped on failure); details `{ brokers, controller }`.
 * @param kafka a client made for probes (short connection and request timeouts, no retries)
 */
export function kafkaCheck(kafka: KafkaClient): HealthCheck & { close(): Promise<void> } {
  let admin: KafkaAdmin | null = null;
  const check = async () => {
    try {
      if (!admin) {
        admin = kafka.admin();
        await admin.connect();
      }
      const c = await admin.describeCluster();
      return { brokers: c.brokers.length, controller: c.controller };
    } catch (err) {
      const a = admin;
      admin = null;
      if (a) void a.disconnect().catch(() => undefined);
      throw err;
    }
  };
  return Object.assign(check, {
    close: async () => {
      const a = admin;
      admin = null;
      if (a) await a.disconnect().catch(() => undefined);
    },
  });
}

/**
 * Serves the probes and the metrics of a process without the API's HTTP server (the relay, the
 * projector; docs/architecture.md §8) on `host:port`:
 * - `GET /health/live`: 200 `{ status: 'ok' }` while the event loop answers (liveness);
 * - `GET /health/ready`: the {@link HealthReport} of `ready`, 200 when `ok`, 503 when `error` (readiness);
 * - `GET /metrics`: `registry.metrics()` of `@ledger/metrics` (Prometheus text format).
 * Any other path is 404, any other method than GET/HEAD 405. Resolves once listening.
 * @param port TCP port; 0 picks a free one (read it from `server.address()`)
 * @throws the listen error (e.g. EADDRINUSE)
 */
export function serveOps(port: number, host: string, ready: () => Promise<HealthReport>): Promise<Server> {
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown, head: boolean) =>
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(head ? undefined : JSON.stringify(body));
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const head = req.method === 'HEAD';
    if (path !== '/metrics' && path !== '/health/live' && path !== '/health/ready') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && !head) {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (path === '/health/live') {
      json(res, 200, { status: 'ok', info: { process: { status: 'up', uptimeS: Math.round(process.uptime()) } }, error: {}, details: { process: { status: 'up' } } }, head);
      return;
    }
    if (path === '/health/ready') {
      ready().then(
        (r) => json(res, r.status === 'ok' ? 200 : 503, r, head),
        (err: unknown) => json(res, 503, { status: 'error', info: {}, error: { probe: { status: 'down', message: String(err) } }, details: {} }, head),
      );
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(head ? undefined : text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(err)}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
