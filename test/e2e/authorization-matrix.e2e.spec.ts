/**
 * Least privilege through HTTP (docs/guarantees.md §12): every endpoint of the
 * API × every caller (no token, an invalid token, each of the four roles). The endpoints come from the
 * OpenAPI document at `/docs-json`, checked against the routes Express actually serves, and the spec
 * fails when either names an endpoint missing from {@link ALLOWED} below — a new endpoint cannot be
 * added without deciding who may call it.
 *
 * Expected per cell: no token or an invalid token → 401 `AUTH.UNAUTHENTICATED`; a role the table does
 * not allow → 403 `AUTH.FORBIDDEN`; an allowed role → anything but 401/403 and never a 5xx (the path
 * names a shoe, round, table or bet that does not exist, so a 4xx is normal). `/health` (with its probes `/health/live`, `/health/ready`) and `/metrics` are the only
 * public routes of the API; the OpenAPI docs themselves (`/docs`, `/docs-json`) are served outside
 * Nest's router and are public by design (see jwt-auth.guard.ts), as are the built console's static
 * files under `/console` (no data; test/e2e/console-static.e2e.spec.ts). Auditors are never allowed a POST. Requests name unknown records and carry an empty
 * body, so nothing is recorded whatever the answer.
 */
import { randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

jest.setTimeout(120_000);

type Role = 'table-device' | 'betting-platform' | 'pit-manager' | 'auditor';
const ROLES: Role[] = ['table-device', 'betting-platform', 'pit-manager', 'auditor'];
const EVERY_ROLE = ROLES;
const TABLE_DEVICE: Role[] = ['table-device'];
const BETTING: Role[] = ['betting-platform'];
const PIT: Role[] = ['pit-manager'];
const AUDIT: Role[] = ['auditor', 'pit-manager'];

/**
 * Who may call what, `METHOD /path` as the OpenAPI document writes it. `public` = no token needed.
 * Keep it complete: the spec fails on any endpoint of the API not listed here (and on stale entries).
 */
const ALLOWED: Record<string, Role[] | 'public'> = {
  'GET /health': 'public',
  // the probes (health.controller.ts, @nestjs/terminus; docs/architecture.md §8)
  'GET /health/live': 'public',
  'GET /health/ready': 'public',
  'GET /metrics': 'public',
  // table facts (table-facts.controller.ts)
  'POST /tables/{tableId}/shoes': TABLE_DEVICE,
  'POST /shoes/{shoeId}/commencement': TABLE_DEVICE,
  'POST /shoes/{shoeId}/burns': TABLE_DEVICE,
  'POST /shoes/{shoeId}/rounds': TABLE_DEVICE,
  'POST /shoes/{shoeId}/rounds/{roundId}/close-betting': TABLE_DEVICE,
  'POST /shoes/{shoeId}/rounds/{roundId}/cards': TABLE_DEVICE,
  'POST /shoes/{shoeId}/rounds/{roundId}/unneeded-cards': TABLE_DEVICE,
  'POST /shoes/{shoeId}/exposed-cards': TABLE_DEVICE,
  'POST /shoes/{shoeId}/dropped-cards': TABLE_DEVICE,
  'POST /shoes/{shoeId}/cut-card': TABLE_DEVICE,
  'POST /shoes/{shoeId}/dealer': TABLE_DEVICE,
  'POST /shoes/{shoeId}/close': TABLE_DEVICE,
  // bets (bets.controller.ts)
  'POST /shoes/{shoeId}/rounds/{roundId}/bets': BETTING,
  'POST /shoes/{shoeId}/rounds/{roundId}/bets/batch': BETTING,
  // management decisions (management.controller.ts)
  'POST /shoes/{shoeId}/rounds/{roundId}/void': PIT,
  'POST /shoes/{shoeId}/rounds/{roundId}/result-corrections': PIT,
  'POST /shoes/{shoeId}/void': PIT,
  'POST /shoes/{shoeId}/commencement/corrections': PIT,
  // reads every role needs to drive and check a shoe (shoe-reads.controller.ts, projection status)
  'GET /tables': EVERY_ROLE,
  'GET /me': EVERY_ROLE, // me.controller.ts: who the token says the caller is, and the gaming day
  'GET /shoes/{shoeId}/events': EVERY_ROLE,
  'GET /shoes/{shoeId}/chain': EVERY_ROLE,
  'GET /projections/applied/{eventId}': EVERY_ROLE,
  'GET /projections/status': AUDIT, // back office and regulators: halted partitions and their incidents
  // audit, settlement and reconciliation reads (queries.controller.ts)
  'GET /shoes/{shoeId}/rounds/{roundId}/recall': AUDIT,
  'GET /audit/events': AUDIT,
  'GET /audit/decisions': AUDIT,
  'GET /audit/access-log': AUDIT,
  'GET /settlements': AUDIT,
  'GET /settlements/{betId}': AUDIT,
  'GET /reports/reconciliation': AUDIT,
  // exports for regulators (exports/exports.controller.ts, docs/reports.md §5)
  // staff and table statistics (staff/staff-statistics.controller.ts, docs/reports.md §6)
  'GET /statistics/staff': AUDIT,
  'GET /statistics/fairness': AUDIT, // fairness/fairness.controller.ts, docs/fairness.md
  'GET /exports/anchors': AUDIT,
  'GET /exports/manifest': AUDIT, // signs a bundle's manifest: a read of what the exports sent (export_receipts)
  'GET /exports/{kind}': AUDIT,
  // wallet matching (wallet/wallet.controller.ts, docs/reports.md §4): the upload stores a run, so not an auditor's
  'POST /reconciliation/wallet-files': PIT,
  'GET /reconciliation/wallet-files': AUDIT,
  'GET /reconciliation/wallet-files/{runId}': AUDIT,
  'GET /reconciliation/wallet-files/{runId}/items': AUDIT,
  'GET /shoes/{shoeId}/roads': AUDIT,
  'GET /shoes/{shoeId}/state': AUDIT,
  'GET /tables/{tableId}/chain': AUDIT,
  'GET /audit/anchors/verify': AUDIT, // anchors.controller.ts
  'POST /decisions/{decisionId}/approve': PIT, // decisions.controller.ts: a second pit manager approves
  'POST /decisions/{decisionId}/reject': PIT,
  'GET /decisions': AUDIT,
  'GET /decisions/{decisionId}': AUDIT,
  // the console's pages (console-reads.controller.ts)
  'GET /tables/overview': AUDIT,
  'GET /shoes': AUDIT,
  'GET /shoes/{shoeId}/rounds': AUDIT,
  'GET /live/tables': AUDIT, // live-tables.controller.ts: server-sent events
  'GET /asyncapi': EVERY_ROLE, // asyncapi.controller.ts: the Kafka topics' AsyncAPI document
  // gaming-day closes (gaming-day-close/gaming-day-close.controller.ts): a pit manager closes, back office reads
  'POST /gaming-days/{day}/close': PIT,
  'POST /gaming-days/{day}/close-requests/{requestId}/approve': PIT,
  'GET /gaming-days/closes': AUDIT,
  'GET /gaming-days/{day}/close': AUDIT,
  'GET /gaming-days/{day}/close-requests': AUDIT,
  'GET /significant-events': AUDIT,
  'GET /significant-events/live': AUDIT, // significant-events.controller.ts: server-sent events
  'GET /significant-events/{significantEventId}': AUDIT,
  // the auditors' one write: a second person's acknowledgement of a significant event (docs/significant-events.md)
  'POST /significant-events/{significantEventId}/acknowledgements': AUDIT,
};

/** The POSTs an auditor may make: acknowledging a significant event, nothing else. */
const AUDITOR_POSTS = ['POST /significant-events/{significantEventId}/acknowledgements'];

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const CODE = /^[A-Z_]+\.[A-Z_]+$/;

type Caller = 'no token' | 'invalid token' | Role;
const CALLERS: Caller[] = ['no token', 'invalid token', ...ROLES];

describe('authorization matrix: every endpoint × every role (docs/guarantees.md §12)', () => {
  let h: LedgerHarness;
  let documented: string[];
  let doc: { paths: Record<string, Record<string, { security?: unknown[] }>> };

  beforeAll(async () => {
    h = await startLedger();
    const res = await fetch(`${h.baseUrl}/docs-json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as typeof doc;
    documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the table names exactly the endpoints of the OpenAPI document, which are exactly the routes served', () => {
    expect(documented.length).toBeGreaterThan(0);
    expect(documented.filter((e) => !(e in ALLOWED))).toEqual([]); // a new endpoint: add it to ALLOWED
    expect(Object.keys(ALLOWED).filter((e) => !documented.includes(e))).toEqual([]); // a stale entry
    // Routes Express serves, other than the API docs and Nest's catch-all middleware routes: an
    // endpoint hidden from the document (@ApiExcludeEndpoint) would escape the matrix otherwise.
    const express = h.app.getHttpAdapter().getInstance() as { router?: { stack: any[] }; _router?: { stack: any[] } };
    const stack = (express.router ?? express._router)!.stack;
    const served = stack
      // the console's static files (console-static.controller.ts) and the topics' JSON Schemas
      // (schemas.controller.ts) are public files, not API routes: test/e2e/console-static.e2e.spec.ts, test/e2e/schemas.e2e.spec.ts
      .filter((l) => l.route && !String(l.route.path).startsWith('/docs') && !String(l.route.path).startsWith('/console') && !String(l.route.path).startsWith('/schemas') && !String(l.route.path).includes('{*'))
      .flatMap((l) => Object.keys(l.route.methods).map((m) => `${m.toUpperCase()} ${String(l.route.path).replace(/:(\w+)/g, '{$1}')}`));
    expect([...served].sort()).toEqual([...documented].sort());
  });

  it('only /health (and its probes /health/live, /health/ready) and /metrics are public; every other endpoint documents bearer auth; auditors are never allowed a POST but the acknowledgement of a significant event', () => {
    expect(
      Object.entries(ALLOWED)
        .filter(([, r]) => r === 'public')
        .map(([e]) => e),
    ).toEqual(['GET /health', 'GET /health/live', 'GET /health/ready', 'GET /metrics']);
    expect(Object.entries(ALLOWED).filter(([e, r]) => e.startsWith('POST ') && r !== 'public' && r.includes('auditor') && !AUDITOR_POSTS.includes(e))).toEqual([]);
    expect(Object.entries(ALLOWED).filter(([e, r]) => !e.startsWith('GET ') && r === 'public')).toEqual([]);
    for (const e of documented) {
      const [method, path] = e.split(' ');
      const security = doc.paths[path][method.toLowerCase()].security;
      const bearer = Array.isArray(security) && security.some((s) => s && typeof s === 'object' && 'bearer' in s);
      expect([e, bearer]).toEqual([e, ALLOWED[e] !== 'public']);
    }
  });

  it('answers each caller as the table says: 401 without a valid token, 403 for a role not allowed, never 401/403/5xx for an allowed one', async () => {
    const run = runId('authz');
    const params: Record<string, string> = {
      shoeId: `${run}-shoe`,
      roundId: `${run}-round`,
      tableId: `${run}-table`,
      betId: `${run}-bet`,
      kind: 'events',
      eventId: randomUUID(),
      decisionId: randomUUID(),
      runId: randomUUID(),
      day: '2001-01-01',
      requestId: randomUUID(),
      significantEventId: randomUUID(),
    };
    const invalidToken = sign({ role: 'pit-manager' }, 'not-the-secret', { subject: 'pm-1', algorithm: 'HS256', expiresIn: '1h' });
    let n = 0;
    const correlation = () => `${run}-${++n}`;
    const cells: Array<{ endpoint: string; caller: Caller; status: number; code: string | null; expected: string; ok: boolean }> = [];
    for (const endpoint of documented) {
      const [method, template] = endpoint.split(' ');
      const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => {
        if (!(name in params)) throw new Error(`${endpoint}: no test value for path parameter ${name}; add one to params`);
        return encodeURIComponent(params[name]);
      });
      const allowed = ALLOWED[endpoint];
      for (const caller of CALLERS) {
        const headers: Record<string, string> = { 'content-type': 'application/json', 'x-correlation-id': correlation() };
        if (caller === 'invalid token') headers.authorization = `Bearer ${invalidToken}`;
        else if (caller !== 'no token') headers.authorization = `Bearer ${h.client.token(caller, caller === 'pit-manager' ? 'pm-authz' : `${caller}-authz`)}`;
        const abort = new AbortController();
        const res = await fetch(`${h.baseUrl}${path}`, { method, headers, body: method === 'GET' ? undefined : '{}', signal: abort.signal });
        // a live stream (GET /live/tables) never ends: its status and headers are the answer
        const streaming = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
        if (streaming) abort.abort();
        const text = streaming ? '' : await res.text();
        let code: string | null = null;
        try {
          code = JSON.parse(text)?.error?.code ?? null;
        } catch {
          code = null;
        }
        let expected: string;
        let ok: boolean;
        if (allowed === 'public') {
          expected = '2xx';
          ok = res.status >= 200 && res.status < 300;
        } else if (caller === 'no token' || caller === 'invalid token') {
          expected = '401 AUTH.UNAUTHENTICATED';
          ok = res.status === 401 && code === 'AUTH.UNAUTHENTICATED';
        } else if (!allowed.includes(caller)) {
          expected = '403 AUTH.FORBIDDEN';
          ok = res.status === 403 && code === 'AUTH.FORBIDDEN';
        } else {
          expected = 'not 401/403, < 500';
          ok = res.status !== 401 && res.status !== 403 && res.status < 500 && (res.status < 400 || (code !== null && CODE.test(code)));
        }
        cells.push({ endpoint, caller, status: res.status, code, expected, ok });
      }
    }

    const width = Math.max(...documented.map((e) => e.length));
    const lines = [`${'endpoint'.padEnd(width)}  ${CALLERS.map((c) => c.padEnd(18)).join('')}`];
    for (const endpoint of documented) {
      lines.push(
        `${endpoint.padEnd(width)}  ${CALLERS.map((c) => {
          const cell = cells.find((x) => x.endpoint === endpoint && x.caller === c)!;
          return `${cell.status}${cell.ok ? '' : '!'}`.padEnd(18);
        }).join('')}`,
      );
    }
    const byStatus: Record<string, number> = {};
    for (const c of cells) byStatus[c.status] = (byStatus[c.status] ?? 0) + 1;
    process.stdout.write(`\nauthorization matrix (${cells.length} requests, by status ${JSON.stringify(byStatus)}; ! = unexpected)\n${lines.join('\n')}\n`);

    expect(cells.filter((c) => !c.ok).map((c) => `${c.endpoint} as ${c.caller}: expected ${c.expected}, got ${c.status} ${c.code ?? ''}`)).toEqual([]);
    expect(cells).toHaveLength(documented.length * CALLERS.length);
    // every POST refused to auditors, answered 403, but the acknowledgement of a significant event
    expect(cells.filter((c) => c.endpoint.startsWith('POST ') && c.caller === 'auditor' && c.status !== 403 && !AUDITOR_POSTS.includes(c.endpoint))).toEqual([]);
    // nothing recorded by any of these requests (correlation ids are this run's); every refused write
    // and every 401/403 is in the rejection log, and nothing else is
    const [{ n: recorded }] = await h.ds.query(`SELECT count(*)::int AS n FROM events WHERE correlation_id LIKE $1`, [`${run}-%`]);
    expect(recorded).toBe(0);
    expect(await h.store.streamVersion(`shoe-${params.shoeId}`)).toBe(0);
    const logged: Array<{ correlation_id: string; http_status: number; code: string }> = await h.ds.query(`SELECT correlation_id, http_status, code FROM rejections WHERE correlation_id LIKE $1`, [`${run}-%`]);
    const shouldLog = cells.filter((c) => c.status === 401 || c.status === 403 || (c.endpoint.startsWith('POST ') && c.status >= 400 && c.status < 500));
    expect(logged).toHaveLength(shouldLog.length);
    const count = (xs: Array<{ status: number; code: string | null }>) => {
      const out: Record<string, number> = {};
      for (const x of xs) out[`${x.status} ${x.code}`] = (out[`${x.status} ${x.code}`] ?? 0) + 1;
      return out;
    };
    expect(count(logged.map((l) => ({ status: l.http_status, code: l.code })))).toEqual(count(shouldLog));
  });
});
