import type { DataSource } from 'typeorm';
import type { KafkaClient } from '@ledger/kafka';
import { ProjectionApplier } from './applier';
import { projectionChecksums, type ProjectionChecksums } from './checksums';
import { createProjectionDataSource } from './data-source';
import type { EventRecord } from './event-record';
import { dropProjectionSchema, runProjectionMigrations } from './migrations';
import { rebuildProjections } from './rebuild';
import { createTopic, deleteTopics, produce, readAll, TEST_DATABASE_URL, testKafka, uniqueTopic } from './testing/kafka-kit';
import { syntheticLedger } from './testing/synthetic-shoes';
import { ALL_PROJECTIONS, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

/**
 * A rebuild gives the live projector's rows (docs/guarantees.md §7, docs/architecture.md §7), now
 * that `shoe_state` and `hand_outcomes` fold a transaction's changes in memory (`row-fold.ts`): a
 * synthetic ledger with management voids, corrections, exposed-card voids and shoe voids on three
 * partitions, applied "live" in small transactions (7 records: rows held and written across many
 * batch boundaries) and rebuilt from the topic in large ones (5,000, memory de-duplication, indexes
 * after the load), has the same checksums for every projection.
 */
jest.setTimeout(300_000);

describe('rebuild equals live (PostgreSQL, Kafka)', () => {
  let ds: DataSource;
  let kafka: KafkaClient;
  const topic = uniqueTopic('rebuild-equals-live');
  const live = 'read_it_rebuild_live';
  const scratch = 'read_it_rebuild_scratch';
  const group = 'rebuild-equals-live';

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'projections-int-rebuild-live', poolSize: 6 });
    await ds.initialize();
    kafka = testKafka('rebuild-equals-live');
    await createTopic(kafka, topic, 3);
  });

  afterAll(async () => {
    await deleteTopics(kafka, [topic]).catch(() => undefined);
    if (ds?.isInitialized) {
      for (const s of [live, scratch]) await dropProjectionSchema(ds, s).catch(() => undefined);
      await ds.destroy();
    }
  });

  it('Given synthetic shoes with voids, corrections and shoe voids, When applied live in batches of 7 and rebuilt, Then every checksum is equal', async () => {
    const ledger = syntheticLedger({ shoes: 6, seed: 22, prefix: 'rbl', maxRounds: 14, voidRate: 0.1, correctionRate: 0.1, exposedCardRate: 0.05, shoeVoidRate: 0.4, significantEvents: true });
    const producer = kafka.producer();
    await producer.connect();
    await produce(producer, topic, ledger.events);
    await producer.disconnect();

    const raw = await readAll(kafka, topic);
    await dropProjectionSchema(ds, live);
    await runProjectionMigrations(ds, { schema: live, migrations: READ_MODEL_MIGRATIONS });
    const applier = new ProjectionApplier({ projections: ALL_PROJECTIONS, ds, schema: live, checkpointGroup: group, notify: false });
    for (const partition of [...new Set(raw.map((r) => r.partition))].sort()) {
      const records: EventRecord[] = raw
        .filter((r) => r.partition === partition)
        .sort((a, b) => Number(BigInt(a.offset) - BigInt(b.offset)))
        .map((r) => ({ topic, partition, offset: r.offset, key: r.key, value: r.value, headers: r.headers }));
      for (let i = 0; i < records.length; i += 7) await applier.applyBatch(topic, partition, records.slice(i, i + 7));
    }
    const liveSums: ProjectionChecksums = await projectionChecksums(ds, live, ALL_PROJECTIONS);
    for (const [name, c] of Object.entries(liveSums)) expect({ name, rows: c.rows > 0 }).toEqual({ name, rows: true });

    const rebuilt = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic, schema: scratch, checkpointGroup: group, maxRecordsPerTransaction: 5000 });
    expect(rebuilt.events).toBe(ledger.events.length);
    expect(rebuilt.quarantined).toBe(0);
    expect(rebuilt.checksums).toEqual(liveSums);
  });
});
