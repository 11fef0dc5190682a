/**
 * Audit pages over a large `audit_events` (the target "audit page (filters + keyset) over ≥ 2,000,000
 * events, p99 < 100 ms"): `rows` rows are seeded straight into the read schema's `audit_events`
 * with one SQL `generate_series` (psql, chunks of 250,000), in a realistic shape — shoes of 1,700
 * events on 20 tables, rounds of 40 events (open, 16 bets, close, 5 cards, result, 16
 * settlements), a void every 997 events and a correction every 4,999, three platforms, a device
 * per table, five pit managers, an event every 50 ms, ~200-byte `data` — then `ANALYZE`d (as
 * autovacuum would), with whatever indexes the read model's migrations created. Then the API's
 * `GET /audit/events` (and `/audit/decisions`) is timed, one request at a time, for every filter
 * combination, with several values each, first page and `pages − 1` keyset pages
 * (`cursor = nextCursor`); p50/p99 overall and per combination.
 *
 * The columns are read from the catalogue: a column the seed does not know is left to its
 * default when nullable or defaulted, and stops the phase with a clear error otherwise (the table
 * is the read model's, libs/projections/src/migrations and libs/read-model/src/migrations, and may change).
 */
import { LedgerClient } from '@ledger/simulator';
import type { Pg } from '../lib/pg';
import { runCommand } from '../lib/procs';
import { latencySummary, nowMs, round, say } from '../lib/util';

export interface AuditFigures {
  readonly rows: number;
  readonly seededRows: number;
  readonly seedSeconds: number;
  readonly indexes: string[];
  readonly requests: number;
  readonly failed: number;
  readonly pageMs: ReturnType<typeof latencySummary>;
  readonly byFilter: Record<string, ReturnType<typeof latencySummary> & { emptyFirstPages: number }>;
  readonly firstError?: string;
}

const SHOE = 1700;
const ROUND = 40;
const BASE_POSITION = 1_000_000_000_000;

/** SQL expression per known column, over `g` (0-based row number) and `k` (shoe number). */
function expressions(types: Record<string, string>): Record<string, string> {
  const kind = `(g % ${SHOE}) % ${ROUND}`;
  const type = `CASE WHEN g % 4999 = 0 THEN 'ResultCorrected' WHEN g % 997 = 0 THEN 'RoundVoided' WHEN g % ${SHOE} < 3 THEN (ARRAY['ShoeOpened','ShoeCommenced','CardBurned'])[g % ${SHOE} + 1]
     WHEN ${kind} = 0 THEN 'RoundOpened' WHEN ${kind} <= 16 THEN 'BetPlaced' WHEN ${kind} = 17 THEN 'BettingClosed' WHEN ${kind} <= 22 THEN 'CardDealt'
     WHEN ${kind} = 23 THEN 'RoundResulted' ELSE 'BetSettled' END`;
  const isBet = `(${kind} BETWEEN 1 AND 16 OR ${kind} >= 24)`;
  const isDecision = `(g % 4999 = 0 OR g % 997 = 0)`;
  const round = `'seed-' || k || '-r' || ((g % ${SHOE}) / ${ROUND})`;
  const id = types.event_id === 'uuid' ? `md5('seed' || g)::uuid` : `'seed-' || g`;
  const at = `timestamptz '2025-01-01 00:00:00+00' + g * interval '50 milliseconds'`;
  return {
    global_position: `${BASE_POSITION} + g`,
    event_id: id,
    stream_id: `'shoe-seed-' || k`,
    stream_version: `(g % ${SHOE}) + 1`,
    table_id: `'seed-T' || (k % 20)`,
    shoe_id: `'seed-' || k`,
    round_id: `CASE WHEN g % ${SHOE} < 3 THEN NULL ELSE ${round} END`,
    bet_id: `CASE WHEN ${isBet} AND NOT ${isDecision} THEN 'seed-b' || g ELSE NULL END`,
    type,
    schema_version: '1',
    actor_id: `CASE WHEN ${isDecision} THEN 'seed-pm-' || (g % 5) WHEN ${isBet} THEN 'seed-platform-' || (k % 3) ELSE 'seed-device-' || (k % 20) END`,
    actor_role: `CASE WHEN ${isDecision} THEN 'pit-manager' WHEN ${isBet} THEN 'betting-platform' ELSE 'table-device' END`,
    occurred_at: at,
    recorded_at: `${at} + interval '4 milliseconds'`,
    correlation_id: `'seed-c' || (g / ${ROUND})`,
    causation_id: `'seed-c' || (g / ${ROUND})`,
    reason: `CASE WHEN ${isDecision} THEN 'seeded management decision' ELSE NULL END`,
    acting_manager_id: `CASE WHEN ${isDecision} THEN 'seed-pm-' || (g % 5) ELSE NULL END`,
    approver_id: `CASE WHEN ${isDecision} THEN 'seed-pm-' || ((g + 1) % 5) ELSE NULL END`,
    compensates: 'NULL',
    prev_hash: `md5((g - 1)::text) || md5((g - 1)::text || 'x')`,
    hash: `md5(g::text) || md5(g::text || 'x')`,
    data: `jsonb_build_object('seed', true, 'betId', 'seed-b' || g, 'accountId', 'acct-' || (g % 5000), 'betCode', (ARRAY['PLAYER','BANKER','TIE'])[g % 3 + 1], 'stake', ((g % 7 + 1) * 1000)::text, 'currency', 'EUR', 'roundId', ${round})`,
  };
}

