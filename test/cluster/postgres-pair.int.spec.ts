/**
 * A PostgreSQL primary with a synchronous streaming standby (scripts/cluster/postgres.ts) and the
 * services' multi-host URLs (`@ledger/infra`'s `pgClientConfig`, `pgPoolConfig` through
 * `createDataSource`; docs/operations.md, "A primary with a synchronous standby"): real servers
 * under `.stack/`, on their own ports, killed at the end whatever happens. The machine's
 * PostgreSQL service is never touched.
 *
 * - a `target_session_attrs=read-write` connection never lands on the standby, even when the URL
 *   names it first;
 * - a commit does not return while the standby cannot take it (synchronous), and returns once it can;
 * - the API's readiness (`GET /health/ready`, the built API from `dist/`) answers 503 with
 *   `syncCommit.code` `DATABASE.SYNC_COMMIT_STALLED` within seconds of the standby's SIGKILL (its
 *   `SELECT 1` still answers), leaves no probe backend waiting on the standby, and 200 once the
 *   standby is back;
 * - SIGKILL of the primary right after acknowledged commits, promotion of the standby: the same
 *   DataSource's next queries succeed on the new primary within a bounded wait, and every
 *   acknowledged row is there;
 * - `rejoin` after that failover makes the old primary's folder the synchronous standby of the
 *   promoted server (every row on it, a commit waits for it), and up after down keeps the new roles.
 */
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '@ledger/event-store';
import { assertDatabaseReachable, pgClientConfig } from '@ledger/infra';
import { assertBuilt, freePort, ledgerServiceEnv, REPO_ROOT, ServiceProcess } from '../fault/cluster';
import { alive, childPids, killServer, postgresBinDir, postmasterPid, serverCommand } from '../../scripts/cluster/pg-server';
import { down, kill, pairUrl, promote, rejoin, status, up, type PairPorts } from '../../scripts/cluster/postgres';

jest.setTimeout(300_000);

const DIR = join(REPO_ROOT, '.stack', `pgha-${randomBytes(4).toString('hex')}`);
let ports: PairPorts;
let ds: DataSource | undefined;
let watchdog: ChildProcess | undefined;

