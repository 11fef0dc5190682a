import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { EVENT_STORE_MIGRATIONS } from '@ledger/event-store';
import { PROJECTION_MIGRATIONS } from '@ledger/read-model';
import { API_EXTRA_MIGRATIONS } from '../../apps/ledger/src/persistence/migrate-all';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
/** A database of this spec's own, created empty (owned by `ledger_owner`) and dropped after. */
const DB = `ledger_migrate_${randomBytes(4).toString('hex')}`;
const ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';
const OWNER_URL = `postgres://ledger_owner:ledger_owner@127.0.0.1:5432/${DB}`;

/** `npm run migration:<cmd>` (scripts/migrate.ts) against the spec's database. */
async function migrate(cmd: 'run' | 'show'): Promise<string> {
  const { stdout } = await run('npm', ['run', '-s', `migration:${cmd}`], {
    cwd: ROOT,
    env: { ...process.env, LEDGER_ENV: 'development', DATABASE_URL: `postgres://ledger_app:ledger_app@127.0.0.1:5432/${DB}`, MIGRATIONS_DATABASE_URL: OWNER_URL, PROJECTIONS_SCHEMA: 'read' },
    timeout: 120_000,
  });
  return stdout;
}

async function query<T>(sql: string): Promise<T[]> {
  const c = new Client({ connectionString: OWNER_URL });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  const c = new Client({ connectionString: ADMIN });
  await c.connect();
  await c.query(`CREATE DATABASE ${DB} OWNER ledger_owner`);
  await c.end();
});

afterAll(async () => {
  const c = new Client({ connectionString: ADMIN });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await c.end();
});

const writeSide = [...EVENT_STORE_MIGRATIONS, ...API_EXTRA_MIGRATIONS].map((M) => new M().name);
const readSide = PROJECTION_MIGRATIONS.map((M) => new M('read').name);

describe('npm run migration:run on an empty database', () => {
  it('shows everything pending before the first run', async () => {
    const out = await migrate('show');
    expect(out).toContain(`event-store (public): 0 applied, ${writeSide.length} pending`);
    expect(out).toContain(`read-model (read): 0 applied, ${readSide.length} pending`);
  }, 180_000);

  it('creates every schema: event store, query log, shoe snapshots, read model', async () => {
    const out = await migrate('run');
    for (const n of [...writeSide, ...readSide]) expect(out).toContain(`ran ${n}`);
    expect(out).toContain(`migrations: ${writeSide.length + readSide.length} run`);
    const tables = (await query<{ t: string }>(`SELECT table_schema || '.' || table_name AS t FROM information_schema.tables WHERE table_schema IN ('public', 'read')`)).map((r) => r.t);
    expect(tables).toEqual(expect.arrayContaining(['public.events', 'public.streams', 'public.outbox', 'public.rejections', 'public.query_log', 'public.stream_snapshots', 'read.migrations', 'read.checkpoints']));
    const applied = await query<{ name: string }>(`SELECT name FROM public.migrations`);
    expect(applied.map((r) => r.name).sort()).toEqual([...writeSide].sort());
    const readApplied = await query<{ name: string }>(`SELECT name FROM read.migrations`);
    expect(readApplied.map((r) => r.name).sort()).toEqual([...readSide].sort());
  }, 180_000);

  it('a second run is a no-op and show reports nothing pending', async () => {
    const out = await migrate('run');
    expect(out).not.toContain('ran ');
    expect(out).toContain('migrations: 0 run');
    const show = await migrate('show');
    expect(show).toContain(`event-store (public): ${writeSide.length} applied, 0 pending`);
    expect(show).toContain(`read-model (read): ${readSide.length} applied, 0 pending`);
    expect(show).not.toContain('[ ]');
  }, 180_000);
});