/** Seeds `rows` rows (those already seeded count) and ANALYZEs. @returns rows in the table and rows added */
async function seed(pg: Pg, url: string, schema: string, rows: number, logDir: string): Promise<{ total: number; added: number; seconds: number }> {
  const t = `"${schema}".audit_events`;
  const kind = (await pg.query(`SELECT table_type FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'audit_events'`, [schema])).rows[0]?.table_type;
  if (kind !== 'BASE TABLE') throw new Error(`${schema}.audit_events is not a table (${kind ?? 'missing'}): the audit seed cannot write it`);
  const cols = (
    await pg.query(`SELECT column_name, data_type, is_nullable, column_default, is_generated FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'audit_events' ORDER BY ordinal_position`, [schema])
  ).rows as { column_name: string; data_type: string; is_nullable: string; column_default: string | null; is_generated: string }[];
  const ex = expressions(Object.fromEntries(cols.map((c) => [c.column_name, c.data_type])));
  const use: string[] = [];
  for (const c of cols) {
    if (c.is_generated !== 'NEVER') continue;
    if (ex[c.column_name]) use.push(c.column_name);
    else if (c.is_nullable === 'NO' && c.column_default === null) throw new Error(`audit seed: ${schema}.audit_events.${c.column_name} is NOT NULL without a default and the seed does not know it`);
  }
  const have = (await pg.query(`SELECT count(*)::int AS n FROM ${t} WHERE global_position >= ${BASE_POSITION}`)).rows[0].n as number;
  const started = nowMs();
  let script = '';
  const chunk = 250_000;
  for (let from = have; from < rows; from += chunk) {
    const to = Math.min(rows, from + chunk) - 1;
    script += `INSERT INTO ${t} (${use.map((c) => `"${c}"`).join(', ')})
  SELECT ${use.map((c) => ex[c]).join(',\n         ')}
    FROM (SELECT g, g / ${SHOE} AS k FROM generate_series(${from}::bigint, ${to}::bigint) AS g) s;\n`;
  }
  script += `ANALYZE ${t};\n`;
  if (rows > have) say(`audit: seeding ${rows - have} rows into ${t} (${use.length} columns)`);
  const r = await runCommand('audit-seed', 'psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url], logDir, { input: script, timeoutMs: 3_600_000 });
  if (r.code !== 0) throw new Error(`audit seed failed: ${r.out.slice(-2000)}`);
  const total = (await pg.query(`SELECT count(*)::int AS n FROM ${t}`)).rows[0].n as number;
  return { total, added: Math.max(0, rows - have), seconds: round((nowMs() - started) / 1000, 1)! };
}

/** The filter combinations timed, with `values` different values each (all exist in the seed). */
export function auditQueries(rows: number, values: number): { name: string; path: string }[] {
  const shoes = Math.max(1, Math.floor(rows / SHOE));
  const iso = (g: number) => new Date(Date.UTC(2025, 0, 1) + g * 50).toISOString();
  const out: { name: string; path: string }[] = [];
  for (let v = 0; v < values; v++) {
    const g = Math.floor(((v + 0.5) / values) * (rows - 1));
    const k = Math.floor(g / SHOE);
    const shoe = `seed-${Math.min(k, shoes - 1)}`;
    const table = `seed-T${k % 20}`;
    const roundId = `seed-${k}-r${Math.max(1, Math.floor((g % SHOE) / ROUND))}`;
    const hour = (a: number) => `from=${encodeURIComponent(iso(a))}&to=${encodeURIComponent(iso(a + 72_000))}`;
    const q: [string, string][] = [
      ['none', ''],
      ['tableId', `tableId=${table}`],
      ['shoeId', `shoeId=${shoe}`],
      ['roundId', `roundId=${roundId}`],
      ['type (common)', 'type=BetPlaced'],
      ['type (rare)', 'type=RoundVoided'],
      ['actorId', `actorId=seed-platform-${v % 3}`],
      ['from+to (1 h)', hour(g)],
      ['tableId+type', `tableId=${table}&type=CardDealt`],
      ['tableId+from+to', `tableId=${table}&${hour(g)}`],
      ['type+from+to', `type=RoundResulted&${hour(g)}`],
      ['actorId+from+to', `actorId=seed-device-${k % 20}&${hour(g)}`],
      ['shoeId+type', `shoeId=${shoe}&type=BetSettled`],
      ['tableId+actorId', `tableId=${table}&actorId=seed-pm-${v % 5}`],
    ];
    for (const [name, qs] of q) out.push({ name, path: `/audit/events?limit=100${qs ? '&' + qs : ''}` });
    out.push({ name: 'decisions', path: '/audit/decisions?limit=100' });
    out.push({ name: 'decisions+tableId', path: `/audit/decisions?limit=100&tableId=${table}` });
  }
  return out;
}

export async function measureAudit(client: LedgerClient, pg: Pg, url: string, o: { schema: string; rows: number; values: number; pages: number; logDir: string }): Promise<AuditFigures> {
  const s = await seed(pg, url, o.schema, o.rows, o.logDir);
  const indexes = (await pg.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'audit_events' ORDER BY indexname`, [o.schema])).rows.map((r: { indexdef: string }) =>
    r.indexdef.replace(/^CREATE (UNIQUE )?INDEX /, '$1'),
  );
  const queries = auditQueries(o.rows, o.values);
  say(`audit: ${new Set(queries.map((q) => q.name)).size} filter sets × ${o.values} values × up to ${o.pages} pages over ${s.total} rows`);
  const all: number[] = [];
  const by = new Map<string, { ms: number[]; empty: number }>();
  let failed = 0;
  let firstError: string | undefined;
  for (const q of queries) {
    let cursor: string | null = null;
    for (let p = 0; p < o.pages; p++) {
      const path: string = cursor ? `${q.path}&cursor=${encodeURIComponent(cursor)}` : q.path;
      const t0 = nowMs();
      try {
        const page = await client.get<{ items: unknown[]; nextCursor: string | null }>('auditor', 'bench-auditor', path);
        const ms = nowMs() - t0;
        all.push(ms);
        const b = by.get(q.name) ?? { ms: [], empty: 0 };
        b.ms.push(ms);
        if (p === 0 && page.items.length === 0) b.empty++;
        by.set(q.name, b);
        cursor = page.nextCursor;
      } catch (e) {
        failed++;
        firstError ??= `${path}: ${String(e)}`;
        break;
      }
      if (!cursor) break;
    }
  }
  return {
    rows: s.total,
    seededRows: s.added,
    seedSeconds: s.seconds,
    indexes,
    requests: all.length + failed,
    failed,
    pageMs: latencySummary(all),
    byFilter: Object.fromEntries([...by].map(([k, v]) => [k, { ...latencySummary(v.ms), emptyFirstPages: v.empty }])),
    ...(firstError ? { firstError } : {}),
  };
}
