/**
 * The bad day "re-creating the topic silently loses events" (docs/guarantees.md §6): after the ledger
 * topic was deleted and re-created, the events published to the new topic never reached the
 * projections (their offsets lay below the checkpoints) and nothing said so. Now the projector
 * compares the topic id of what it fetches with the one stored with its checkpoint and halts each
 * partition with `PROJECTION.TOPIC_RECREATED` (an incident), applying nothing of the new topic.
 * After the topic is republished from PostgreSQL (simulated here: the same envelopes produced
 * again with the same bytes and keys, in order, as `npm run -s republish` does) and the partitions
 * resumed with `projections:resume --reset-offsets`, the projector reads the new topic from its
 * start, skips by event id what it had applied, catches up, and equals a rebuild of the new topic.
 *
 * Real PostgreSQL and Kafka, a private topic; the projector in-process with a 1 s incident poll.
 */
import type { KafkaClient, KafkaProducer } from '@ledger/kafka';
import {
  createProjectionDataSource,
  diffChecksums,
  dropProjectionSchema,
  openIncidents,
  projectionChecksums,
  projectionStatus,
  ProjectionRunner,
  rebuildProjections,
  resumePartitions,
  runProjectionMigrations,
} from '@ledger/projections';
import type { DataSource } from 'typeorm';
import { until } from './until';
import { createTopic, deleteTopics, highWatermarks, produce, storedCheckpoints, TEST_DATABASE_URL, testKafka, uniqueTopic, waitForCatchUp } from '../../libs/projections/src/testing/kafka-kit';
import { syntheticLedger } from '../../libs/projections/src/testing/synthetic-shoes';
import { ALL_PROJECTIONS, ANALYTICS_OUTBOX_EFFECT, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

jest.setTimeout(300_000);

const SCHEMA = 'read_it_topic_loss';
const SCRATCH = 'read_it_topic_loss_rebuild';

/** Deletes the topic and creates it again under the same name (the broker deletes asynchronously: retried). */
async function recreate(kafka: KafkaClient, topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.deleteTopics([topic]);
    await until('the topic gone', async () => !(await admin.listTopics()).includes(topic), 60_000);
    await until('the topic re-created', () => admin.createTopics([{ name: topic, partitions: 3, replicationFactor: 1 }]).catch(() => false), 60_000);
  } finally {
    await admin.disconnect();
  }
}

describe('a deleted and re-created topic', () => {
  let ds: DataSource;
  let kafka: KafkaClient;
  let producer: KafkaProducer;
  let topic: string;
  let runner: ProjectionRunner;
  const group = `projector-topic-loss-${Date.now()}`;
  const ledger = syntheticLedger({ shoes: 6, seed: 5, prefix: `loss${Date.now() % 100000}`, maxRounds: 8 });

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'projections-topic-loss', poolSize: 8 });
    await ds.initialize();
    await dropProjectionSchema(ds, SCHEMA);
    await dropProjectionSchema(ds, SCRATCH);
    await runProjectionMigrations(ds, { schema: SCHEMA, migrations: READ_MODEL_MIGRATIONS });
    kafka = testKafka();
    topic = uniqueTopic('topic-loss');
    await createTopic(kafka, topic, 3);
    producer = kafka.producer();
    await producer.connect();
  });

  afterAll(async () => {
    await runner?.stop();
    await producer?.disconnect();
    if (kafka && topic) await deleteTopics(kafka, [topic]);
    if (ds?.isInitialized) {
      await dropProjectionSchema(ds, SCRATCH).catch(() => undefined);
      await dropProjectionSchema(ds, SCHEMA).catch(() => undefined);
      await ds.destroy();
    }
  });

  it('halts every partition with PROJECTION.TOPIC_RECREATED instead of losing the new events; after a republish and a resume it equals a rebuild', async () => {
    const events = ledger.events;
    const before = Math.floor(events.length * 0.7);
    runner = new ProjectionRunner({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], kafka, ds, topic, schema: SCHEMA, groupId: group, holdSchemaLock: false, incidentPollMs: 1000 });
    await runner.start();
    await produce(producer, topic, events.slice(0, before));
    await waitForCatchUp(kafka, ds, SCHEMA, group, topic);
    const checkpoints = await storedCheckpoints(ds, SCHEMA, group, topic);
    const used = [...checkpoints]
      .filter(([, o]) => o > 0n)
      .map(([p]) => p)
      .sort();
    expect(used.length).toBeGreaterThan(0);

    await recreate(kafka, topic);
    // the relay goes on publishing: new events land at offsets 0.. of the new topic
    await producer.disconnect();
    producer = kafka.producer();
    await producer.connect();
    await produce(producer, topic, events.slice(before));
    // every partition that had a checkpoint on the old topic, and every one the new records landed
    // on (one that never had a record knows the topic's id from the others' checkpoints)
    const landed = [...(await highWatermarks(kafka, topic))].filter(([, o]) => o > 0n).map(([p]) => p);
    const touched = [...new Set([...used, ...landed])].sort();

    const incidents = await until('every touched partition halted', async () => {
      const open = await openIncidents(ds, SCHEMA, { consumerGroup: group, topic });
      return open.length === touched.length ? open : null;
    });
    expect(incidents.map((i) => [i.partition, i.code]).sort()).toEqual(touched.map((p) => [p, 'PROJECTION.TOPIC_RECREATED']));
    for (const i of incidents) expect(i.topicId).not.toBe(i.details.storedTopicId);
    // nothing of the new topic was applied, and nothing was skipped as "below the checkpoint"
    const [{ n: appliedNow }] = await ds.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.applied_events`);
    expect(appliedNow).toBe(before);
    expect(await storedCheckpoints(ds, SCHEMA, group, topic)).toEqual(checkpoints);
    const status = await projectionStatus(ds, SCHEMA);
    expect(status.partitions.filter((p) => touched.includes(p.partition)).every((p) => p.status === 'halted')).toBe(true);

    // resuming without resetting the offsets is refused: the check would halt it again
    await expect(resumePartitions({ ds, kafka, schema: SCHEMA, consumerGroup: group, topic, resetOffsets: false, by: 'ops', reason: 'x' })).rejects.toMatchObject({
      code: 'PROJECTION.BAD_CONFIG',
    });

    // the republish from PostgreSQL: every event again, same bytes and keys, in order
    await produce(producer, topic, events);
    const resolved = await resumePartitions({ ds, kafka, schema: SCHEMA, consumerGroup: group, topic, resetOffsets: true, by: 'ops', reason: 'topic republished from PostgreSQL' });
    expect(resolved.map((i) => i.partition).sort()).toEqual(touched);

    await until('caught up on the new topic', async () => {
      const hw = await highWatermarks(kafka, topic);
      const cps = await storedCheckpoints(ds, SCHEMA, group, topic);
      return [...hw].every(([p, o]) => o === 0n || (cps.get(p) ?? 0n) >= o);
    });
    expect(await openIncidents(ds, SCHEMA, { consumerGroup: group })).toEqual([]);
    const [{ n: applied }] = await ds.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.applied_events`);
    expect(applied).toBe(events.length);
    expect(runner.haltedPartitions.size).toBe(0);

    const rebuilt = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic, schema: SCRATCH, checkpointGroup: group });
    const live = await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS);
    expect(rebuilt.events).toBe(events.length);
    expect(diffChecksums(live, rebuilt.checksums)).toEqual([]);
  });
});
