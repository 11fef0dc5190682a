/**
 * Shoe snapshots against an insider with the API's database login (docs/guarantees.md §8;
 * docs/architecture.md §3, "The shoe cache"): a cache miss restores the stream's latest snapshot
 * and folds only the events after it, but a snapshot is derived data the `ledger_app` login can
 * rewrite. An edited state, a genuine snapshot copied onto another stream, and a snapshot whose
 * event hash no longer matches the stored chain are each refused, logged (`shoe snapshot
 * refused`, with the reason), and the stream folded from its events instead: the state the next
 * command is judged on is the events' own. Real PostgreSQL, the API in-process.
 *
 * Before snapshots existed a miss always folded the whole stream (the first case's
 * `readStream(stream, v + 1)` failed); a snapshot store without the MAC served the edited state.
 */
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { readFileSync } from 'node:fs';
import { PgEventStore } from '@ledger/event-store';
import { encodeState, fold } from '@ledger/shoe';
import { generateShoeScript, runShoeScript, type SimTable } from '@ledger/simulator';
import { ShoeStateCache } from '../../apps/ledger/src/shoe/shoe-state.cache';
import { ShoeSnapshots } from '../../apps/ledger/src/shoe/shoe-snapshots';
import { TEST_ADMIN_DATABASE_URL } from '../../libs/event-store/src/testing/int-support';
import { LedgerHarness, runId, startLedger, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';

jest.setTimeout(180_000);

const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;
/** The rows of a query on a plain pg client. */
const rows = async (c: Client, sql: string, params: unknown[]) => (await c.query(sql, params)).rows;
const SNAPSHOT_KEY = 'forged-snapshot-spec-key-'.padEnd(48, 'k');

describe('shoe snapshots: a miss folds from a genuine snapshot, never from a forged one', () => {
  let h: LedgerHarness;
  let insider: Client; // the API's own login, as an insider holding it would use it
  let admin: Client; // superuser, only to rewrite the events' chain (triggers off)
  let cache: ShoeStateCache;
  const streams: string[] = [];

  /** Drives a short shoe through the API and waits for its snapshot; returns the stream id. */
  async function playedShoe(seed: string): Promise<string> {
    const table = tables.find((t) => t.tableId === 'T-CLASSIC-01')!;
    const shoeId = runId('snap');
    await runShoeScript(generateShoeScript(table, seed, { shoeId, dealerId: 'dealer-3', accounts: 4, betChance: 0.9, maxRounds: 8 }), h.client);
    const streamId = `shoe-${shoeId}`;
    // written off the request's path: wait until one is there and no newer one follows
    let last = -1;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      const [row] = await rows(insider, `SELECT version FROM stream_snapshots WHERE stream_id = $1`, [streamId]);
      if (row && row.version > 20 && row.version === last) return streamId;
      last = row?.version ?? -1;
      await new Promise((r) => setTimeout(r, 300));
    }
    throw new Error(`no snapshot of ${streamId}`);
  }

  /** Evicts every cached shoe (the cache holds one: SHOE_CACHE_SIZE=1), then loads `streamId` as a miss. */
  async function missLoad(streamId: string) {
    await cache.load(`shoe-${runId('evict')}`);
    const reads = jest.spyOn(PgEventStore.prototype, 'readStream');
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const loaded = await cache.load(streamId);
      const warnings = warn.mock.calls.map((c) => c[0]).filter((w) => (w as { streamId?: string } | null)?.streamId === streamId);
      return { loaded, from: reads.mock.calls.filter((c) => c[0] === streamId).map((c) => c[1]), warnings };
    } finally {
      reads.mockRestore();
      warn.mockRestore();
    }
  }

  /**
   * The state folded from every stored event (what a miss must yield), as plain data: compared
   * with `toEqual`, since key order inside event data differs between the appended events a
   * snapshot was folded from and the stored ones (jsonb orders keys).
   */
  async function truth(streamId: string): Promise<unknown> {
    return plain(fold(await h.store.readStream(streamId)));
  }
  const plain = (state: Parameters<typeof encodeState>[0]): unknown => JSON.parse(encodeState(state));

  beforeAll(async () => {
    h = await startLedger({ env: { SHOE_SNAPSHOT_EVERY: '20', SHOE_SNAPSHOT_KEY: SNAPSHOT_KEY, SHOE_CACHE_SIZE: '1' } });
    insider = new Client({ connectionString: TEST_SERVICE_DATABASE_URLS.app });
    await insider.connect();
    admin = new Client({ connectionString: TEST_ADMIN_DATABASE_URL });
    await admin.connect();
    cache = h.app.get(ShoeStateCache);
    streams.push(await playedShoe('snap-a'), await playedShoe('snap-b'));
  });
  afterAll(async () => {
    await insider?.end();
    await admin?.end();
    await h?.close();
  });

  it('a genuine snapshot: the miss reads only the events after it, and the state equals the whole fold', async () => {
    const [a] = streams;
    const [{ version }] = await rows(insider, `SELECT version FROM stream_snapshots WHERE stream_id = $1`, [a]);
    const { loaded, from, warnings } = await missLoad(a);
    expect(from).toEqual([version + 1]);
    expect(warnings).toEqual([]);
    expect(loaded.version).toBe(await h.store.streamVersion(a));
    expect(plain(loaded.state)).toEqual(await truth(a));
  });

  it('an edited state (the MAC kept): refused, logged, the stream folded from its events', async () => {
    const [a] = streams;
    const [row] = await rows(insider, `SELECT state FROM stream_snapshots WHERE stream_id = $1`, [a]);
    const forged = (row.state as string).replace(/"status":"[A-Z_]+"/, (m: string) => (m === '"status":"READY"' ? '"status":"CLOSED"' : '"status":"READY"'));
    expect(forged).not.toBe(row.state);
    await insider.query(`UPDATE stream_snapshots SET state = $2 WHERE stream_id = $1`, [a, forged]);
    const { loaded, from, warnings } = await missLoad(a);
    expect(from).toEqual([1]);
    expect(warnings).toEqual([expect.objectContaining({ streamId: a, reason: 'MAC_MISMATCH' })]);
    expect(plain(loaded.state)).toEqual(await truth(a));
  });

  it("another stream's genuine snapshot copied onto this one: refused (the MAC names the stream)", async () => {
    const [a, b] = streams;
    await insider.query(
      `UPDATE stream_snapshots t SET version = s.version, event_hash = s.event_hash, key_id = s.key_id, mac = s.mac, state = s.state
         FROM stream_snapshots s WHERE t.stream_id = $1 AND s.stream_id = $2`,
      [a, b],
    );
    const { loaded, from, warnings } = await missLoad(a);
    expect(from).toEqual([1]);
    expect(warnings).toEqual([expect.objectContaining({ streamId: a, reason: 'MAC_MISMATCH' })]);
    expect(plain(loaded.state)).toEqual(await truth(a));
  });

  it('a genuine snapshot of a history since rewritten (the event hash at its version changed): refused as off the chain', async () => {
    const [a] = streams;
    const full = await missLoad(a); // from the events (the row is still B's copy)
    await h.app.get(ShoeSnapshots).write(a, full.loaded); // a genuine snapshot of A again
    const [{ version }] = await rows(insider, `SELECT version FROM stream_snapshots WHERE stream_id = $1`, [a]);
    expect((await missLoad(a)).from).toEqual([version + 1]); // used while the chain holds
    const [ev] = await rows(admin, `SELECT event_id, hash FROM events WHERE stream_id = $1 AND stream_version = $2`, [a, version]);
    const rewrite = async (hash: string) => {
      await admin.query('BEGIN');
      await admin.query('SET LOCAL session_replication_role = replica');
      await admin.query(`UPDATE events SET hash = $2 WHERE event_id = $1`, [ev.event_id, hash]);
      await admin.query('COMMIT');
    };
    await rewrite('0'.repeat(64));
    try {
      const { from, warnings } = await missLoad(a);
      expect(from).toEqual([1]);
      expect(warnings).toEqual([expect.objectContaining({ streamId: a, version, reason: 'NOT_ON_CHAIN' })]);
    } finally {
      await rewrite(ev.hash);
    }
  });
});
