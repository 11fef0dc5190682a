import type { DataSource } from 'typeorm';
import { createProjectionDataSource, dropProjectionSchema, runProjectionMigrations } from '@ledger/projections';
import { TEST_DATABASE_URL } from '@ledger/projections/testing/kafka-kit';
import { READ_MODEL_MIGRATIONS } from '../migrations';
import type { Queryable } from '../sql';
import { AuditReads, type AuditPageRow } from './queries';

/**
 * Audit pages with a time window (docs/architecture.md §7, "Audit search"): `occurred_at` is the
 * device's clock, so it does not follow global order. 12,000 events whose times run against their
 * positions (and share times, to the microsecond, in pairs) on 4 tables:
 *
 * 1. walking every page of a window (alone, and with a table) with the cursor the page gives yields
 *    each event of the window exactly once, in order of (occurred_at, global_position), microseconds
 *    kept;
 * 2. the page's statement is one range of `audit_events_time_pos_idx` with no Sort: its cost does
 *    not grow with the window (on the old code, ordered by global position, the plan sorted the
 *    window or walked the primary key).
 */
jest.setTimeout(120_000);

const schema = 'read_it_audit_pages';
const ROWS = 12_000;

describe('audit pages with a time window', () => {
  let ds: DataSource;
  const statements: { text: string; params: readonly unknown[] }[] = [];
  let reads: AuditReads;

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'read-model-int-audit-pages', poolSize: 2 });
    await ds.initialize();
    await dropProjectionSchema(ds, schema).catch(() => undefined);
    await runProjectionMigrations(ds, { schema, migrations: READ_MODEL_MIGRATIONS });
    // times run backwards in blocks against the positions; every pair of events shares a time to the microsecond
    await ds.query(
      `INSERT INTO "${schema}".audit_events (global_position, event_id, stream_id, stream_version, table_id, shoe_id, type, schema_version,
                                             actor_id, actor_role, occurred_at, recorded_at, correlation_id, causation_id, hash, prev_hash, data)
       SELECT g, 'ev-' || g, 'shoe-s' || (g % 4), g, 'T-' || (g % 4), 's' || (g % 4), 'CardDealt', 1, 'device-' || (g % 4), 'table-device',
              timestamptz '2026-01-01 00:00:00+00' + ((${ROWS} - g) / 2) * interval '1001 microseconds', now(), 'c-' || g, 'c-' || g, md5(g::text) || md5(g::text), md5(g::text) || md5(g::text), '{}'::jsonb
         FROM generate_series(1, ${ROWS}) AS g`,
    );
    await ds.query(`ANALYZE "${schema}".audit_events`);
    const q: Queryable = {
      query: (text: string, params?: readonly unknown[]) => {
        statements.push({ text, params: params ?? [] });
        return ds.query(text, params as unknown[]);
      },
    } as Queryable;
    reads = new AuditReads(q, schema);
  });

  afterAll(async () => {
    if (ds?.isInitialized) {
      await dropProjectionSchema(ds, schema).catch(() => undefined);
      await ds.destroy();
    }
  });

  const from = '2026-01-01T00:00:01.000000Z';
  const to = '2026-01-01T00:00:04.500000Z';

  /** Every page of the window (with `tableId` when given), 97 events a page, following each page's last key. */
  async function walk(tableId: string | null): Promise<AuditPageRow[]> {
    const seen: AuditPageRow[] = [];
    let after: { time: string; position: string } | null = null;
    for (let pages = 0; pages < 1000; pages++) {
      const page = await reads.page({ from, to, tableId, afterOccurredAt: after?.time ?? null, afterPosition: after?.position ?? null, take: 97 });
      seen.push(...page);
      if (page.length < 97) return seen;
      const last = page[page.length - 1];
      after = { time: last.occurred_key!, position: last.global_position };
    }
    throw new Error('the pages did not end');
  }

  it.each([[null], ['T-2']])('walks the window (table %s) page by page: each event once, in (occurred_at, position) order, microseconds kept', async (tableId) => {
    const expected: { global_position: string; occurred_key: string }[] = await ds.query(
      `SELECT global_position::text AS global_position, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS occurred_key
         FROM "${schema}".audit_events e WHERE occurred_at >= $1 AND occurred_at < $2 AND ($3::text IS NULL OR table_id = $3) ORDER BY e.occurred_at, e.global_position`,
      [from, to, tableId],
    );
    expect(expected.length).toBeGreaterThan(500);
    const seen = await walk(tableId);
    expect(seen.map((r) => [r.global_position, r.occurred_key])).toEqual(expected.map((r) => [r.global_position, r.occurred_key]));
    // the window's times run against the positions: global order would have given another sequence
    expect(BigInt(seen[0].global_position)).toBeGreaterThan(BigInt(seen[seen.length - 1].global_position));
    expect(seen.some((r) => !r.occurred_key!.endsWith('000Z'))).toBe(true);
  });

  it('reads a page with a time window as one range of the (occurred_at, global_position) index, with no Sort', async () => {
    statements.length = 0;
    await reads.page({ from, to, afterOccurredAt: '2026-01-01T00:00:02.002002Z', afterPosition: '7000', take: 101 });
    const [{ text, params }] = statements;
    const session = ds.createQueryRunner();
    await session.connect();
    await session.query('BEGIN');
    try {
      // the planner as on a large table: on 12,000 rows a sequential scan and a sort may win
      await session.query('SET LOCAL enable_seqscan = off');
      const [{ 'QUERY PLAN': plan }] = await session.query(`EXPLAIN (FORMAT JSON) ${text}`, params as unknown[]);
      const nodes: { 'Node Type': string; 'Index Name'?: string }[] = [];
      const visit = (n: { 'Node Type': string; 'Index Name'?: string; Plans?: unknown[] }) => {
        nodes.push(n);
        for (const c of n.Plans ?? []) visit(c as typeof n);
      };
      visit(plan[0].Plan);
      expect(nodes.map((n) => n['Node Type'])).not.toContain('Sort');
      expect(nodes.find((n) => n['Node Type'].startsWith('Index'))?.['Index Name']).toBe('audit_events_time_pos_idx');
    } finally {
      await session.query('ROLLBACK');
      await session.release();
    }
  });
});
