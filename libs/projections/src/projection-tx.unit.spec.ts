import { ProjectionTx, SqlClient } from './projection-tx';

/** A fake client that records statements. */
function recorder() {
  const log: string[] = [];
  const client: SqlClient = {
    query: async (q: string | { text: string }) => {
      log.push(typeof q === 'string' ? q : q.text);
      return { rows: [], rowCount: 0 };
    },
  };
  return { log, client };
}

describe('ProjectionTx deferred writes', () => {
  it('runs queued writes in order, grouping consecutive writes of one kind, before any read', async () => {
    const { log, client } = recorder();
    const tx = new ProjectionTx(client, 'read', { timeZone: 'UTC', cutoffHour: 6 }, { rounds: new Map() });
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

  it('sums reconciliation deltas per key and writes each key once at flush', async () => {
    const { log, client } = recorder();
    const tx = new ProjectionTx(client, 'read', { timeZone: 'UTC', cutoffHour: 6 }, { rounds: new Map() });
    const key = { tableId: 'T', shoeId: 'S', dealerId: 'D', gamingDay: '2025-03-01', currency: 'EUR' };
    tx.addReconciliation(key, { turnover: 100n, payouts: 195n, dropped: { num: 1n, den: 4n } });
    tx.addReconciliation(key, { turnover: 15n, payouts: 29n, dropped: { num: 1n, den: 20n } });
    await tx.flush();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/INSERT INTO "read"."reconciliation"/);
    expect(log[0]).toMatch(/ON CONFLICT/);
  });
});
