/**
 * Database hygiene (docs/architecture.md §5): every connection the ledger opens carries a statement
 * timeout, an idle-in-transaction timeout, TCP keepalives and a connect / pool-acquire timeout; a
 * statement that runs over its timeout is cancelled and answered 503 `DATABASE.TIMEOUT` (nothing
 * recorded); and no error path leaks a connection: after a run of failing requests through the real
 * API (domain refusals, lost races, bad input, hostile reads, a statement timeout hit), no session of
 * the API is left `idle in transaction`, and the API's pool has every connection back.
 *
 * Real PostgreSQL (the test database), real Kafka (the relay), the API over HTTP. The statement timeout
 * of the API under test is set to 1 s (`DB_STATEMENT_TIMEOUT_MS`), a pool's acquire timeout to 1 s;
 * the guards that catch an unbounded wait (the old behaviour) give up after 20 s.
 */
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '@ledger/event-store';
import { configureDatabaseSessions, currentDatabaseSessionSettings, databaseSessionSettings, DEFAULT_DATABASE_SESSION_ENV, pgClientConfig } from '@ledger/infra';
import { createProjectionDataSource } from '@ledger/projections';
import { DATA_SOURCE, HEAVY_READ_DATA_SOURCE } from '../../apps/ledger/src/persistence/persistence.module';
import { LISTEN_APPLICATION_NAME } from '../../apps/ledger/src/live/projection-changes';
import { LedgerHarness, runId, startLedger, TEST_DATABASE_URL, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';

jest.setTimeout(180_000);

/** The API under test: 1 s statement timeout, 5 s idle-in-transaction timeout, 7 s keepalive idle, 4 s acquire timeout. */
const API_ENV = { DB_STATEMENT_TIMEOUT_MS: '1000', DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '5000', DB_KEEPALIVE_IDLE_MS: '7000', DB_CONNECT_TIMEOUT_MS: '4000' };

interface Answer {
  status: number;
  code: string | null;
  retryAfter: string | null;
}

async function settingsOf(query: (sql: string) => Promise<Array<Record<string, string>>>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of ['statement_timeout', 'idle_in_transaction_session_timeout', 'tcp_keepalives_idle', 'tcp_keepalives_interval', 'tcp_keepalives_count']) {
    const [row] = await query(`SHOW ${name}`);
    out[name] = row[name];
  }
  return out;
}

