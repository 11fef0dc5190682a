/**
 * The reservation of round and bet ids by `ledger_append` (migration `1799700000000-ReferencesByInsert`,
 * docs/guarantees.md §3) at the size of a big round: an id another stream holds is refused with the
 * ids named, nothing of the append written; ids the same stream holds already pass; a batch of new
 * ids is reserved whole. Real PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { NewEvent } from '@ledger/events';
import { PgEventStore, type AppendRequest } from './event-store';
import { DuplicateReferenceError } from './errors';
import { DEVICE, TEST_EVENTS_TOPIC, collectingLogger, ids, openTestDataSource, pgClient } from './testing/int-support';

jest.setTimeout(60_000);

let ds: DataSource;
let store: PgEventStore;
let admin: Client;

beforeAll(async () => {
  ds = await openTestDataSource(4);
  store = new PgEventStore(ds, { logger: collectingLogger(), topic: TEST_EVENTS_TOPIC });
  admin = await pgClient(true);
});

afterAll(async () => {
  await admin?.end();
  await ds?.destroy();
});

/** `BetPlaced` events for `betIds` in round `roundId` (the data the reservation reads: `betId`). */
function bets(roundId: string, betIds: readonly string[]): NewEvent[] {
  return betIds.map((betId) => ({
    eventId: randomUUID(),
    type: 'BetPlaced' as const,
    data: { roundId, betId, accountId: 'acct-1', betCode: 'PLAYER', stake: '500', currency: 'EUR' },
  })) as unknown as NewEvent[];
}

function request(stream: { streamId: string; tableId: string }, events: NewEvent[], expectedVersion = 0): AppendRequest {
  return { ...stream, expectedVersion, events, metadata: { actor: DEVICE, correlationId: `corr-${randomUUID()}` } };
}

async function reservedTo(betIds: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await admin.query<{ ref_id: string; stream_id: string }>(`SELECT ref_id, stream_id FROM ledger_references WHERE kind = 'BET' AND ref_id = ANY ($1)`, [betIds]);
  return new Map(rows.map((r) => [r.ref_id, r.stream_id]));
}

describe('ledger_append reserves bet ids at batch size', () => {
  const tag = randomUUID().slice(0, 8);
  const first = Array.from({ length: 3000 }, (_, i) => `ref-${tag}-a${i}`);
  const a = ids();
  const b = ids();

  it('reserves every id of a batch of 3,000 new bets to its stream', async () => {
    await store.append(request(a, bets(`r-${tag}-a`, first)));
    const held = await reservedTo(first);
    expect(held.size).toBe(3000);
    expect(new Set(held.values())).toEqual(new Set([a.streamId]));
  });

  it('refuses a batch of 3,000 holding two ids of another stream (BET.DUPLICATE_ID, the two named, sorted), and writes nothing of it', async () => {
    const fresh = Array.from({ length: 2998 }, (_, i) => `ref-${tag}-b${i}`);
    const batch = [...fresh.slice(0, 1000), first[2500], ...fresh.slice(1000), first[7]];
    const err = await store.append(request(b, bets(`r-${tag}-b`, batch))).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DuplicateReferenceError);
    expect(err).toMatchObject({ code: 'BET.DUPLICATE_ID', details: { ids: [first[2500], first[7]].sort() } });
    expect((await reservedTo(fresh)).size).toBe(0);
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM events WHERE stream_id = $1`, [b.streamId]);
    expect(rows[0].n).toBe(0);
    // the other stream keeps its ids
    expect(new Set((await reservedTo(first)).values())).toEqual(new Set([a.streamId]));
  });

  it('lets a stream append again ids it holds itself (only another stream’s are refused)', async () => {
    const again = [first[0], `ref-${tag}-a-new`];
    await expect(store.append(request(a, bets(`r-${tag}-a2`, again), 3000))).resolves.toMatchObject({ outcome: 'APPENDED' });
    expect(new Set((await reservedTo(again)).values())).toEqual(new Set([a.streamId]));
  });
});
