/**
 * The other two ways a topic loses what the checkpoint counts on (docs/guarantees.md §6): records
 * deleted before they were applied (the log start moved beyond the checkpoint: retention, an
 * operator's DeleteRecords) and offsets that went backwards (a high watermark below the
 * checkpoint: unclean leader election, a checkpoint restored from elsewhere). Before, the first was
 * taken for transaction markers and skipped, the second skipped every record below the checkpoint;
 * now each halts its partitions with `PROJECTION.LOG_TRUNCATED` / `PROJECTION.OFFSET_REGRESSED`.
 * After a republish and `--reset-offsets` the projections equal a rebuild.
 *
 * Real PostgreSQL and Kafka, a private topic; the projector in-process with a 1 s incident poll.
 */
import type { KafkaClient, KafkaProducer } from '@ledger/kafka';
import { createProjectionDataSource, diffChecksums, dropProjectionSchema, openIncidents, projectionChecksums, ProjectionRunner, rebuildProjections, resumePartitions, runProjectionMigrations } from '@ledger/projections';
import type { DataSource } from 'typeorm';
import { until } from './until';
import { createTopic, deleteTopics, highWatermarks, produce, storedCheckpoints, TEST_DATABASE_URL, testKafka, uniqueTopic, waitForCatchUp } from '../../libs/projections/src/testing/kafka-kit';
import { syntheticLedger } from '../../libs/projections/src/testing/synthetic-shoes';
import { TEST_BROKERS } from '../support/ledger-harness';
import { deleteRecordsBefore } from '../support/kafka-truncate';
import { ALL_PROJECTIONS, ANALYTICS_OUTBOX_EFFECT, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

jest.setTimeout(300_000);

const SCHEMA = 'read_it_log_truncated';
const SCRATCH = 'read_it_log_truncated_rebuild';

describe('records deleted below the checkpoint, offsets gone backwards', () => {
  let ds: DataSource;
  let kafka: KafkaClient;
  let producer: KafkaProducer;
  let topic: string;
  let runner: ProjectionRunner | null = null;
  const group = `projector-log-truncated-${Date.now()}`;
  const ledger = syntheticLedger({ shoes: 6, seed: 7, prefix: `trunc${Date.now() % 100000}`, maxRounds: 8 });
  const start = async () => {
    runner = new ProjectionRunner({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], kafka, ds, topic, schema: SCHEMA, groupId: group, holdSchemaLock: false, incidentPollMs: 1000 });
    await runner.start();
  };
  const stop = async () => {
    await runner?.stop();
    runner = null;
  };
  const resume = () => resumePartitions({ ds, kafka, schema: SCHEMA, consumerGroup: group, topic, resetOffsets: true, by: 'ops', reason: 'republished' });
  const open = () => openIncidents(ds, SCHEMA, { consumerGroup: group, topic });

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'projections-log-truncated', poolSize: 8 });
    await ds.initialize();
    await dropProjectionSchema(ds, SCHEMA);
    await dropProjectionSchema(ds, SCRATCH);
    await runProjectionMigrations(ds, { schema: SCHEMA, migrations: READ_MODEL_MIGRATIONS });
    kafka = testKafka();
    topic = uniqueTopic('log-truncated');
    await createTopic(kafka, topic, 3);
    producer = kafka.producer();
    await producer.connect();
  });

  afterAll(async () => {
    await stop();
    await producer?.disconnect();
    if (kafka && topic) await deleteTopics(kafka, [topic]);
    if (ds?.isInitialized) {
      await dropProjectionSchema(ds, SCRATCH).catch(() => undefined);
      await dropProjectionSchema(ds, SCHEMA).catch(() => undefined);
      await ds.destroy();
    }
  });

  it('halts with PROJECTION.LOG_TRUNCATED, then with PROJECTION.OFFSET_REGRESSED; each time a republish and a resume catch up to a rebuild', async () => {
    const events = ledger.events;
    const a = Math.floor(events.length * 0.4);
    const b = Math.floor(events.length * 0.6);
    await start();
    await produce(producer, topic, events.slice(0, a));
    await waitForCatchUp(kafka, ds, SCHEMA, group, topic);
    await stop();

    // records published while the projector is down, then deleted before it read them
    const checkpoints = await storedCheckpoints(ds, SCHEMA, group, topic);
    await produce(producer, topic, events.slice(a, b));
    const hw = await highWatermarks(kafka, topic);
    const lost = [...hw]
      .filter(([p, o]) => o > (checkpoints.get(p) ?? 0n))
      .map(([p]) => p)
      .sort();
    expect(lost.length).toBeGreaterThan(0);
    await deleteRecordsBefore(TEST_BROKERS, topic, hw);
    await produce(producer, topic, events.slice(b));
    await start();
    const truncated = await until('the truncated partitions halted', async () => ((await open()).length === lost.length ? open() : null));
    expect(truncated.map((i) => [i.partition, i.code]).sort()).toEqual(lost.map((p) => [p, 'PROJECTION.LOG_TRUNCATED']));
    const [{ n: appliedThen }] = await ds.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.applied_events`);
    expect(appliedThen).toBeLessThan(events.length); // nothing skipped as if the deleted offsets held no data

    await produce(producer, topic, events); // the republish
    await resume();
    await until('caught up after the truncation', async () => {
      const cps = await storedCheckpoints(ds, SCHEMA, group, topic);
      return [...(await highWatermarks(kafka, topic))].every(([p, o]) => o === 0n || (cps.get(p) ?? 0n) >= o);
    });
    const [{ n: appliedAll }] = await ds.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.applied_events`);
    expect(appliedAll).toBe(events.length);

    // a checkpoint beyond the end of its partition (the log went backwards under it)
    await stop();
    const end = await highWatermarks(kafka, topic);
    const p0 = [...end].find(([, o]) => o > 0n)![0];
    await ds.query(`UPDATE ${SCHEMA}.checkpoints SET next_offset = next_offset + 50 WHERE consumer_group = $1 AND topic = $2 AND partition = $3`, [group, topic, p0]);
    await start();
    const [regressed] = await until('the partition halted', async () => ((await open()).length > 0 ? open() : null));
    expect(regressed).toMatchObject({ partition: p0, code: 'PROJECTION.OFFSET_REGRESSED', checkpointOffset: (end.get(p0)! + 50n).toString() });
    expect(regressed.details.highWatermark).toBe(end.get(p0)!.toString());
    await resume();
    await until('resumed', async () => (await open()).length === 0 && runner!.haltedPartitions.size === 0);
    await waitForCatchUp(kafka, ds, SCHEMA, group, topic);
    await stop();

    const rebuilt = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic, schema: SCRATCH, checkpointGroup: group });
    expect(rebuilt.events).toBe(events.length);
    expect(diffChecksums(await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS), rebuilt.checksums)).toEqual([]);
  });
});