describe('database hygiene: timeouts on every connection, no connection leaked on an error path', () => {
  let h: LedgerHarness;
  let owner: Client;

  beforeAll(async () => {
    h = await startLedger({ env: API_ENV });
    owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
  });

  afterAll(async () => {
    configureDatabaseSessions({});
    await owner?.end().catch(() => undefined);
    await h?.close();
  });

  let relayClient: Client | null = null;
  /** An in-process relay (started once) on a process configured as the relay's main configures it: its leader session. */
  const relaySession = async (): Promise<Client> => {
    if (relayClient) return relayClient;
    configureDatabaseSessions({ DB_STATEMENT_TIMEOUT_MS: 2000, DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: 1000, DB_KEEPALIVE_IDLE_MS: 4000 });
    const relay = await h.startRelay();
    const publisher = (relay as unknown as { publisher: { client: Client | null } }).publisher;
    for (let i = 0; i < 100 && !publisher.client; i++) await new Promise((r) => setTimeout(r, 100));
    expect(publisher.client).not.toBeNull();
    relayClient = publisher.client;
    return relayClient!;
  };

  const send = async (method: 'GET' | 'POST', role: Parameters<LedgerHarness['client']['token']>[0], sub: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${h.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.client.token(role, sub)}` },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let code: string | null = null;
    try {
      code = JSON.parse(text)?.error?.code ?? null;
    } catch {
      code = null;
    }
    return { status: res.status, code, retryAfter: res.headers.get('retry-after') };
  };

  it('the settings are in effect on each kind of connection', async () => {
    // the API's own pool (DATABASE_URL, ledger_app), as configured
    const apiDs = h.app.get<DataSource>(DATA_SOURCE);
    expect(await settingsOf((sql) => apiDs.query(sql))).toEqual({
      statement_timeout: '1s',
      idle_in_transaction_session_timeout: '5s',
      tcp_keepalives_idle: '7',
      tcp_keepalives_interval: '4',
      tcp_keepalives_count: '3',
    });
    const defaults = {
      statement_timeout: `${DEFAULT_DATABASE_SESSION_ENV.DB_STATEMENT_TIMEOUT_MS / 1000}s`,
      idle_in_transaction_session_timeout: `${DEFAULT_DATABASE_SESSION_ENV.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS / 60_000}min`,
      tcp_keepalives_idle: String(DEFAULT_DATABASE_SESSION_ENV.DB_KEEPALIVE_IDLE_MS / 1000),
      tcp_keepalives_interval: String(DEFAULT_DATABASE_SESSION_ENV.DB_KEEPALIVE_IDLE_MS / 2000),
      tcp_keepalives_count: '3',
    };
    // a DataSource of the event store made without settings (TypeORM CLI, tools): the process's, i.e. the defaults
    const storeDs = createDataSource(TEST_DATABASE_URL, { poolSize: 1, applicationName: 'hygiene-store' });
    await storeDs.initialize();
    try {
      expect(await settingsOf((sql) => storeDs.query(sql))).toEqual(defaults);
    } finally {
      await storeDs.destroy();
    }
    // the projector's DataSource (PROJECTOR_DATABASE_URL, ledger_projector)
    const projDs = createProjectionDataSource(TEST_SERVICE_DATABASE_URLS.projector, { poolSize: 1, applicationName: 'hygiene-projector' });
    await projDs.initialize();
    try {
      expect(await settingsOf((sql) => projDs.query(sql))).toEqual(defaults);
    } finally {
      await projDs.destroy();
    }
    // the migrations' owner connection: its own, longer statement timeout
    const migDs = createDataSource(TEST_DATABASE_URL, { poolSize: 1, applicationName: 'hygiene-migrations', session: currentDatabaseSessionSettings('migrations') });
    await migDs.initialize();
    try {
      expect(await settingsOf((sql) => migDs.query(sql))).toEqual({ ...defaults, statement_timeout: `${DEFAULT_DATABASE_SESSION_ENV.DB_MIGRATIONS_STATEMENT_TIMEOUT_MS / 60_000}min` });
    } finally {
      await migDs.destroy();
    }
    // the relay's raw pg session, with the process configured as the relay's main configures it
    const relayClient = await relaySession();
    const relaySettings = await settingsOf(async (sql) => (await relayClient.query(sql)).rows);
    expect(relaySettings).toEqual({ statement_timeout: '2s', idle_in_transaction_session_timeout: '1s', tcp_keepalives_idle: '4', tcp_keepalives_interval: '2', tcp_keepalives_count: '3' });
    // a raw client as the anchor publisher and `npm run verify` make theirs
    const raw = new Client(pgClientConfig(TEST_SERVICE_DATABASE_URLS.relay, 'hygiene-raw'));
    await raw.connect();
    try {
      expect(await settingsOf(async (sql) => (await raw.query(sql)).rows)).toEqual(relaySettings);
    } finally {
      await raw.end();
    }
  });

  it('a full pool refuses within the acquire timeout (DB_CONNECT_TIMEOUT_MS, 1 s here) instead of queueing forever', async () => {
    const ds = createDataSource(TEST_SERVICE_DATABASE_URLS.app, {
      poolSize: 1,
      applicationName: 'hygiene-pool',
      session: databaseSessionSettings({ DB_CONNECT_TIMEOUT_MS: 1000 }),
    });
    await ds.initialize();
    const holder = ds.createQueryRunner();
    await holder.connect();
    try {
      let guard: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        ds.query('SELECT 1').then(
          () => 'answered',
          (e: Error) => e.message,
        ),
        new Promise<string>((r) => (guard = setTimeout(() => r('still queued after 20 s'), 20_000))),
      ]);
      clearTimeout(guard);
      // the message the API's exception filter maps to 503 DATABASE.TIMEOUT ('connect timeout')
      expect(outcome).toMatch(/timeout exceeded when trying to connect/);
    } finally {
      await holder.release();
      await ds.destroy();
    }
  });

  it('the relay leader, idle between batches holding its lease, outlives the idle-in-transaction timeout (1 s here)', async () => {
    const client = await relaySession();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const lease = async () => (await owner.query<{ holder_pid: number; generation: string }>(`SELECT holder_pid, generation FROM outbox_leases WHERE name = 'ledger-relay'`)).rows[0];
    const before = await lease();
    expect(before).toMatchObject({ holder_pid: pid });
    // three times the idle-in-transaction timeout with nothing to publish
    await new Promise((r) => setTimeout(r, 3_000));
    const alive = await owner.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
    // the same session (not ended and replaced), still the holder, same generation (no re-election)
    expect(alive.rowCount).toBe(1);
    expect(await lease()).toEqual(before);
  });

  it('a statement over the timeout is cancelled and answered 503 DATABASE.TIMEOUT; after a run of failing requests no session is left idle in transaction and the pool is whole', async () => {
    const shoeId = runId('hyg');
    const dev = (path: string, body: unknown) => send('POST', 'table-device', 'device-1', path, body);
    expect((await dev('/tables/T-CLASSIC-01/shoes', { shoeId, dealerId: 'dealer-h' })).status).toBe(201);
    expect((await dev(`/shoes/${shoeId}/commencement`, { card: '2C' })).status).toBe(201);
    for (const c of ['3C', '4C']) expect((await dev(`/shoes/${shoeId}/burns`, { card: c })).status).toBe(201);
    expect((await dev(`/shoes/${shoeId}/rounds`, { roundId: `${shoeId}.r1` })).status).toBe(201);

    const answers: Array<[string, Answer]> = [];
    const run = async (what: string, p: Promise<Answer>) => answers.push([what, await p]);
    // lost races: 8 dealer changes at once, all expecting the stream's current version: one wins
    const version = await h.store.streamVersion(`shoe-${shoeId}`);
    const races = await Promise.all(Array.from({ length: 8 }, (_x, i) => dev(`/shoes/${shoeId}/dealer`, { dealerId: `dealer-x${i}`, expectedVersion: version })));
    expect(races.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of races.filter((x) => x.status !== 201)) answers.push(['lost race', r]);
    // domain refusals
    await run('unknown shoe', dev(`/shoes/${runId('none')}/burns`, { card: '5C' }));
    expect((await dev(`/shoes/${shoeId}/rounds/${shoeId}.r1/close-betting`, {})).status).toBe(201);
    await run(
      'bet after betting closed',
      send('POST', 'betting-platform', 'platform-1', `/shoes/${shoeId}/rounds/${shoeId}.r1/bets`, { bet: { betId: `${shoeId}.b1`, accountId: 'a1', betCode: 'PLAYER', stake: '1000', currency: 'EUR' } }),
    );
    await run('card at a position the tableau forbids', dev(`/shoes/${shoeId}/rounds/${shoeId}.r1/cards`, { position: 'P3', card: '5C' }));
    // bad input
    await run('not JSON', send('POST', 'table-device', 'device-1', `/shoes/${shoeId}/burns`, '{"card":'));
    await run('extra field', dev(`/shoes/${shoeId}/burns`, { card: '5C', extra: 1 }));
    await run('hostile read', send('GET', 'auditor', 'aud-1', '/reports/reconciliation?groupBy=constructor'));
    await run('hostile cursor', send('GET', 'auditor', 'aud-1', `/audit/events?cursor=${Buffer.from('"abc"').toString('base64url')}`));

    // a statement timeout: hold the stream's row lock from another session; the append waits on it past 1 s
    await owner.query('BEGIN');
    let answeredWhileLocked: Answer | 'still waiting after 20 s' = 'still waiting after 20 s';
    try {
      await owner.query(`SELECT version FROM streams WHERE stream_id = $1 FOR UPDATE`, [`shoe-${shoeId}`]);
      const write = dev(`/shoes/${shoeId}/rounds/${shoeId}.r1/cards`, { position: 'P1', card: '9S' });
      let guard: NodeJS.Timeout | undefined;
      answeredWhileLocked = await Promise.race([write, new Promise<'still waiting after 20 s'>((r) => (guard = setTimeout(() => r('still waiting after 20 s'), 20_000)))]);
      clearTimeout(guard);
    } finally {
      await owner.query('ROLLBACK');
    }
    expect(answeredWhileLocked).toEqual({ status: 503, code: 'DATABASE.TIMEOUT', retryAfter: '1' });
    // nothing of the cancelled write was recorded: the same card goes in now
    expect((await dev(`/shoes/${shoeId}/rounds/${shoeId}.r1/cards`, { position: 'P1', card: '9S' })).status).toBe(201);

    const summary = answers.map(([what, a]) => `${what}: ${a.status} ${a.code}`);
    expect(summary).toEqual(expect.arrayContaining(['bet after betting closed: 422 ROUND.BETTING_CLOSED', 'lost race: 409 STREAM.VERSION_CONFLICT', 'hostile read: 400 VALIDATION.FAILED']));
    expect(answers.every(([, a]) => a.status >= 400 && a.status < 500 && a.code)).toBe(true);

    // no session of the API idle in a transaction, none left busy, the pool whole. The API's own
    // background jobs (idempotency pruner, decision sweeper) may hold a connection for a moment: look
    // up to 10 times, a second apart, for a quiet instant.
    // both pools of the API: the writes' and the heavy reads' (docs/architecture.md §10), one login
    type PgPool = { totalCount: number; idleCount: number; waitingCount: number };
    const pools = [DATA_SOURCE, HEAVY_READ_DATA_SOURCE].map((t) => (h.app.get<DataSource>(t).driver as unknown as { master: PgPool }).master);
    const pool = {
      get totalCount() {
        return pools.reduce((n, p) => n + p.totalCount, 0);
      },
      get idleCount() {
        return pools.reduce((n, p) => n + p.idleCount, 0);
      },
      get waitingCount() {
        return pools.reduce((n, p) => n + p.waitingCount, 0);
      },
    };
    let seen: Record<string, unknown> = {};
    for (let i = 0; i < 10; i++) {
      const { rows } = await owner.query<{ state: string | null; n: number }>(
        // the pools' sessions; the live stream's one LISTEN session is apart (checked below)
        `SELECT state, count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND usename = 'ledger_app' AND application_name <> $1 GROUP BY state ORDER BY state`,
        [LISTEN_APPLICATION_NAME],
      );
      const byState = Object.fromEntries(rows.map((r) => [r.state ?? 'null', r.n]));
      seen = { sessions: byState, pool: { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } };
      if (Object.keys(byState).every((k) => k === 'idle') && pool.idleCount === pool.totalCount && pool.waitingCount === 0) break;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const total = (seen.pool as { total: number }).total;
    expect(total).toBeLessThanOrEqual(20);
    expect(seen).toEqual({ sessions: total > 0 ? { idle: total } : {}, pool: { total, idle: total, waiting: 0 } });
    // the LISTEN session: at most one, and never in a transaction
    const { rows: listen } = await owner.query<{ state: string | null }>(`SELECT state FROM pg_stat_activity WHERE datname = current_database() AND usename = 'ledger_app' AND application_name = $1`, [LISTEN_APPLICATION_NAME]);
    expect(listen.length).toBeLessThanOrEqual(1);
    expect(listen.every((r) => r.state === 'idle')).toBe(true);
  });
});
