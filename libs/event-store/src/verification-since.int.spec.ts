/**
 * The chain verified from a verified head (docs/guarantees.md §8, "What recall proves") against the
 * real PostgreSQL: only the events after the head are re-hashed, the head itself must still be
 * on the stored chain, and what it does not re-check is what the full check still finds.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { GENESIS_HASH } from '@ledger/events';
import { PgEventStore } from './event-store';
import { collectingLogger, dealerChanges, DEVICE, ensureTestTopic, ids, openTestDataSource, pgClient, TEST_EVENTS_TOPIC } from './testing/int-support';

jest.setTimeout(60_000);

let ds: DataSource;
let store: PgEventStore;
let admin: Client; // superuser: only to simulate an insider's rewrite (triggers off)

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await ensureTestTopic();
  store = new PgEventStore(ds, { logger: collectingLogger(), topic: TEST_EVENTS_TOPIC });
  admin = await pgClient(true);
});

afterAll(async () => {
  await admin?.end();
  await ds?.destroy();
});

async function tamper(sql: string, params: unknown[]): Promise<void> {
  await admin.query('BEGIN');
  try {
    await admin.query('SET LOCAL session_replication_role = replica');
    await admin.query(sql, params);
    await admin.query('COMMIT');
  } catch (err) {
    await admin.query('ROLLBACK');
    throw err;
  }
}

async function stream(n: number) {
  const s = ids();
  const r = await store.append({ ...s, expectedVersion: 0, events: dealerChanges(n), metadata: { actor: DEVICE, correlationId: `corr-${randomUUID()}` } });
  return { ...s, events: r.events };
}

async function appendMore(streamId: string, tableId: string, expectedVersion: number, n: number) {
  return (await store.append({ streamId, tableId, expectedVersion, events: dealerChanges(n, 'more'), metadata: { actor: DEVICE, correlationId: `corr-${randomUUID()}` } })).events;
}

describe('verifyStreamSince', () => {
  it('from nothing: the whole stream, ending on its last event; from that head: only what was appended since', async () => {
    const { streamId, tableId, events } = await stream(5);
    const whole = await store.verifyStreamSince(streamId, null);
    expect(whole).toMatchObject({ ok: true, eventsChecked: 5, verifiedFrom: 0, head: { version: 5, hash: events[4].hash } });
    const more = await appendMore(streamId, tableId, 5, 3);
    const since = await store.verifyStreamSince(streamId, whole.head);
    expect(since).toMatchObject({ ok: true, eventsChecked: 3, verifiedFrom: 5, head: { version: 8, hash: more[2].hash }, problems: [] });
    // nothing new: nothing re-hashed, the head proven still there
    expect(await store.verifyStreamSince(streamId, since.head)).toMatchObject({ ok: true, eventsChecked: 0, verifiedFrom: 8, head: since.head });
    expect(await store.verifyStreamSince('shoe-none-' + randomUUID(), null)).toMatchObject({ ok: true, eventsChecked: 0, head: { version: 0, hash: GENESIS_HASH } });
  });

  it('an event altered after the head is found', async () => {
    const { streamId, tableId } = await stream(3);
    const head = (await store.verifyStreamSince(streamId, null)).head;
    const more = await appendMore(streamId, tableId, 3, 2);
    await tamper(`UPDATE events SET data = jsonb_set(data, '{dealerId}', '"mallory"') WHERE event_id = $1`, [more[0].eventId]);
    const r = await store.verifyStreamSince(streamId, head);
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([expect.objectContaining({ streamVersion: 4, kind: 'HASH_MISMATCH', eventId: more[0].eventId })]);
  });

  it('a history rewritten up to the head (its stored hash changed): refused at the head, and the whole stream walked', async () => {
    const { streamId, events } = await stream(4);
    const head = (await store.verifyStreamSince(streamId, null)).head;
    await tamper(`UPDATE events SET data = jsonb_set(data, '{dealerId}', '"mallory"'), hash = $2 WHERE event_id = $1`, [events[3].eventId, 'f'.repeat(64)]);
    try {
      const r = await store.verifyStreamSince(streamId, head);
      expect(r).toMatchObject({ ok: false, verifiedFrom: 0, eventsChecked: 4 });
      // the head no longer carries the verified hash; the walk: recomputed ≠ stored, streams.last_hash ≠ the last event's
      expect(r.problems.map((p) => [p.streamVersion, p.kind])).toEqual([
        [4, 'HASH_MISMATCH'],
        [4, 'HASH_MISMATCH'],
        [4, 'HASH_MISMATCH'],
      ]);
      expect(r.problems[0].detail).toContain(`${head.hash} was verified there`);
    } finally {
      await tamper(`UPDATE events SET data = $2::jsonb, hash = $3 WHERE event_id = $1`, [events[3].eventId, JSON.stringify(events[3].data), events[3].hash]);
    }
    expect(await store.verifyStreamSince(streamId, head)).toMatchObject({ ok: true, verifiedFrom: 4 });
  });

  it('an event before the head altered with its stored hash kept: not re-hashed from the head (what it does not prove), found by the full check', async () => {
    const { streamId, events } = await stream(4);
    const head = (await store.verifyStreamSince(streamId, null)).head;
    await tamper(`UPDATE events SET data = jsonb_set(data, '{dealerId}', '"mallory"') WHERE event_id = $1`, [events[1].eventId]);
    try {
      expect(await store.verifyStreamSince(streamId, head)).toMatchObject({ ok: true, eventsChecked: 0 });
      const full = await store.verifyChain(streamId);
      expect(full.problems).toEqual([expect.objectContaining({ streamVersion: 2, kind: 'HASH_MISMATCH' })]);
    } finally {
      await tamper(`UPDATE events SET data = $2::jsonb WHERE event_id = $1`, [events[1].eventId, JSON.stringify(events[1].data)]);
    }
  });
});