/** A detached shell that stops both servers (immediate) if this process dies without its afterAll; killed by afterAll. */
function startWatchdog(): ChildProcess {
  const stop = (name: string) =>
    serverCommand(postgresBinDir(), 'pg_ctl', ['-D', join(DIR, name), '-m', 'immediate', 'stop'])
      .flat()
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
  // a server frozen by the synchronous-commit test is woken first: a stopped process takes no signal to quit
  const wake = (name: string) => `p=$(head -1 '${join(DIR, name, 'postmaster.pid')}' 2>/dev/null) && kill -CONT $p $(ps -o pid= --ppid $p) 2>/dev/null`;
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; ${wake('pg-primary')}; ${wake('pg-standby')}; ${stop('pg-primary')}; ${stop('pg-standby')}`;
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  return child;
}

/** The port of the server a query of `q` ran on, and whether that server is a standby. */
async function whereAmI(q: (sql: string) => Promise<Array<Record<string, unknown>>>): Promise<{ port: number; standby: boolean }> {
  const [row] = await q('SELECT inet_server_port() AS port, pg_is_in_recovery() AS standby');
  return { port: Number(row.port), standby: row.standby === true };
}

async function withClient<T>(url: string, f: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client(pgClientConfig(url, 'pgha-spec'));
  c.on('error', () => undefined);
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** GET `url` (5 s at most): the status (0 when no answer), the JSON body and how long it took. */
async function probeJson(url: string): Promise<{ status: number; body: { details?: Record<string, Record<string, unknown>>; error?: Record<string, Record<string, unknown>> }; ms: number }> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, body: (await res.json()) as { details?: Record<string, Record<string, unknown>> }, ms: performance.now() - t0 };
  } catch {
    return { status: 0, body: {}, ms: performance.now() - t0 };
  }
}

const ownerUrl = (order?: Array<'pg-primary' | 'pg-standby'>) => pairUrl(ports, { user: 'ledger_owner', order });

beforeAll(async () => {
  ports = { primary: await freePort(), standby: await freePort() };
  watchdog = startWatchdog();
  await up(DIR, ports);
  await withClient(pairUrl(ports, { user: 'ledger_owner' }), (c) => c.query('CREATE TABLE IF NOT EXISTS pgha_rows (id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())'));
});

afterAll(async () => {
  await ds?.destroy().catch(() => undefined);
  for (const name of ['pg-primary', 'pg-standby']) {
    const pid = postmasterPid(join(DIR, name));
    if (pid) {
      killServer(pid);
      for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    }
  }
  rmSync(DIR, { recursive: true, force: true });
  if (watchdog?.pid) process.kill(watchdog.pid, 'SIGKILL');
});

describe('a primary with a synchronous standby, and URLs that follow the primary', () => {
  it('up makes the pair: pg-primary is the primary, pg-standby its synchronous standby; up again changes nothing', async () => {
    const st = await status(DIR);
    expect(st.primary?.name).toBe('pg-primary');
    expect(st.standby?.name).toBe('pg-standby');
    expect(st.syncState).toBe('sync');
    const pid = st.primary?.pid;
    expect((await up(DIR, ports)).primary?.pid).toBe(pid);
  });

  it('a read-write connection skips the standby named first, a plain one and a pool alike', async () => {
    const url = ownerUrl(['pg-standby', 'pg-primary']);
    for (let i = 0; i < 3; i++) expect(await withClient(url, (c) => whereAmI(async (s) => (await c.query(s)).rows))).toEqual({ port: ports.primary, standby: false });
    const pool = createDataSource(url, { poolSize: 4, applicationName: 'pgha-spec' });
    await pool.initialize();
    try {
      const runners = await Promise.all([0, 1, 2, 3].map(async () => whereAmI((s) => pool.query(s))));
      expect(runners.every((r) => r.port === ports.primary && !r.standby)).toBe(true);
    } finally {
      await pool.destroy();
    }
    // and target_session_attrs=standby finds the standby named second
    const standbyUrl = pairUrl(ports, { user: 'ledger_owner', targetSessionAttrs: 'standby' });
    expect(await withClient(standbyUrl, (c) => whereAmI(async (s) => (await c.query(s)).rows))).toEqual({ port: ports.standby, standby: true });
  });

  it('a commit does not return while the standby cannot take it, and returns once it can', async () => {
    const standbyPid = (await status(DIR)).standby?.pid as number;
    const frozen = [standbyPid, ...childPids(standbyPid)];
    await withClient(ownerUrl(), async (c) => {
      frozen.forEach((p) => process.kill(p, 'SIGSTOP'));
      let returned = false;
      const commit = c.query('INSERT INTO pgha_rows (id) VALUES (-1)').then(() => (returned = true));
      try {
        await new Promise((r) => setTimeout(r, 2000));
        expect(returned).toBe(false);
      } finally {
        frozen.forEach((p) => process.kill(p, 'SIGCONT'));
      }
      await commit;
      expect(returned).toBe(true);
    });
  });

  it('measures what the synchronous standby costs a commit (printed, not asserted)', async () => {
    const timed = async (c: Client, first: number): Promise<{ median: number; p95: number }> => {
      const ms: number[] = [];
      for (let i = 0; i < 200; i++) {
        const t = process.hrtime.bigint();
        await c.query('INSERT INTO pgha_rows (id) VALUES ($1)', [-(first + i)]);
        ms.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      ms.sort((a, b) => a - b);
      return { median: ms[100], p95: ms[190] };
    };
    await withClient(ownerUrl(), async (c) => {
      const sync = await timed(c, 1000);
      await c.query('SET synchronous_commit = local');
      const local = await timed(c, 2000);
      const f = (x: { median: number; p95: number }) => `median ${x.median.toFixed(2)} ms, p95 ${x.p95.toFixed(2)} ms`;
      process.stdout.write(`FIGURES commit of one row, 200 each: synchronous standby ${f(sync)}; primary alone (synchronous_commit=local) ${f(local)}\n`);
    });
  });

  it('the API is not ready while a commit cannot come back (standby killed): 503 with syncCommit.code DATABASE.SYNC_COMMIT_STALLED; ready again once the standby is back', async () => {
    assertBuilt();
    const apiPort = await freePort();
    const env = ledgerServiceEnv({ databaseUrl: pairUrl(ports), migrationsUrl: ownerUrl(), brokers: [`127.0.0.1:${await freePort()}`], topic: 'pgha.ledger.events', schema: 'pgha_read' });
    const api = new ServiceProcess(
      'api',
      {
        ...env,
        PORT: String(apiPort),
        HOST: '127.0.0.1',
        READ_SCHEMA: 'pgha_read',
        JWT_SECRET: randomBytes(24).toString('hex'),
        RUN_MIGRATIONS: 'true',
        TABLES_FILE: join(REPO_ROOT, 'config/tables.json'),
        READY_SYNC_COMMIT_TIMEOUT_MS: '500',
      },
      join(DIR, 'api.log'),
      () => undefined,
    );
    const ready = () => probeJson(`http://127.0.0.1:${apiPort}/health/ready`);
    const stalled = async () => /^ledger_sync_commit_stalled (\S+)$/m.exec(await (await fetch(`http://127.0.0.1:${apiPort}/metrics`)).text())?.[1];
    const until = async (want: number, timeoutMs: number) => {
      const t0 = Date.now();
      for (;;) {
        const p = await ready();
        expect(p.ms).toBeLessThan(2500);
        if (p.status === want) return { ...p, afterMs: Date.now() - t0 };
        if (Date.now() - t0 > timeoutMs) throw new Error(`readiness not ${want} within ${timeoutMs} ms: ${p.status} ${JSON.stringify(p.body)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    api.start();
    try {
      const first = await until(200, 90_000);
      expect(first.body.details?.syncCommit).toMatchObject({ status: 'up', commitMs: expect.any(Number), boundMs: 500 });
      expect(await stalled()).toBe('0');

      await kill(DIR, 'standby');
      const down = await until(503, 15_000);
      expect(down.body.error?.syncCommit).toMatchObject({ status: 'down', code: 'DATABASE.SYNC_COMMIT_STALLED', boundMs: 500 });
      expect(down.body.details?.postgres).toMatchObject({ status: 'up' });
      for (let i = 0; i < 3; i++) expect((await ready()).status).toBe(503);
      expect(await stalled()).toBe('1');
      // every cancelled probe gave its backend back: none waits on the standby
      const waiting = await withClient(ownerUrl(), async (c) => (await c.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'ledger-api-ready%' AND wait_event = 'SyncRep'`)).rows[0].n);
      expect(waiting).toBe(0);

      const restartAt = Date.now();
      await up(DIR, ports);
      const restartMs = Date.now() - restartAt;
      const back = await until(200, 30_000);
      expect(await stalled()).toBe('0');
      process.stdout.write(
        `FIGURES readiness: 503 ${down.afterMs} ms after SIGKILL of the standby (bound 500 ms, that answer in ${Math.round(down.ms)} ms); the standby synchronous again ${restartMs} ms after its restart began, readiness 200 ${back.afterMs} ms after that\n`,
      );
    } finally {
      await api.stop(10_000, false);
    }
  });

  it('after SIGKILL of the primary and promotion of the standby, the same DataSource writes on the new primary and no acknowledged row is lost', async () => {
    ds = createDataSource(ownerUrl(), { poolSize: 4, applicationName: 'pgha-spec' });
    await ds.initialize();
    const acked: number[] = [];
    for (let id = 1; id <= 200; id++) {
      await ds.query('INSERT INTO pgha_rows (id) VALUES ($1)', [id]);
      acked.push(id);
    }
    expect(await whereAmI((s) => ds!.query(s))).toEqual({ port: ports.primary, standby: false });

    const killedAt = Date.now();
    await kill(DIR, 'primary');
    await expect(ds.query('SELECT 1')).rejects.toThrow(); // a broken connection, or no read-write host yet
    // a process starting now refuses to, naming both hosts and why neither would do
    await expect(assertDatabaseReachable(ownerUrl(), 'DATABASE_URL', 3000)).rejects.toThrow(
      new RegExp(`STARTUP.DATABASE_UNREACHABLE.*127.0.0.1:${ports.primary},127.0.0.1:${ports.standby}/ledger.*127.0.0.1:${ports.standby}: a standby`),
    );
    await promote(DIR);
    await assertDatabaseReachable(ownerUrl(), 'DATABASE_URL', 3000);

    const t0 = Date.now();
    let landed: { port: number; standby: boolean } | undefined;
    while (!landed && Date.now() - t0 < 30_000) {
      landed = await whereAmI((s) => ds!.query(s)).catch(() => undefined);
      if (!landed) await new Promise((r) => setTimeout(r, 250));
    }
    expect(landed).toEqual({ port: ports.standby, standby: false });
    process.stdout.write(`FIGURES failover: SIGKILL of the primary to the DataSource's first query on the promoted standby ${Date.now() - killedAt} ms (promotion ${t0 - killedAt} ms of it)\n`);
    await ds.query('INSERT INTO pgha_rows (id) VALUES ($1)', [201]);
    const rows: Array<{ id: string }> = await ds.query('SELECT id FROM pgha_rows WHERE id > 0 ORDER BY id');
    expect(rows.map((r) => Number(r.id))).toEqual([...acked, 201]);
    const st = await status(DIR);
    expect(st.primary?.name).toBe('pg-standby');
    expect(st.promoted).toBe(true);
  });

  it('down stops what runs; up after the promotion starts the promoted server alone, never the old primary', async () => {
    await ds?.destroy();
    ds = undefined;
    await down(DIR);
    expect((await status(DIR)).nodes.map((n) => n.role)).toEqual(['down', 'down']);
    const st = await up(DIR, ports);
    expect(st.nodes.map((n) => [n.name, n.role])).toEqual([
      ['pg-primary', 'down'],
      ['pg-standby', 'primary'],
    ]);
    const rows = await withClient(ownerUrl(), async (c) => (await c.query('SELECT count(*)::int AS n FROM pgha_rows WHERE id > 0')).rows[0].n);
    expect(rows).toBe(201);
  });

  it('rejoin makes the old primary the synchronous standby of the promoted server; up after down keeps the new roles', async () => {
    const t0 = Date.now();
    const st = await rejoin(DIR);
    process.stdout.write(`FIGURES rejoin (pg_basebackup of the promoted server into the old primary's folder, start, synchronous): ${Date.now() - t0} ms\n`);
    expect([st.primary?.name, st.standby?.name, st.syncState, st.promoted]).toEqual(['pg-standby', 'pg-primary', 'sync', false]);
    const onStandby = () =>
      withClient(pairUrl(ports, { user: 'ledger_owner', targetSessionAttrs: 'standby' }), async (c) => (await c.query('SELECT count(*)::int AS n, inet_server_port() AS port FROM pgha_rows WHERE id > 0')).rows[0]);
    expect(await onStandby()).toEqual({ n: 201, port: ports.primary });
    await withClient(ownerUrl(), (c) => c.query('INSERT INTO pgha_rows (id) VALUES (202)'));
    const t1 = Date.now();
    while ((await onStandby()).n !== 202 && Date.now() - t1 < 10_000) await new Promise((r) => setTimeout(r, 100));
    expect((await onStandby()).n).toBe(202);

    await down(DIR);
    const again = await up(DIR, ports);
    expect(again.nodes.map((n) => [n.name, n.role])).toEqual([
      ['pg-primary', 'standby'],
      ['pg-standby', 'primary'],
    ]);
    expect(again.syncState).toBe('sync');
    await expect(rejoin(DIR)).rejects.toThrow(/nothing to rejoin/);
  });
});
