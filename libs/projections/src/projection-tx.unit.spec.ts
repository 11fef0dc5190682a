import { ProjectionTx, SqlClient, SumTable, TableScope } from './projection-tx';
import { addReconciliation } from '@ledger/read-model';

/** A fake client that records statements (and their parameters). */
function recorder() {
  const log: string[] = [];
  const params: unknown[][] = [];
  const client: SqlClient = {
    query: async (q: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
      log.push(typeof q === 'string' ? q : q.text);
      params.push((typeof q === 'string' ? values : q.values) ?? []);
      return { rows: [], rowCount: 0 };
    },
  };
  return { log, params, client };
}

const GAMING_DAY = { timeZone: 'UTC', cutoffHour: 6 };
const scope = (projection: string, phase: TableScope['phase'], own: string[], reads: string[] = []): TableScope => ({
  projection,
  phase,
  own: new Set(own),
  reads: new Set(reads),
});

describe('ProjectionTx deferred writes', () => {
  it('runs queued writes in order, grouping consecutive writes of one kind, before any read', async () => {
    const { log, client } = recorder();
    const tx = new ProjectionTx(client, 'read', GAMING_DAY);
    const flushA = async (items: number[]) => void log.push(`A${items.join('')}`);
    const flushB = async (items: number[]) => void log.push(`B${items.join('')}`);
    tx.defer('a', 1, flushA);
    tx.defer('a', 2, flushA);
    tx.defer('b', 3, flushB);
    tx.defer('a', 4, flushA);
    await tx.query('SELECT read_something');
    tx.defer('b', 5, flushB);
    await tx.flush();
    expect(log).toEqual(['A12', 'B3', 'A4', 'SELECT read_something', 'B5']);
  });
});

describe('ProjectionTx.increment (sums by key, one upsert at flush)', () => {
  const TABLE: SumTable = {
    name: 'totals',
    key: [
      { column: 'k1', type: 'text' },
      { column: 'day', type: 'date' },
    ],
    sums: ['amount', 'n'],
    fractions: [{ name: 'dropped', num: 'dropped_num', den: 'dropped_den' }],
  };

  it('sums deltas per key exactly (fractions over the lcm) and writes every key with ONE statement', async () => {
    const { log, params, client } = recorder();
    const tx = new ProjectionTx(client, 'read', GAMING_DAY);
    tx.increment(TABLE, ['A', '2025-03-01'], { amount: 100n, n: 1n, dropped: { num: 1n, den: 4n } });
    tx.increment(TABLE, ['B', '2025-03-01'], { amount: 7n });
    tx.increment(TABLE, ['A', '2025-03-01'], { amount: 15n, dropped: { num: 1n, den: 20n } });
    await tx.flush();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/^INSERT INTO "read"."totals" AS x \(k1,day,amount,n,dropped_num,dropped_den\) VALUES \(\$1::text,\$2::date,\$3::numeric/);
    expect(log[0]).toMatch(/ON CONFLICT \(k1, day\) DO UPDATE SET\s+amount = x.amount \+ EXCLUDED.amount,\s+n = x.n \+ EXCLUDED.n,/);
    expect(log[0]).toMatch(/dropped_den = lcm\(x.dropped_den, EXCLUDED.dropped_den\)/);
    expect(params[0]).toEqual(['A', '2025-03-01', '115', '1', '6', '20', 'B', '2025-03-01', '7', '0', '0', '1']);
  });

  it('refuses a delta on a column the table does not sum', () => {
    const tx = new ProjectionTx(recorder().client, 'read', GAMING_DAY);
    expect(() => tx.increment(TABLE, ['A', '2025-03-01'], { other: 1n })).toThrow(/other is not a summed column/);
  });

  it('writes reconciliation deltas as the reconciliation table describes them', async () => {
    const { log, params, client } = recorder();
    const tx = new ProjectionTx(client, 'read', GAMING_DAY);
    const key = { tableId: 'T', shoeId: 'S', dealerId: 'D', gamingDay: '2025-03-01', currency: 'EUR' };
    addReconciliation(tx, key, { turnover: 100n, payouts: 195n, dropped: { num: 1n, den: 4n } });
    addReconciliation(tx, key, { turnover: 15n, payouts: 29n, dropped: { num: 1n, den: 20n } });
    await tx.flush();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/INSERT INTO "read"."reconciliation"/);
    expect(log[0]).toMatch(/ON CONFLICT \(table_id, shoe_id, dealer_id, gaming_day, currency\)/);
    // key, turnover, payouts, correction_payout_delta … corrections, dropped_num, dropped_den
    expect(params[0]).toEqual(['T', 'S', 'D', '2025-03-01', 'EUR', '115', '224', '0', '0', '0', '0', '0', '0', '0', '0', '6', '20']);
  });
});

describe('ProjectionTx table scopes', () => {
  it('lets a projection name its own tables, and the ones it reads only while preparing or at commit', async () => {
    const tx = new ProjectionTx(recorder().client, 'read', GAMING_DAY);
    await tx.scoped(scope('p', 'apply', ['mine'], ['theirs']), async () => {
      expect(tx.t('mine')).toBe('"read"."mine"');
      expect(() => tx.t('theirs')).toThrow(/projection p names table theirs in apply.*read it in prepare/);
      expect(() => tx.t('unknown')).toThrow(/declare it in its reads/);
    });
    await tx.scoped(scope('p', 'prepare', ['mine'], ['theirs']), async () => {
      expect(tx.t('theirs')).toBe('"read"."theirs"');
      expect(() => tx.append('mine', { a: 1 })).toThrow(/queues a write in prepare/);
    });
    expect(tx.t('anything')).toBe('"read"."anything"'); // no projection running: unchecked
  });

  it('runs queued work under the scope of the projection that queued it', async () => {
    const { client } = recorder();
    const tx = new ProjectionTx(client, 'read', GAMING_DAY);
    const seen: string[] = [];
    await tx.scoped(scope('a', 'apply', ['a_rows'], ['b_rows']), async () => {
      tx.defer('a', 1, async () => void seen.push(tx.t('a_rows')));
      tx.beforeCommit('a', async () => void seen.push(tx.t('b_rows'))); // at commit: declared reads allowed
    });
    // another projection's read flushes a's deferred write: it still runs as a
    await tx.scoped(scope('b', 'apply', ['b_rows']), () => tx.query(`SELECT 1 FROM ${tx.t('b_rows')}`));
    await tx.flush();
    expect(seen).toEqual(['"read"."a_rows"', '"read"."b_rows"']);
  });

  it('caches facts for the transaction, then for the next ones once merged', async () => {
    const caches = { facts: new Map<string, Map<string, unknown>>() };
    const tx = new ProjectionTx(recorder().client, 'read', GAMING_DAY, caches);
    let loads = 0;
    const load = async () => ++loads;
    expect(await tx.fact('k', 'x', load)).toBe(1);
    expect(await tx.fact('k', 'x', load)).toBe(1);
    expect(caches.facts.size).toBe(0); // not shared before COMMIT
    expect([...tx.learnedFacts().get('k')!]).toEqual([['x', 1]]);
  });
});
