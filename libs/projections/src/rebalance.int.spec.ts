import type { KafkaClient, KafkaProducer } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { diffChecksums, projectionChecksums } from './checksums';
import { createProjectionDataSource } from './data-source';
import { dropProjectionSchema, runProjectionMigrations } from './migrations';
import { rebuildProjections } from './rebuild';
import { ProjectionRunner } from './runner';
import { createTopic, deleteTopics, produce, TEST_DATABASE_URL, testKafka, uniqueTopic, waitForCatchUp } from './testing/kafka-kit';
import { syntheticLedger } from './testing/synthetic-shoes';
import { ALL_PROJECTIONS, ANALYTICS_OUTBOX_EFFECT, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

/**
 * docs/guarantees.md §6 under rebalances: two projector instances in ONE consumer group, the second joining
 * in the middle and the first leaving later (two rebalances), while the relay also republishes
 * some events (duplicates at new offsets). No event may be applied twice: the instances' applied
 * counts add up to the distinct events, and reconciliation (and every other projection) equals a
 * rebuild from the topic. The redeliveries are counted: every republished copy is skipped by
 * idempotency (the runner's `skippedDuplicates`), none is applied.
 */
jest.setTimeout(300_000);

const SCHEMA = 'read_it_rebalance';
const SCRATCH = 'read_it_rebalance_rebuild';

describe('two projector instances and a rebalance', () => {
  let ds: DataSource;
  let kafka: KafkaClient;
  let producer: KafkaProducer;
  let topic: string;
  const group = `projector-rebalance-${Date.now()}`;
  const ledger = syntheticLedger({ shoes: 9, seed: 23, prefix: `rebal${Date.now() % 100000}`, voidRate: 0.06, correctionRate: 0.06, exposedCardRate: 0.02, shoeVoidRate: 0.3 });
  const runners: ProjectionRunner[] = [];

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'projections-int-rebalance', poolSize: 12 });
    await ds.initialize();
    await dropProjectionSchema(ds, SCHEMA);
    await dropProjectionSchema(ds, SCRATCH);
    await runProjectionMigrations(ds, { schema: SCHEMA, migrations: READ_MODEL_MIGRATIONS });
    kafka = testKafka();
    topic = uniqueTopic('rebalance');
    await createTopic(kafka, topic, 3);
    producer = kafka.producer();
    await producer.connect();
  });

  afterAll(async () => {
    for (const r of runners) await r.stop();
    await producer?.disconnect();
    if (kafka && topic) await deleteTopics(kafka, [topic]);
    if (ds?.isInitialized) {
      await dropProjectionSchema(ds, SCRATCH).catch(() => undefined);
      await dropProjectionSchema(ds, SCHEMA).catch(() => undefined);
      await ds.destroy();
    }
  });

  const instance = () => {
    const r = new ProjectionRunner({
      projections: ALL_PROJECTIONS,
      effects: [ANALYTICS_OUTBOX_EFFECT],
      kafka,
      ds,
      topic,
      groupId: group,
      schema: SCHEMA,
      maxRecordsPerTransaction: 150,
      faultDelayInTxMs: 20, // long enough transactions that a rebalance lands inside one
      maxBytesPerPartition: 64 * 1024,
    });
    runners.push(r);
    return r;
  };

  /** Polls `done` every 50 ms; throws naming `what` after `ms` (the test's own bound, below Jest's). */
  const waitFor = async (what: string, done: () => boolean, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('applies every event exactly once across instances; reconciliation equals a rebuild', async () => {
    const events = ledger.events;
    const third = Math.floor(events.length / 3);
    // republished by the relay: the same envelopes again, later, at new offsets
    const duplicates = events.filter((_, i) => i % 97 === 0);

    const a = instance();
    await a.start();
    await produce(producer, topic, events.slice(0, third));
    await waitFor('A to apply 300 events', () => a.progress.applied >= 300);

    // B joins: a rebalance while A is mid-stream. Records are keyed by table, so which tables' events
    // land on B's partition depends on the run's table ids: B's share is not waited for by a count
    // (it can be small, or none), only the group's catch-up on everything produced so far
    const b = instance();
    await b.start();
    await waitFor('the rebalance to give B a partition and take it from A', () => b.assignedPartitions.length > 0 && a.assignedPartitions.length < 3);
    expect([...a.assignedPartitions, ...b.assignedPartitions].sort()).toEqual([0, 1, 2]);
    await produce(producer, topic, [...events.slice(third, 2 * third), ...duplicates.slice(0, duplicates.length / 2)]);
    await waitForCatchUp(kafka, ds, SCHEMA, group, topic, 120_000);

    await a.stop(); // leaves: B takes every partition, from the checkpoints
    await produce(producer, topic, [...events.slice(2 * third), ...duplicates.slice(duplicates.length / 2)]);
    await waitForCatchUp(kafka, ds, SCHEMA, group, topic, 240_000);
    await b.stop();

    // no event applied twice, none lost
    expect(a.progress.applied).toBeGreaterThan(0);
    expect(b.progress.applied).toBeGreaterThan(0);
    expect(a.progress.applied + b.progress.applied).toBe(events.length);
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.applied_events`);
    expect(n).toBe(events.length);
    const settlements = events.filter((e) => e.type === 'BetSettled' || e.type === 'BetResettled' || e.type === 'BetRefunded').length;
    const [{ m }] = await ds.query(`SELECT count(*)::int AS m FROM ${SCHEMA}.bet_settlement_revisions`);
    expect(m).toBe(settlements);
    // no settlement event applied twice (one revision per settlement event)
    expect(await ds.query(`SELECT event_id FROM ${SCHEMA}.bet_settlement_revisions GROUP BY event_id HAVING count(*) > 1`)).toEqual([]);

    // the redeliveries happened and were absorbed: every republished copy reached an instance and was
    // skipped by idempotency (eventId already applied with the same hash), none applied; records
    // redelivered below a checkpoint after a rebalance are skipped by the checkpoint
    const skippedDuplicates = a.progress.skippedDuplicates + b.progress.skippedDuplicates;
    const skippedBelowCheckpoint = a.progress.skippedBelowCheckpoint + b.progress.skippedBelowCheckpoint;
    process.stdout.write(`rebalance: ${events.length} events, ${duplicates.length} republished copies; skipped as duplicates ${skippedDuplicates}, below a checkpoint ${skippedBelowCheckpoint}\n`);
    expect(duplicates.length).toBeGreaterThan(0);
    expect(skippedDuplicates).toBe(duplicates.length);
    expect(skippedDuplicates + skippedBelowCheckpoint).toBeGreaterThan(0);
    // every record on the topic was either applied once or skipped: none lost, none applied twice
    expect(a.progress.applied + b.progress.applied + skippedDuplicates).toBe(events.length + duplicates.length);

    const bad = await ds.query(`SELECT * FROM ${SCHEMA}.reconciliation WHERE ggr <> turnover - payouts`);
    expect(bad).toEqual([]);
    // refunds of a voided shoe carry the shoe decision's reason and approver
    const [shoeRefunds] = await ds.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE r.reason = 'shoe integrity in doubt' AND r.approver_id = 'PM-2')::int AS attributed
       FROM ${SCHEMA}.bet_settlement_revisions r JOIN ${SCHEMA}.hand_outcomes h USING (round_id)
       WHERE r.kind = 'REFUNDED' AND h.void_cause = 'SHOE_VOIDED'`,
    );
    expect(shoeRefunds.n).toBeGreaterThan(0);
    expect(shoeRefunds.attributed).toBe(shoeRefunds.n);

    const rebuilt = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic, schema: SCRATCH, checkpointGroup: group });
    expect(rebuilt.events).toBe(events.length);
    const live = await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS);
    expect(live.reconciliation).toEqual(rebuilt.checksums.reconciliation);
    expect(diffChecksums(live, rebuilt.checksums)).toEqual([]);
  });
});
