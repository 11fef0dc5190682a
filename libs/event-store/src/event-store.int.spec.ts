/**
 * PgEventStore against the real PostgreSQL (`ledger_test`): docs/guarantees.md §1, §2, §3, §5
 * (positions), 8, 9, 11 (the refusal log). Run: `npx jest --selectProjects int libs/event-store --runInBand`.
 */
import { randomUUID } from 'node:crypto';
import { Client, type Notification } from 'pg';
import type { DataSource } from 'typeorm';
import { GENESIS_HASH, type LedgerEvent } from '@ledger/events';
import { LEDGER_EVENTS_TOPIC } from '@ledger/infra';
import { PgEventStore, type AppendRequest } from './event-store';
import { APPEND_ONLY_SQLSTATE, ConcurrencyError, EventStoreError } from './errors';
import { computeEventHash } from './hash';
import { DEFAULT_EVENTS_TOPIC } from './constants';
import { createDataSource, runMigrations } from './data-source';
import { ScopeIdempotencyKeysByCaller1795950000110 } from './migrations';
import {
  DEVICE,
  TEST_DATABASE_URL,
  collectingLogger,
  dealerChanges,
  ids,
  openTestDataSource,
  pgClient,
  TEST_EVENTS_TOPIC,
  ensureTestTopic,
  TEST_RELAY_DATABASE_URL,
  TEST_APP_DATABASE_URL,
  TEST_KAFKA_BROKERS,
  kafkaAdmin,
  endOffsets,
  readRange,
} from './testing/int-support';
import { OutboxRelay } from './outbox-relay';
import { republishLedger } from './republish';

jest.setTimeout(60_000);

/** The caller every idempotency key of these specs belongs to, unless a spec says otherwise. */
const CALLER = 'table-device:device-1';

let ds: DataSource;
let store: PgEventStore;
let admin: Client; // superuser postgres: only to simulate tampering
let ledger: Client; // the application role, outside the store
const log = collectingLogger();

beforeAll(async () => {
  ds = await openTestDataSource(20);
  await ensureTestTopic();
  store = new PgEventStore(ds, { logger: log, topic: TEST_EVENTS_TOPIC });
  admin = await pgClient(true);
  ledger = await pgClient(false);
});

afterAll(async () => {
  await admin?.end();
  await ledger?.end();
  await ds?.destroy();
});

function request(over: Partial<AppendRequest> & Pick<AppendRequest, 'streamId' | 'tableId'>): AppendRequest {
  return {
    expectedVersion: 0,
    events: dealerChanges(2),
    metadata: { actor: DEVICE, correlationId: `corr-${randomUUID()}` },
    ...over,
  };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { code?: string }).code ?? `no code: ${(err as Error).message}`;
  }
  return 'resolved';
}

async function countEvents(eventIds: readonly string[]): Promise<number> {
  const { rows } = await ledger.query(`SELECT count(*)::int AS n FROM events WHERE event_id = ANY($1::uuid[])`, [eventIds]);
  return rows[0].n;
}

describe('migrations', () => {
  it('are idempotent: a second run finds nothing to do', async () => {
    await expect(runMigrations(ds)).resolves.toEqual([]);
  });

  it('never synchronize; the outbox topic is the one declared in libs/infra', () => {
    const d = createDataSource(TEST_DATABASE_URL);
    expect(d.options.synchronize).toBe(false);
    expect(d.options.migrationsRun).toBe(false);
    expect(DEFAULT_EVENTS_TOPIC).toBe(LEDGER_EVENTS_TOPIC);
  });
});

