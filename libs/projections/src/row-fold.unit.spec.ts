import { ProjectionTx, SqlClient, TableScope } from './projection-tx';

/**
 * Rows held in memory by a transaction (`row-fold.ts`, docs/architecture.md §7): read once, changed
 * in memory, written once per table and column set, and written before any statement naming the
 * table. A fake client answers the catalog and `SELECT *` reads and records every statement.
 */
function fakeDb(rows: Record<string, Record<string, unknown>>) {
  const log: { text: string; values: unknown[] }[] = [];
  const client: SqlClient = {
    query: async (q: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
      const text = typeof q === 'string' ? q : q.text;
      const vals = (typeof q === 'string' ? values : q.values) ?? [];
      log.push({ text, values: vals });
      if (text.includes('FROM pg_attribute')) {
        return { rows: ['shoe_id', 'status', 'burns', 'dealer_id'].map((attname) => ({ attname, type: attname === 'burns' ? 'integer' : 'text' })), rowCount: 4 };
      }
      if (text.startsWith('SELECT * FROM')) {
        const row = rows[String(vals[0])];
        return { rows: row ? [{ ...row }] : [], rowCount: row ? 1 : 0 };
      }
      if (text.startsWith('UPDATE') && text.includes('json_to_recordset')) return { rows: [], rowCount: JSON.parse(String(vals[0])).length };
      return { rows: [], rowCount: 0 };
    },
  };
  return { log, client };
}

const apply: TableScope = { projection: 'shoe_state', phase: 'apply', own: new Set(['shoe_state']), reads: new Set() };
const prepare: TableScope = { projection: 'hand_outcomes', phase: 'prepare', own: new Set(['hand_outcomes']), reads: new Set(['shoe_state']) };

describe('ProjectionTx rows held in memory', () => {
  it('reads a row once, applies changes in memory, writes each changed row once at flush (one UPDATE per column set)', async () => {
    const { log, client } = fakeDb({ s1: { shoe_id: 's1', status: 'OPEN', burns: 0, dealer_id: 'd1' }, s2: { shoe_id: 's2', status: 'OPEN', burns: 0, dealer_id: 'd1' } });
    const tx = new ProjectionTx(client, 'read', { timeZone: 'UTC', cutoffHour: 6 });
    await tx.scoped(apply, async () => {
      for (const key of ['s1', 's2', 's1']) {
        const row = (await tx.row('shoe_state', 'shoe_id', key))!;
        tx.update(row, { burns: (row.values.burns as number) + 1 });
      }
      const s1 = (await tx.row('shoe_state', 'shoe_id', 's1'))!;
      expect(s1.values.burns).toBe(2);
    });
    expect(log.filter((l) => l.text.startsWith('SELECT * FROM'))).toHaveLength(2);
    await tx.flush();
    const writes = log.filter((l) => l.text.startsWith('UPDATE'));
    expect(writes).toHaveLength(1);
    expect(writes[0].text).toContain(`"burns" = x."burns"::integer`);
    expect(JSON.parse(String(writes[0].values[0]))).toEqual([
      { shoe_id: 's1', burns: 2 },
      { shoe_id: 's2', burns: 1 },
    ]);
  });

  it('writes the held rows before a statement that names their table, and reads them again after it', async () => {
    const { log, client } = fakeDb({ s1: { shoe_id: 's1', status: 'OPEN', burns: 0, dealer_id: 'd1' } });
    const tx = new ProjectionTx(client, 'read', { timeZone: 'UTC', cutoffHour: 6 });
    await tx.scoped(apply, async () => {
      tx.update((await tx.row('shoe_state', 'shoe_id', 's1'))!, { status: 'READY' });
      await tx.query(`SELECT 1 FROM ${tx.t('shoe_state')} WHERE shoe_id = $1`, ['s1']);
      await tx.row('shoe_state', 'shoe_id', 's1');
    });
    // (the catalog read of the column types is cached per process)
    expect(log.map((l) => l.text.slice(0, 20)).filter((t) => !t.startsWith('SELECT attname'))).toEqual(['SELECT * FROM "read"', 'UPDATE "read"."shoe_', 'SELECT 1 FROM "read"', 'SELECT * FROM "read"']);
  });

  it('creates a row in memory and INSERTs it once, with its later changes', async () => {
    const { log, client } = fakeDb({});
    const tx = new ProjectionTx(client, 'read', { timeZone: 'UTC', cutoffHour: 6 });
    await tx.scoped(apply, async () => {
      const row = tx.createRow('shoe_state', 'shoe_id', { shoe_id: 's9', status: 'OPEN', burns: 0, dealer_id: 'd1' });
      tx.update(row, { burns: 3 });
      expect(() => tx.createRow('shoe_state', 'shoe_id', { shoe_id: 's9', status: 'OPEN', burns: 0, dealer_id: 'd1' })).toThrow(/already held/);
    });
    await tx.flush();
    const inserts = log.filter((l) => l.text.startsWith('INSERT'));
    expect(inserts).toHaveLength(1);
    expect(JSON.parse(String(inserts[0].values[0]))).toEqual([{ shoe_id: 's9', status: 'OPEN', burns: 3, dealer_id: 'd1' }]);
    expect(log.filter((l) => l.text.startsWith('UPDATE'))).toHaveLength(0);
  });

  it('lets prepare read a declared table but not change it; refuses an unknown column', async () => {
    const { client } = fakeDb({ s1: { shoe_id: 's1', status: 'OPEN', burns: 0, dealer_id: 'd1' } });
    const tx = new ProjectionTx(client, 'read', { timeZone: 'UTC', cutoffHour: 6 });
    const row = (await tx.scoped(prepare, () => tx.row('shoe_state', 'shoe_id', 's1')))!;
    expect(row.values.dealer_id).toBe('d1');
    await expect(tx.scoped(prepare, async () => tx.update(row, { status: 'READY' }))).rejects.toThrow(/write in prepare/);
    await expect(tx.scoped(apply, async () => tx.update(row, { nope: 1 }))).rejects.toThrow(/no column nope/);
  });
});
