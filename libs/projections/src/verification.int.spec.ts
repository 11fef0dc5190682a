import { computeEventHash } from '@ledger/event-store';
import type { LedgerEvent } from '@ledger/events';
import type { KafkaClient, KafkaProducer } from '@ledger/kafka';
import { metricValue } from '@ledger/metrics';
import type { DataSource } from 'typeorm';
import { diffChecksums, projectionChecksums } from './checksums';
import { createProjectionDataSource } from './data-source';
import { dropProjectionSchema, runProjectionMigrations } from './migrations';
import { quarantineCounts } from './quarantine';
import { rebuildProjections } from './rebuild';
import { ProjectionRunner } from './runner';
import { GlobalPositions } from './testing/envelopes';
import { createTopic, deleteTopics, highWatermarks, readAll, TEST_DATABASE_URL, testKafka, toMessage, uniqueTopic, waitForCatchUp } from './testing/kafka-kit';
import { smallShoe } from './testing/small-shoe.fixture';
import { ALL_PROJECTIONS, ANALYTICS_OUTBOX_EFFECT, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

/**
 * The projector verifies what it applies (docs/guarantees.md §8) against real PostgreSQL and Kafka:
 * how the link to a stream's head behaves with records the relay did sign — a record refused, the
 * stream held until a record links to its head again, a gap, a version rewritten and published
 * again, an event id reused, byte-identical redeliveries — across a restart, and that a rebuild
 * reproduces the stream heads and the quarantine (without sending the dead-letter copies again).
 *
 * One topic of one partition; every record signed with the development key (the projector's in
 * development mode), as the relay signs.
 */
jest.setTimeout(180_000);

const SCHEMA = 'read_it_verify';
const SCRATCH = 'read_it_verify_rebuild';

/** `e` with `changes`, its hash recomputed over the new content (a consistent rewrite). */
function rehashed(e: LedgerEvent, changes: Partial<LedgerEvent>): LedgerEvent {
  const x = { ...e, ...changes } as LedgerEvent;
  return { ...x, hash: computeEventHash(x) } as LedgerEvent;
}

describe('verification of the records applied (PostgreSQL + Kafka)', () => {
  let ds: DataSource;
  let kafka: KafkaClient;
  let producer: KafkaProducer;
  let runner: ProjectionRunner;
  let topic: string;
  let dlq: string;
  const group = `projector-verify-${Date.now()}`;
  const positions = new GlobalPositions();
  const s = smallShoe({ shoeId: 'ver-s', tableId: 'T-VER-S', positions });
  const t = smallShoe({ shoeId: 'ver-t', tableId: 'T-VER-T', positions });
  const u = smallShoe({ shoeId: 'ver-u', tableId: 'T-VER-U', positions });
  const S = s.events;
  const T = t.events;
  const q = <R = any>(sql: string, params: unknown[] = []): Promise<R[]> => ds.query(sql, params);
  const send = (events: LedgerEvent[]) =>
    producer.send(
      topic,
      events.map((e) => toMessage(e)),
    );
  const caughtUp = () => Promise.race([waitForCatchUp(kafka, ds, SCHEMA, group, topic), runner.failed]);
  const start = async () => {
    runner = new ProjectionRunner({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], kafka, ds, topic, groupId: group, schema: SCHEMA, maxRecordsPerTransaction: 5 });
    await runner.start();
  };

  // signed by the relay, yet refused: a hash that is not the content's (a relay fed a bad row)
  const badS11 = { ...S[10], hash: 'ee'.repeat(32) } as LedgerEvent;
  // another event at version 5 (already applied), with a consistent hash: a rewritten history published again
  const rewrittenS5 = rehashed(S[4], { eventId: 'bbbbbbbb-0000-4000-8000-000000000005', occurredAt: new Date(Date.parse(S[4].occurredAt) + 1).toISOString() } as Partial<LedgerEvent>);
  // another event under the id of S's version 13 (already applied)
  const reusedId = rehashed(S[12], { occurredAt: new Date(Date.parse(S[12].occurredAt) + 7).toISOString() });
  // after the restart: a next version of S that does not link to its head
  const unlinked = rehashed({ ...S[S.length - 1], eventId: 'aaaaaaaa-0000-4000-8000-000000000001' } as LedgerEvent, { streamVersion: S.length + 1, prevHash: S[S.length - 2].hash });

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'projections-int-verify' });
    await ds.initialize();
    await dropProjectionSchema(ds, SCHEMA);
    await dropProjectionSchema(ds, SCRATCH);
    await runProjectionMigrations(ds, { schema: SCHEMA, migrations: READ_MODEL_MIGRATIONS });
    kafka = testKafka('projections-verify');
    topic = uniqueTopic('verify');
    dlq = `${topic}.dlq`;
    await createTopic(kafka, topic, 1);
    producer = kafka.producer();
    await producer.connect();

    await send(S.slice(0, 10));
    await send([badS11]); // HASH_MISMATCH (authentic)
    await send([S[11]]); // PREDECESSOR_QUARANTINED
    await send([S[10], S[11]]); // the genuine 11, then 12 again: the stream goes on
    await send([rewrittenS5]); // VERSION_CONFLICT
    await send(S.slice(12));
    await send([reusedId]); // EVENT_ID_CONFLICT
    await send(S.slice(20, 25)); // byte-identical redeliveries: skipped
    await send(T.slice(0, 3));
    await send([T[4]]); // VERSION_GAP (T's 4 was never sent)
    await send(T.slice(3)); // the gap filled, 5 again, the rest
    await start();
    await caughtUp();
  });

  afterAll(async () => {
    await runner?.stop();
    await producer?.disconnect();
    if (kafka && topic) await deleteTopics(kafka, [topic, dlq]);
    if (ds?.isInitialized) {
      await dropProjectionSchema(ds, SCHEMA).catch(() => undefined);
      await dropProjectionSchema(ds, SCRATCH).catch(() => undefined);
      await ds.destroy();
    }
  });

  const quarantine = () => q<{ reason: string; event_id: string; stream_version: number; authentic: boolean }>(`SELECT reason, event_id, stream_version, authentic FROM ${SCHEMA}.quarantine ORDER BY kafka_offset`);

  it('quarantines, in order, each record that does not link to its stream head, and only those', async () => {
    expect((await quarantine()).map((r) => [r.reason, r.event_id, r.stream_version, r.authentic])).toEqual([
      ['HASH_MISMATCH', S[10].eventId, 11, true],
      ['PREDECESSOR_QUARANTINED', S[11].eventId, 12, true],
      ['VERSION_CONFLICT', rewrittenS5.eventId, 5, true],
      ['EVENT_ID_CONFLICT', S[12].eventId, 13, true],
      ['VERSION_GAP', T[4].eventId, 5, true],
    ]);
    expect(runner.progress).toMatchObject({ quarantined: 5, skippedDuplicates: 5, applied: S.length + T.length });
    // the same counts on the process's metrics (docs/architecture.md §8), by reason
    for (const reason of ['HASH_MISMATCH', 'PREDECESSOR_QUARANTINED', 'VERSION_CONFLICT', 'EVENT_ID_CONFLICT', 'VERSION_GAP']) {
      expect([reason, await metricValue('ledger_projector_quarantined_records_total', { reason })]).toEqual([reason, 1]);
    }
    expect(await metricValue('ledger_projector_quarantined_records_total')).toBe(5);
    expect(await metricValue('ledger_projector_applied_events_total')).toBe(S.length + T.length);
  });

  it('the streams are projected in full, each with its head: the version and hash of its last event', async () => {
    for (const shoe of [s, t]) {
      const [row] = await q(`SELECT status, stream_version FROM ${SCHEMA}.shoe_state WHERE shoe_id = $1`, [shoe.shoeId]);
      expect(row).toEqual({ status: 'CLOSED', stream_version: shoe.events.length });
      const last = shoe.events[shoe.events.length - 1];
      expect(await q(`SELECT version, hash, event_id FROM ${SCHEMA}.stream_heads WHERE stream_id = $1`, [last.streamId])).toEqual([{ version: last.streamVersion, hash: last.hash, event_id: last.eventId }]);
      const [r] = await q(`SELECT sum(turnover)::text AS turnover, sum(payouts)::text AS payouts FROM ${SCHEMA}.reconciliation WHERE shoe_id = $1`, [shoe.shoeId]);
      expect(r).toEqual({ turnover: '5305', payouts: '7029' });
    }
    // what the rewritten and the reused records claimed was not applied
    expect(await q(`SELECT event_id FROM ${SCHEMA}.audit_events WHERE stream_id = $1 AND stream_version = 5`, [S[0].streamId])).toEqual([{ event_id: S[4].eventId }]);
    const [v13] = await q(`SELECT occurred_at FROM ${SCHEMA}.audit_events WHERE event_id = $1`, [S[12].eventId]);
    expect(new Date(v13.occurred_at).toISOString()).toBe(S[12].occurredAt);
  });

  it('copies every quarantined record to the dead-letter topic once, and counts them', async () => {
    const deadline = Date.now() + 30_000;
    while (((await highWatermarks(kafka, dlq).catch(() => new Map())).get(0) ?? 0n) < 5n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const copies = await readAll(kafka, dlq);
    expect(copies.map((c) => String(c.headers?.dlq_reason))).toEqual(['HASH_MISMATCH', 'PREDECESSOR_QUARANTINED', 'VERSION_CONFLICT', 'EVENT_ID_CONFLICT', 'VERSION_GAP']);
    expect(await quarantineCounts(ds, SCHEMA)).toEqual({
      total: 5,
      dlqPending: 0,
      byReason: expect.objectContaining({ HASH_MISMATCH: 1, PREDECESSOR_QUARANTINED: 1, VERSION_CONFLICT: 1, EVENT_ID_CONFLICT: 1, VERSION_GAP: 1, SIGNATURE_INVALID: 0 }),
    });
  });

  it('the heads survive a restart: a record that does not link is refused, a new shoe applied', async () => {
    await runner.stop();
    await send([unlinked, ...u.events]);
    await start();
    await caughtUp();
    expect((await quarantine()).slice(5).map((r) => [r.reason, r.stream_version])).toEqual([['PREV_HASH_MISMATCH', S.length + 1]]);
    const [row] = await q(`SELECT status, stream_version FROM ${SCHEMA}.shoe_state WHERE shoe_id = $1`, [u.shoeId]);
    expect(row).toEqual({ status: 'CLOSED', stream_version: u.events.length });
    expect(await q(`SELECT version FROM ${SCHEMA}.stream_heads WHERE stream_id = $1`, [S[0].streamId])).toEqual([{ version: S.length }]);
  });

  it('a rebuild reproduces the projections, the stream heads and the quarantine, and sends no dead-letter copy again', async () => {
    const before = (await highWatermarks(kafka, dlq)).get(0);
    const result = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic, schema: SCRATCH, checkpointGroup: group, maxRecordsPerTransaction: 7 });
    expect(result.quarantined).toBe(6);
    expect(diffChecksums(result.checksums, await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS))).toEqual([]);
    const heads = (schema: string) => q(`SELECT stream_id, version, hash, event_id, global_position::text FROM ${schema}.stream_heads ORDER BY stream_id`);
    expect(await heads(SCRATCH)).toEqual(await heads(SCHEMA));
    const kept = (schema: string) =>
      q(`SELECT topic, partition, kafka_offset::text, reason, detail, authentic, event_id, stream_id, stream_version, record_key, headers, value, value_bytes FROM ${schema}.quarantine ORDER BY kafka_offset`);
    expect(await kept(SCRATCH)).toEqual(await kept(SCHEMA));
    expect(await q(`SELECT count(*)::int AS n FROM ${SCRATCH}.quarantine WHERE dlq_pending`)).toEqual([{ n: 0 }]);
    expect((await highWatermarks(kafka, dlq)).get(0)).toBe(before);
  });
});