describe('append and read (docs/guarantees.md §5, §8, §9)', () => {
  it('records the full envelope and reads back exactly what append returned', async () => {
    const { streamId, tableId } = ids();
    const events = dealerChanges(3);
    const result = await store.append({
      streamId,
      tableId,
      expectedVersion: 0,
      events,
      metadata: {
        actor: { id: 'dealer-7', role: 'table-device' },
        correlationId: 'corr-1',
        causationId: 'cause-1',
        occurredAt: '2026-03-01T12:00:00.123456+02:00',
      },
    });
    expect(result.outcome).toBe('APPENDED');
    expect(result.lastVersion).toBe(3);
    const [first, second, third] = result.events;
    expect(first).toMatchObject({
      eventId: events[0].eventId,
      type: 'DealerChanged',
      schemaVersion: 1,
      streamId,
      streamVersion: 1,
      tableId,
      actor: { id: 'dealer-7', role: 'table-device' },
      correlationId: 'corr-1',
      causationId: 'cause-1',
      occurredAt: '2026-03-01T10:00:00.123Z', // UTC, milliseconds: the form that is stored and hashed
      prevHash: GENESIS_HASH,
      data: events[0].data,
    });
    expect(new Date(first.recordedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
    // positions are decimal strings, consecutive within one append
    expect(typeof first.globalPosition).toBe('string');
    expect(BigInt(second.globalPosition)).toBe(BigInt(first.globalPosition) + 1n);
    expect(BigInt(third.globalPosition)).toBe(BigInt(first.globalPosition) + 2n);
    // the chain
    expect(second.prevHash).toBe(first.hash);
    expect(third.prevHash).toBe(second.hash);
    expect(first.hash).toBe(computeEventHash(first));
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);

    await expect(store.readStream(streamId)).resolves.toEqual(result.events);
    await expect(store.readStream(streamId, 2)).resolves.toEqual([second, third]);
    await expect(store.streamVersion(streamId)).resolves.toBe(3);
    await expect(store.streamVersion(`shoe-${randomUUID()}`)).resolves.toBe(0);
    await expect(store.readAll(first.globalPosition, 3)).resolves.toEqual(result.events);
    await expect(store.verifyChain(streamId)).resolves.toEqual({
      ok: true,
      streamsChecked: 1,
      eventsChecked: 3,
      problems: [],
    });
  });

  it('causationId defaults to the correlation id; occurredAt to the recording time', async () => {
    const { streamId, tableId } = ids();
    const r = await store.append(request({ streamId, tableId, metadata: { actor: DEVICE, correlationId: 'c-77' } }));
    expect(r.events[0].causationId).toBe('c-77');
    expect(r.events[0].occurredAt).toBe(r.events[0].recordedAt);
  });

  it('continues a stream at its version and writes one outbox row per event, keyed by table', async () => {
    const { streamId, tableId } = ids();
    const a = await store.append(request({ streamId, tableId }));
    const b = await store.append(request({ streamId, tableId, expectedVersion: 2, events: dealerChanges(3) }));
    expect(b.events.map((e) => e.streamVersion)).toEqual([3, 4, 5]);
    expect(b.events[0].prevHash).toBe(a.events[1].hash);
    const { rows } = await ledger.query(
      `SELECT o.global_position::text AS p, o.topic, o.key, o.published_at FROM outbox o
         JOIN events e USING (global_position) WHERE e.stream_id = $1 ORDER BY o.global_position`,
      [streamId],
    );
    expect(rows.map((r) => r.p)).toEqual([...a.events, ...b.events].map((e) => e.globalPosition));
    expect(rows.every((r) => r.topic === TEST_EVENTS_TOPIC && r.key === tableId)).toBe(true);
  });

  it('an append wakes the relay: NOTIFY outbox with the last position, on commit', async () => {
    const listener = await pgClient(false);
    try {
      const got = new Promise<Notification>((resolve) => listener.on('notification', resolve));
      await listener.query('LISTEN outbox');
      const { streamId, tableId } = ids();
      const r = await store.append(request({ streamId, tableId }));
      const n = await got;
      expect(n.channel).toBe('outbox');
      expect(BigInt(n.payload!)).toBeGreaterThanOrEqual(BigInt(r.events[1].globalPosition));
    } finally {
      await listener.end();
    }
  });

  it('refuses a stream that belongs to another table', async () => {
    const { streamId, tableId } = ids();
    await store.append(request({ streamId, tableId }));
    await expect(codeOf(store.append(request({ streamId, tableId: 'T-other', expectedVersion: 2 })))).resolves.toBe('STREAM.TABLE_MISMATCH');
  });

  it.each([
    ['no events', { events: [] }],
    ['a non-UUID event id', { events: [{ eventId: 'nope', type: 'DealerChanged', data: {} }] }],
    ['an unknown type', { events: [{ eventId: randomUUID(), type: 'CardTeleported', data: {} }] }],
    ['NaN in data', { events: [{ eventId: randomUUID(), type: 'DealerChanged', data: { x: NaN } }] }],
    ['a NUL character in data', { events: [{ eventId: randomUUID(), type: 'DealerChanged', data: { x: 'a\u0000b' } }] }],
    ['a negative expected version', { expectedVersion: -1 }],
    ['an unknown role', { metadata: { actor: { id: 'x', role: 'croupier' }, correlationId: 'c' } }],
    ['an invalid occurredAt', { metadata: { actor: DEVICE, correlationId: 'c', occurredAt: 'yesterday' } }],
  ])('refuses a malformed append (%s) with APPEND.INVALID and writes nothing', async (_name, over) => {
    const { streamId, tableId } = ids();
    await expect(codeOf(store.append(request({ streamId, tableId, ...(over as Partial<AppendRequest>) })))).resolves.toBe('APPEND.INVALID');
    await expect(store.streamVersion(streamId)).resolves.toBe(0);
  });
});

describe('optimistic concurrency (docs/guarantees.md §2)', () => {
  it('two concurrent appends creating a stream: exactly one wins, the other gets STREAM.VERSION_CONFLICT', async () => {
    const { streamId, tableId } = ids();
    const results = await Promise.allSettled([store.append(request({ streamId, tableId, events: dealerChanges(2, 'a') })), store.append(request({ streamId, tableId, events: dealerChanges(2, 'b') }))]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0].reason).toBeInstanceOf(ConcurrencyError);
    expect(lost[0].reason).toMatchObject({
      code: 'STREAM.VERSION_CONFLICT',
      details: { streamId, expectedVersion: 0, actualVersion: 2 },
    });
    // the winner's events and nothing else
    const stored = await store.readStream(streamId);
    expect(stored.map((e) => e.eventId)).toEqual((won[0] as PromiseFulfilledResult<{ events: LedgerEvent[] }>).value.events.map((e) => e.eventId));
  });

  it('eight writers at the same version: one wins, seven conflict, no silent overwrite', async () => {
    const { streamId, tableId } = ids();
    await store.append(request({ streamId, tableId }));
    const attempts = Array.from({ length: 8 }, (_, i) => store.append(request({ streamId, tableId, expectedVersion: 2, events: dealerChanges(1, `w${i}-`) })));
    const results = await Promise.allSettled(attempts);
    const won = results.filter((r) => r.status === 'fulfilled');
    const codes = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason as EventStoreError).code);
    expect(won).toHaveLength(1);
    expect(codes).toEqual(Array(7).fill('STREAM.VERSION_CONFLICT'));
    await expect(store.streamVersion(streamId)).resolves.toBe(3);
    await expect(store.verifyChain(streamId)).resolves.toMatchObject({ ok: true, eventsChecked: 3 });
  });

  it('an append at a stale version changes nothing', async () => {
    const { streamId, tableId } = ids();
    await store.append(request({ streamId, tableId }));
    await store.append(request({ streamId, tableId, expectedVersion: 2 }));
    const stale = dealerChanges(1);
    await expect(codeOf(store.append(request({ streamId, tableId, expectedVersion: 2, events: stale })))).resolves.toBe('STREAM.VERSION_CONFLICT');
    await expect(codeOf(store.append(request({ streamId, tableId, expectedVersion: 9 })))).resolves.toBe('STREAM.VERSION_CONFLICT');
    await expect(countEvents(stale.map((e) => e.eventId))).resolves.toBe(0);
    await expect(store.streamVersion(streamId)).resolves.toBe(4);
  });
});

describe('idempotent ingestion (docs/guarantees.md §3)', () => {
  it('the same events twice are stored once and answered the same way', async () => {
    const { streamId, tableId } = ids();
    const req = request({ streamId, tableId, events: dealerChanges(3) });
    const first = await store.append(req);
    const second = await store.append(req); // expectedVersion 0 is stale now: still the same answer
    expect(first.outcome).toBe('APPENDED');
    expect(second.outcome).toBe('DUPLICATE');
    expect(second.events).toEqual(first.events);
    expect(second.lastVersion).toBe(first.lastVersion);
    await expect(countEvents(req.events.map((e) => e.eventId))).resolves.toBe(3);
    await expect(store.streamVersion(streamId)).resolves.toBe(3);
  });

  it('the same events sent twice at once: one append, one duplicate, identical answers', async () => {
    const { streamId, tableId } = ids();
    const req = request({ streamId, tableId, events: dealerChanges(2) });
    const [a, b] = await Promise.all([store.append(req), store.append(req)]);
    expect([a.outcome, b.outcome].sort()).toEqual(['APPENDED', 'DUPLICATE']);
    expect(a.events).toEqual(b.events);
    await expect(countEvents(req.events.map((e) => e.eventId))).resolves.toBe(2);
  });

  it('event ids already used by other facts are refused (EVENT.DUPLICATE_ID), nothing written', async () => {
    const { streamId, tableId } = ids();
    const events = dealerChanges(2);
    await store.append(request({ streamId, tableId, events }));
    // one known id among new ones
    const partial = [events[0], ...dealerChanges(1)];
    const e1 = await store.append(request({ streamId, tableId, expectedVersion: 2, events: partial })).catch((e) => e);
    expect(e1).toMatchObject({ code: 'EVENT.DUPLICATE_ID', details: { reason: 'PARTIAL' } });
    // same ids, other data
    const altered = events.map((e) => ({
      eventId: e.eventId,
      type: 'DealerChanged' as const,
      data: { previousDealerId: 'x', dealerId: 'y' },
    }));
    const e2 = await store.append(request({ streamId, tableId, events: altered })).catch((e) => e);
    expect(e2).toMatchObject({ code: 'EVENT.DUPLICATE_ID', details: { reason: 'DIFFERENT_CONTENT' } });
    // same ids, another stream
    const other = ids();
    const e3 = await store.append(request({ ...other, events })).catch((e) => e);
    expect(e3).toMatchObject({ code: 'EVENT.DUPLICATE_ID', details: { reason: 'DIFFERENT_CONTENT' } });
    // one id twice in one request
    const e4 = await store.append(request({ ...ids(), events: [events[0], events[0]] as typeof events })).catch((e) => e);
    expect(e4).toMatchObject({ code: 'EVENT.DUPLICATE_ID', details: { reason: 'REPEATED_IN_REQUEST' } });
    await expect(store.streamVersion(streamId)).resolves.toBe(2);
    await expect(store.streamVersion(other.streamId)).resolves.toBe(0);
  });

  it('the same idempotency key twice is recorded once and answered the same way', async () => {
    const { streamId, tableId } = ids();
    const key = `idem-${randomUUID()}`;
    const respond = (events: LedgerEvent[]) => ({ accepted: events.map((e) => e.eventId), at: events[0].globalPosition });
    const first = await store.append(request({ streamId, tableId, idempotency: { caller: CALLER, key, requestHash: 'h1', statusCode: 201, response: respond } }));
    // A retry decides again, so it carries new event ids; it may even find the version it expects.
    const retryEvents = dealerChanges(2, 'retry');
    const retry = await store.append(
      request({
        streamId,
        tableId,
        expectedVersion: 2,
        events: retryEvents,
        idempotency: { caller: CALLER, key, requestHash: 'h1', statusCode: 201, response: respond },
      }),
    );
    expect(first.outcome).toBe('APPENDED');
    expect(retry.outcome).toBe('IDEMPOTENT_REPLAY');
    expect(retry.idempotent).toEqual(first.idempotent);
    expect(retry.idempotent).toEqual({ statusCode: 201, response: respond(first.events) });
    expect(retry.events).toEqual(first.events);
    expect(retry.lastVersion).toBe(2);
    await expect(countEvents(retryEvents.map((e) => e.eventId))).resolves.toBe(0);
    await expect(store.streamVersion(streamId)).resolves.toBe(2);
    // and again, at a stale version
    const third = await store.append(request({ streamId, tableId, idempotency: { caller: CALLER, key, requestHash: 'h1', statusCode: 201, response: respond } }));
    expect(third.idempotent).toEqual(first.idempotent);
    await expect(store.findIdempotent(CALLER, key)).resolves.toMatchObject({
      key,
      requestHash: 'h1',
      statusCode: 201,
      // stored by reference: no copy of the answer nor of the events, only the stream and its versions
      response: null,
      streamId,
      eventIds: [],
      firstVersion: 1,
      lastVersion: 2,
    });
    const stored = (await store.findIdempotent(CALLER, key))!;
    await expect(store.idempotentEvents(stored)).resolves.toEqual(first.events);
    await expect(store.findIdempotent(CALLER, `idem-${randomUUID()}`)).resolves.toBeNull();
  });

  it('the same key raced on two streams: one append, one replay of its answer (unique key in the transaction)', async () => {
    const key = `idem-${randomUUID()}`;
    const s1 = ids();
    const s2 = ids();
    const idempotency = { caller: CALLER, key, requestHash: 'h', statusCode: 201, response: (ev: LedgerEvent[]) => ev.length };
    const [a, b] = await Promise.all([store.append(request({ ...s1, idempotency })), store.append(request({ ...s2, idempotency }))]);
    expect([a.outcome, b.outcome].sort()).toEqual(['APPENDED', 'IDEMPOTENT_REPLAY']);
    expect(a.events).toEqual(b.events);
    expect(a.idempotent).toEqual(b.idempotent);
    const versions = [await store.streamVersion(s1.streamId), await store.streamVersion(s2.streamId)].sort();
    expect(versions).toEqual([0, 2]);
  });

  it('a key reused for a different request is refused (IDEMPOTENCY.KEY_REUSED)', async () => {
    const { streamId, tableId } = ids();
    const key = `idem-${randomUUID()}`;
    await store.append(request({ streamId, tableId, idempotency: { caller: CALLER, key, requestHash: 'A', statusCode: 201, response: () => 1 } }));
    await expect(codeOf(store.append(request({ ...ids(), idempotency: { caller: CALLER, key, requestHash: 'B', statusCode: 201, response: () => 2 } })))).resolves.toBe('IDEMPOTENCY.KEY_REUSED');
  });

  it('keys are scoped per caller: two callers with one key each get their own append and answer', async () => {
    const key = `idem-${randomUUID()}`;
    const s1 = ids();
    const s2 = ids();
    const idem = (caller: string, requestHash: string) => ({ caller, key, requestHash, statusCode: 201, response: (ev: LedgerEvent[]) => ({ caller, first: ev[0].eventId }) });
    const y = await store.append(request({ ...s1, idempotency: idem('table-device:dev-y', 'hy') }));
    // another subject, and the same subject with another role: other callers, whatever their request hash
    const x = await store.append(request({ ...s2, idempotency: idem('table-device:dev-x', 'hy') }));
    const z = await store.append(request({ ...ids(), idempotency: idem('betting-platform:dev-y', 'hz') }));
    expect([y.outcome, x.outcome, z.outcome]).toEqual(['APPENDED', 'APPENDED', 'APPENDED']);
    expect(x.idempotent!.response).toEqual({ caller: 'table-device:dev-x', first: x.events[0].eventId });
    await expect(store.streamVersion(s1.streamId)).resolves.toBe(2);
    await expect(store.streamVersion(s2.streamId)).resolves.toBe(2);
    // each retry gets its own caller's answer
    const yAgain = await store.append(request({ ...s1, events: dealerChanges(2, 'retry'), idempotency: idem('table-device:dev-y', 'hy') }));
    expect(yAgain).toMatchObject({ outcome: 'IDEMPOTENT_REPLAY', idempotent: y.idempotent });
    await expect(store.findIdempotent('table-device:dev-x', key)).resolves.toMatchObject({ caller: 'table-device:dev-x', streamId: s2.streamId });
    await expect(store.findIdempotent('table-device:dev-q', key)).resolves.toBeNull();
  });

  it('a key lives for the retention: after it the key is unknown, may be used again, and is pruned', async () => {
    // A clock 6 days back: the rows this spec writes are older than any other spec's (so its prune
    // deletes only its own), and younger than the API's default retention (7 days), so an API started
    // meanwhile by another spec does not prune them.
    let now = Date.now() - 6 * 24 * 3600 * 1000;
    const aged = new PgEventStore(ds, { logger: log, topic: TEST_EVENTS_TOPIC, now: () => new Date(now), idempotencyRetentionMs: 60_000 });
    const key = `idem-${randomUUID()}`;
    const caller = `table-device:dev-${randomUUID()}`;
    const first = await aged.append(request({ ...ids(), idempotency: { caller, key, requestHash: 'A', statusCode: 201, response: () => 'A' } }));
    now += 30_000;
    await expect(codeOf(aged.append(request({ ...ids(), idempotency: { caller, key, requestHash: 'B', statusCode: 201, response: () => 'B' } })))).resolves.toBe('IDEMPOTENCY.KEY_REUSED');
    await expect(aged.findIdempotent(caller, key)).resolves.toMatchObject({ requestHash: 'A' });
    now += 31_000;
    await expect(aged.findIdempotent(caller, key)).resolves.toBeNull();
    // another request with the expired key is executed anew, and its answer replaces the old one
    const s = ids();
    const again = await aged.append(request({ ...s, idempotency: { caller, key, requestHash: 'B', statusCode: 201, response: () => 'B' } }));
    expect(again).toMatchObject({ outcome: 'APPENDED', idempotent: { response: 'B' } });
    expect(again.events[0].eventId).not.toBe(first.events[0].eventId);
    await expect(aged.findIdempotent(caller, key)).resolves.toMatchObject({ requestHash: 'B', streamId: s.streamId });
    // the periodic prune deletes what has expired, and only that
    const stale = `idem-${randomUUID()}`;
    await aged.append(request({ ...ids(), idempotency: { caller, key: stale, requestHash: 'C', statusCode: 201, response: () => 'C' } }));
    now += 61_000;
    const fresh = `idem-${randomUUID()}`;
    await aged.append(request({ ...ids(), idempotency: { caller, key: fresh, requestHash: 'D', statusCode: 201, response: () => 'D' } }));
    await expect(aged.pruneIdempotencyKeys()).resolves.toBeGreaterThanOrEqual(2);
    const { rows } = await ledger.query(`SELECT key FROM idempotency_keys WHERE caller = $1 ORDER BY key`, [caller]);
    expect(rows.map((r: { key: string }) => r.key)).toEqual([fresh]);
  });

  it('the migration: keys stored before keys were scoped belong to the caller legacy:, the key is (caller, key)', async () => {
    const schema = `mig_${randomUUID().slice(0, 8)}`;
    const qr = ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.query(`CREATE SCHEMA ${schema}`);
      await qr.query(`SET search_path TO ${schema}`);
      // the table as CreateStreamsOutboxIdempotency made it, with a key already stored
      await qr.query(`CREATE TABLE idempotency_keys (key text PRIMARY KEY, request_hash text NOT NULL, status_code integer NOT NULL, response jsonb NOT NULL,
        stream_id text NOT NULL, event_ids uuid[] NOT NULL, last_version integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
      await qr.query(`INSERT INTO idempotency_keys (key, request_hash, status_code, response, stream_id, event_ids, last_version) VALUES ('k-old', 'h', 201, '1', 's', '{}', 1)`);
      await new ScopeIdempotencyKeysByCaller1795950000110().up(qr);
      await expect(qr.query(`SELECT caller, key, request_hash FROM idempotency_keys`)).resolves.toEqual([{ caller: 'legacy:', key: 'k-old', request_hash: 'h' }]);
      // another caller may now hold the same key; the same caller may not hold it twice
      await qr.query(`INSERT INTO idempotency_keys (caller, key, request_hash, status_code, response, stream_id, event_ids, last_version) VALUES ('table-device:d', 'k-old', 'h2', 201, '2', 's2', '{}', 1)`);
      await expect(codeOf(qr.query(`INSERT INTO idempotency_keys (caller, key, request_hash, status_code, response, stream_id, event_ids, last_version) VALUES ('legacy:', 'k-old', 'h3', 201, '3', 's3', '{}', 1)`))).resolves.toBe(
        '23505',
      );
    } finally {
      await qr.query(`SET search_path TO DEFAULT`).catch(() => undefined);
      await qr.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await qr.release();
    }
    // and the live table has no default caller: every stored key names its caller
    const { rows } = await ledger.query(`SELECT column_name, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'idempotency_keys' AND column_name = 'caller'`);
    expect(rows).toEqual([{ column_name: 'caller', is_nullable: 'NO', column_default: null }]);
  });
});

describe('append-only (docs/guarantees.md §1): the database refuses changes', () => {
  let streamId: string;
  let eventIds: string[];

  beforeAll(async () => {
    const s = ids();
    streamId = s.streamId;
    const r = await store.append(request(s));
    eventIds = r.events.map((e) => e.eventId);
  });

  const refused = async (client: Client, sql: string, params: unknown[] = [], message = /append-only/) => {
    const err = await client.query(sql, params).then(
      () => null,
      (e) => e,
    );
    expect(err).not.toBeNull();
    expect(err.code).toBe(APPEND_ONLY_SQLSTATE);
    expect(err.message).toMatch(message);
    return err;
  };

  it.each([
    ['ledger', false],
    ['postgres (superuser)', true],
  ])('UPDATE, DELETE and TRUNCATE on events are refused for %s', async (_who, asAdmin) => {
    const c = asAdmin ? admin : ledger;
    const before = await store.readStream(streamId);
    const u = await refused(c, `UPDATE events SET data = '{}'::jsonb WHERE event_id = $1`, [eventIds[0]]);
    expect(u.message).toBe('ledger: UPDATE on "events" refused: the table is append-only');
    await refused(c, `DELETE FROM events WHERE event_id = $1`, [eventIds[1]]);
    await refused(c, `TRUNCATE events CASCADE`);
    await expect(store.readStream(streamId)).resolves.toEqual(before);
  });

  it('UPDATE, DELETE and TRUNCATE on rejections are refused', async () => {
    const correlationId = `rej-${randomUUID()}`;
    await store.recordRejection({ code: 'X.TEST', message: 'm', httpStatus: 422, correlationId });
    await refused(ledger, `UPDATE rejections SET code = 'Y' WHERE correlation_id = $1`, [correlationId]);
    await refused(ledger, `DELETE FROM rejections WHERE correlation_id = $1`, [correlationId]);
    await refused(ledger, `TRUNCATE rejections`);
    const { rows } = await ledger.query(`SELECT code FROM rejections WHERE correlation_id = $1`, [correlationId]);
    expect(rows).toEqual([{ code: 'X.TEST' }]);
  });

  it("the API's login can neither rewind the position sequence nor record a hole", async () => {
    const app = new Client({ connectionString: TEST_APP_DATABASE_URL });
    await app.connect();
    try {
      for (const sql of [`SELECT setval('events_global_position_seq', 1)`, `INSERT INTO position_gaps (from_position, to_position) VALUES (1, 1)`, `UPDATE outbox_progress SET through_position = through_position + 1`]) {
        await expect(app.query(sql)).rejects.toMatchObject({ code: '42501' });
      }
    } finally {
      await app.end();
    }
    await refused(admin, `TRUNCATE position_gaps`);
    await refused(admin, `UPDATE outbox_progress SET name = 'forged'`, [], /only move forward/);
  });

  it('the relay moves its progress only through ledger_mark_progress: never beyond the sequence', async () => {
    const relay = new Client({ connectionString: TEST_RELAY_DATABASE_URL });
    await relay.connect();
    try {
      const appended = await store.append(request({ streamId: `shoe-${randomUUID()}`, tableId: `T-${randomUUID()}`, events: dealerChanges(1) }));
      const position = appended.events[0].globalPosition;
      await expect(relay.query(`SELECT ledger_mark_progress('ledger-relay', $1::bigint)`, [(BigInt(position) + 1_000_000n).toString()])).rejects.toMatchObject({
        code: '23514',
        message: expect.stringMatching(/beyond the last assigned position/),
      });
      await expect(relay.query(`UPDATE outbox_progress SET through_position = $1::bigint`, [position])).rejects.toMatchObject({ code: '42501' });
      await expect(relay.query(`INSERT INTO position_gaps (from_position, to_position) VALUES ($1::bigint, $1::bigint)`, [position])).rejects.toMatchObject({ code: '42501' });
    } finally {
      await relay.end();
    }
  });
});

/** Publishes everything unpublished (every suite's rows) once, as the relay's role: moves the relay's progress. */
async function relayOnce(): Promise<void> {
  const relay = new OutboxRelay({ databaseUrl: TEST_RELAY_DATABASE_URL, brokers: TEST_KAFKA_BROKERS, logger: collectingLogger(), crashPoint: null });
  try {
    await relay.runOnce();
  } finally {
    await relay.stop();
  }
}

/** Every position up to the relay's progress is an event or a recorded hole, and no event sits in a hole. */
async function assertPositionsAccountedFor(): Promise<void> {
  const { rows } = await ledger.query(
    `WITH p AS (SELECT through_position AS t FROM outbox_progress WHERE name = 'ledger-relay')
     SELECT (SELECT t FROM p)::text AS through,
            (SELECT count(*) FROM events, p WHERE global_position <= p.t)::text AS events,
            (SELECT coalesce(sum(least(to_position, p.t) - from_position + 1), 0) FROM position_gaps, p WHERE from_position <= p.t)::text AS holes,
            (SELECT count(*) FROM position_gaps g JOIN events e ON e.global_position BETWEEN g.from_position AND g.to_position)::int AS in_holes`,
  );
  expect(BigInt(rows[0].events) + BigInt(rows[0].holes)).toBe(BigInt(rows[0].through));
  expect(rows[0].in_holes).toBe(0);
}

describe('global positions without a ledger-wide lock (docs/guarantees.md §5)', () => {
  /** Starts the append of one event to a new stream by `ledger_append` in a transaction left open on `client`. */
  async function openAppend(client: Client, streamId: string, tableId: string): Promise<{ eventId: string; position: bigint }> {
    const eventId = randomUUID();
    const at = new Date().toISOString();
    const envelope = {
      eventId,
      type: 'DealerChanged',
      schemaVersion: 1,
      streamId,
      streamVersion: 1,
      tableId,
      occurredAt: at,
      recordedAt: at,
      actor: DEVICE,
      correlationId: 'corr-open',
      causationId: 'corr-open',
      prevHash: GENESIS_HASH,
      data: { previousDealerId: 'a', dealerId: 'b' },
    };
    await client.query('BEGIN');
    const { rows } = await client.query(
      `SELECT status, positions::text[] AS positions FROM ledger_append($1, $2, 0, $3, $4::uuid[], $5::text[], $6::int[], $7::jsonb[], $8::text[], $9::text[],
         $10, $11, $12::timestamptz, $12::timestamptz, 'corr-open', 'corr-open', $13, '{}'::text[], '{}'::text[], NULL, NULL, NULL, NULL, NULL)`,
      [streamId, tableId, GENESIS_HASH, [eventId], ['DealerChanged'], [1], [JSON.stringify(envelope.data)], [GENESIS_HASH], [computeEventHash(envelope)], DEVICE.id, DEVICE.role, at, TEST_EVENTS_TOPIC],
    );
    expect(rows[0].status).toBe('APPENDED');
    return { eventId, position: BigInt(rows[0].positions[0]) };
  }

  it('an append to another shoe commits while one append holds its transaction open, and the relay waits for the late commit', async () => {
    const tableId = `T-${randomUUID()}`;
    const held = await pgClient(false);
    const { kafka, admin: kafkaAdminClient } = await kafkaAdmin();
    try {
      const a = await openAppend(held, `shoe-${randomUUID()}`, tableId);
      // the other shoe's append does not wait for A (the old counter row made it wait until A committed)
      const b = await Promise.race([
        store.append(request({ streamId: `shoe-${randomUUID()}`, tableId, events: dealerChanges(1) })),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the append waited for another shoe')), 5_000)),
      ]);
      const bPosition = BigInt(b.events[0].globalPosition);
      expect(bPosition).toBeGreaterThan(a.position);
      await expect(countEvents([b.events[0].eventId])).resolves.toBe(1);

      // the relay does not publish B ahead of A, which may still commit below it
      const from = await endOffsets(kafkaAdminClient, TEST_EVENTS_TOPIC);
      await relayOnce();
      const unpublished = await ledger.query(`SELECT count(*)::int AS n FROM outbox WHERE global_position = $1 AND published_at IS NULL`, [bPosition.toString()]);
      expect(unpublished.rows[0].n).toBe(1);
      const progress = await ledger.query(`SELECT through_position::text AS t FROM outbox_progress WHERE name = 'ledger-relay'`);
      expect(BigInt(progress.rows[0].t)).toBeLessThan(a.position);

      await held.query('COMMIT');
      await relayOnce();
      const records = (await readRange(kafka, TEST_EVENTS_TOPIC, from, await endOffsets(kafkaAdminClient, TEST_EVENTS_TOPIC))).filter((r) => r.key === tableId);
      expect(records.map((r) => JSON.parse(r.value).eventId)).toEqual([a.eventId, b.events[0].eventId]);
      await assertPositionsAccountedFor();
    } finally {
      await held.query('ROLLBACK').catch(() => undefined);
      await held.end();
      await kafkaAdminClient.disconnect();
    }
  });

  it('republish never marks a position it could not send: an append still open below the range end is left to the relay', async () => {
    const tableId = `T-${randomUUID()}`;
    const held = await pgClient(false);
    const { kafka, admin: kafkaAdminClient } = await kafkaAdmin();
    try {
      const a = await openAppend(held, `shoe-${randomUUID()}`, tableId);
      const b = await store.append(request({ streamId: `shoe-${randomUUID()}`, tableId, events: dealerChanges(1) }));
      const res = await republishLedger({ databaseUrl: TEST_RELAY_DATABASE_URL, kafka, topic: TEST_EVENTS_TOPIC, logger: collectingLogger(), fromPosition: a.position, horizonWaitMs: 300 });
      // stopped below A (which may still commit), so B is not sent ahead of it either
      expect(BigInt(res.to)).toBeLessThan(a.position);
      await held.query('COMMIT');
      const marked = async (p: string) => (await ledger.query(`SELECT published_at IS NOT NULL AS m FROM outbox WHERE global_position = $1`, [p])).rows[0].m;
      await expect(marked(a.position.toString())).resolves.toBe(false);
      await expect(marked(b.events[0].globalPosition)).resolves.toBe(false);
      const from = await endOffsets(kafkaAdminClient, TEST_EVENTS_TOPIC);
      await relayOnce();
      const records = (await readRange(kafka, TEST_EVENTS_TOPIC, from, await endOffsets(kafkaAdminClient, TEST_EVENTS_TOPIC))).filter((r) => r.key === tableId);
      expect(records.map((r) => JSON.parse(r.value).eventId)).toEqual([a.eventId, b.events[0].eventId]);
    } finally {
      await held.query('ROLLBACK').catch(() => undefined);
      await held.end();
      await kafkaAdminClient.disconnect();
    }
  });

  it('holes left by appends rolled back after taking positions are recorded by the relay; the verifier accepts them', async () => {
    const s1 = ids();
    const a = await store.append(request({ ...s1, events: dealerChanges(3) }));
    // rolled back by the database: an id of s1 inserted into s2 (unique violation after positions were taken)
    const s2 = ids();
    const clash = [...dealerChanges(1), a.events[0] as unknown as (typeof a.events)[number]].map((e) => ({
      eventId: e.eventId,
      type: 'DealerChanged' as const,
      data: { previousDealerId: 'p', dealerId: 'q' },
    }));
    await expect(codeOf(store.append(request({ ...s2, events: clash })))).resolves.toBe('EVENT.DUPLICATE_ID');
    const b = await store.append(request({ ...ids(), events: dealerChanges(2) }));
    const lastA = BigInt(a.events[2].globalPosition);
    const firstB = BigInt(b.events[0].globalPosition);
    expect(firstB - lastA).toBeGreaterThanOrEqual(3n); // the two positions of the rolled-back append
    await relayOnce();
    const { rows } = await ledger.query(`SELECT count(*)::int AS n FROM position_gaps WHERE from_position > $1::bigint AND to_position < $2::bigint`, [lastA.toString(), firstB.toString()]);
    expect(rows[0].n).toBeGreaterThanOrEqual(1);
    await assertPositionsAccountedFor();
    const v = await store.verifyAll();
    expect(v.problems.filter((p) => p.kind === 'POSITION_GAP')).toEqual([]);
  });

  it('under 40 concurrent appends, a quarter of them failing: unique positions growing along each stream, all accounted for', async () => {
    const taken = dealerChanges(1);
    await store.append(request({ ...ids(), events: taken }));
    const attempts = Array.from({ length: 40 }, (_, i) =>
      store.append(
        request({
          ...ids(),
          events: i % 4 === 0 ? [...dealerChanges(2), taken[0]] : dealerChanges(1 + (i % 5)),
        }),
      ),
    );
    const results = await Promise.allSettled(attempts);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(10);
    const positions = results.flatMap((r) => (r.status === 'fulfilled' ? r.value.events.map((e) => BigInt(e.globalPosition)) : []));
    expect(new Set(positions).size).toBe(positions.length);
    for (const r of results) {
      if (r.status !== 'fulfilled') continue;
      const p = r.value.events.map((e) => BigInt(e.globalPosition));
      expect([...p].sort((x, y) => (x < y ? -1 : 1))).toEqual(p);
    }
    await relayOnce();
    await assertPositionsAccountedFor();
    const v = await store.verifyAll();
    expect(v.problems.filter((p) => p.kind === 'POSITION_GAP')).toEqual([]);
  });
});

describe('tamper evidence (docs/guarantees.md §8): the verifier names the altered event', () => {
  /** Runs `sql` as superuser with triggers off (what an attacker with database access could do). */
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

  async function chain(n: number) {
    const s = ids();
    const r = await store.append(request({ ...s, events: dealerChanges(n) }));
    return { ...s, events: r.events };
  }

  it('an altered payload: HASH_MISMATCH on that event, for the stream, the table and the whole ledger', async () => {
    const { streamId, tableId, events } = await chain(5);
    const victim = events[2];
    await tamper(`UPDATE events SET data = jsonb_set(data, '{dealerId}', '"mallory"') WHERE event_id = $1`, [victim.eventId]);
    try {
      const expected = [expect.objectContaining({ streamId, streamVersion: 3, eventId: victim.eventId, kind: 'HASH_MISMATCH' })];
      const byStream = await store.verifyChain(streamId);
      expect(byStream.ok).toBe(false);
      expect(byStream.problems).toEqual(expected);
      await expect(store.verifyChain({ tableId })).resolves.toMatchObject({ ok: false, streamsChecked: 1, problems: expected });
      const all = await store.verifyAll();
      expect(all.problems.filter((p) => p.streamId === streamId)).toEqual(expected);
    } finally {
      await tamper(`UPDATE events SET data = $2::jsonb WHERE event_id = $1`, [victim.eventId, JSON.stringify(victim.data)]);
    }
    await expect(store.verifyChain(streamId)).resolves.toMatchObject({ ok: true });
  });

  it('an altered attribution (actor) is found too', async () => {
    const { streamId, events } = await chain(2);
    await tamper(`UPDATE events SET actor_id = 'someone-else' WHERE event_id = $1`, [events[0].eventId]);
    try {
      const v = await store.verifyChain(streamId);
      expect(v.problems).toEqual([expect.objectContaining({ eventId: events[0].eventId, kind: 'HASH_MISMATCH' })]);
    } finally {
      await tamper(`UPDATE events SET actor_id = $2 WHERE event_id = $1`, [events[0].eventId, events[0].actor.id]);
    }
  });

  it('a forger who also recomputes the hash breaks the link to the next event: PREV_HASH_MISMATCH names it', async () => {
    const { streamId, events } = await chain(4);
    const victim = events[1];
    const forged = { ...victim, data: { previousDealerId: 'x', dealerId: 'mallory' } };
    await tamper(`UPDATE events SET data = $2::jsonb, hash = $3 WHERE event_id = $1`, [victim.eventId, JSON.stringify(forged.data), computeEventHash(forged)]);
    try {
      const v = await store.verifyChain(streamId);
      expect(v.ok).toBe(false);
      expect(v.problems).toEqual([expect.objectContaining({ streamVersion: 3, eventId: events[2].eventId, kind: 'PREV_HASH_MISMATCH' })]);
    } finally {
      await tamper(`UPDATE events SET data = $2::jsonb, hash = $3 WHERE event_id = $1`, [victim.eventId, JSON.stringify(victim.data), victim.hash]);
    }
    await expect(store.verifyChain(streamId)).resolves.toMatchObject({ ok: true });
  });

  it('a removed event: VERSION_GAP and PREV_HASH_MISMATCH on its successor, POSITION_GAP in the ledger', async () => {
    const { streamId, events } = await chain(4);
    const victim = events[1];
    await relayOnce(); // the relay has passed the victim's position: from now on it must hold an event
    await admin.query(`CREATE TEMP TABLE IF NOT EXISTS saved_events (LIKE events)`);
    await admin.query(`DELETE FROM saved_events`);
    await admin.query(`INSERT INTO saved_events SELECT * FROM events WHERE event_id = $1`, [victim.eventId]);
    await tamper(`DELETE FROM events WHERE event_id = $1`, [victim.eventId]);
    try {
      const v = await store.verifyChain(streamId);
      expect(v.problems).toEqual([
        expect.objectContaining({ streamVersion: 2, eventId: events[2].eventId, kind: 'VERSION_GAP' }),
        expect.objectContaining({ streamVersion: 3, eventId: events[2].eventId, kind: 'PREV_HASH_MISMATCH' }),
      ]);
      const all = await store.verifyAll();
      expect(all.problems).toContainEqual(
        expect.objectContaining({
          kind: 'POSITION_GAP',
          detail: `global positions ${victim.globalPosition}..${victim.globalPosition} hold no event and are not a recorded hole (an event removed?) before this event`,
        }),
      );
    } finally {
      await tamper(`INSERT INTO events SELECT * FROM saved_events`, []);
    }
    await expect(store.verifyChain(streamId)).resolves.toMatchObject({ ok: true });
  });

  it('a removed last event is found against the stream head (VERSION_GAP, no event after it)', async () => {
    const { streamId, events } = await chain(3);
    const victim = events[2];
    await admin.query(`CREATE TEMP TABLE IF NOT EXISTS saved_events (LIKE events)`);
    await admin.query(`DELETE FROM saved_events`);
    await admin.query(`INSERT INTO saved_events SELECT * FROM events WHERE event_id = $1`, [victim.eventId]);
    await tamper(`DELETE FROM events WHERE event_id = $1`, [victim.eventId]);
    try {
      const v = await store.verifyChain(streamId);
      expect(v.problems).toEqual([expect.objectContaining({ streamId, streamVersion: 3, eventId: null, kind: 'VERSION_GAP' })]);
    } finally {
      await tamper(`INSERT INTO events SELECT * FROM saved_events`, []);
    }
    await expect(store.verifyChain(streamId)).resolves.toMatchObject({ ok: true });
  });
});

describe('the refusal log (docs/guarantees.md §11)', () => {
  it('records a rejection with its attribution and raw payload', async () => {
    const correlationId = `rej-${randomUUID()}`;
    await store.recordRejection({
      code: 'SHOE.CARD_EXCEEDS_DECKS',
      message: 'a ninth ace of spades',
      httpStatus: 422,
      actorId: 'device-3',
      actorRole: 'table-device',
      route: 'POST /tables/T1/shoes/S1/cards',
      tableId: 'T1',
      correlationId,
      rawPayload: { card: 'AS', weird: 'nul\u0000here', big: 12345678901234567890n },
    });
    const { rows } = await ledger.query(`SELECT * FROM rejections WHERE correlation_id = $1`, [correlationId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      code: 'SHOE.CARD_EXCEEDS_DECKS',
      message: 'a ninth ace of spades',
      http_status: 422,
      actor_id: 'device-3',
      actor_role: 'table-device',
      route: 'POST /tables/T1/shoes/S1/cards',
      table_id: 'T1',
      raw_payload: { card: 'AS', weird: 'nul\\u0000here', big: '12345678901234567890' },
    });
  });

  it('never throws to the caller, and logs the failure when it cannot record', async () => {
    const closed = createDataSource(TEST_DATABASE_URL);
    await closed.initialize();
    await closed.destroy();
    const lines = collectingLogger();
    const s = new PgEventStore(closed, { logger: lines, topic: TEST_EVENTS_TOPIC });
    await expect(s.recordRejection({ code: 'X.Y', message: 'm', httpStatus: 400, correlationId: 'lost-1' })).resolves.toBeUndefined();
    expect(lines.lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'could not record a rejection', fields: expect.objectContaining({ correlationId: 'lost-1' }) }));
  });
});
