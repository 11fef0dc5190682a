import type { DataSource } from 'typeorm';
import type { KafkaClient } from '@ledger/kafka';
import { createProjectionDataSource, dropProjectionSchema, ProjectionApplier, runProjectionMigrations, type EventRecord } from '@ledger/projections';
import { createTopic, deleteTopics, produce, readAll, TEST_DATABASE_URL, testKafka, uniqueTopic } from '@ledger/projections/testing/kafka-kit';
import { syntheticLedger } from '@ledger/projections/testing/synthetic-shoes';
import { ALL_PROJECTIONS } from '../all-projections';
import { READ_MODEL_MIGRATIONS } from './index';
import { settlementActingManagerSql } from './1799000600000-settlement-acting-manager';

/**
 * Migration 1799000600000 fills `bet_settlement_revisions.acting_manager_id` of the rows projected
 * before it with what the projection writes: a synthetic ledger (management voids, corrections,
 * shoe voids, automatic voids) projected, the column then emptied as an older read model has it,
 * and the migration's fill run: every row has again the acting manager the projection gave it
 * (null where no decision caused the entry), so a read model migrated in place equals a rebuilt one.
 */
jest.setTimeout(300_000);

describe('read-model migration 1799000600000: the acting manager of existing settlement revisions', () => {
  let ds: DataSource;
  let kafka: KafkaClient;
  const topic = uniqueTopic('acting-manager-fill');
  const schema = 'read_it_acting_manager';

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'read-model-int-acting-manager', poolSize: 4 });
    await ds.initialize();
    kafka = testKafka('acting-manager-fill');
    await createTopic(kafka, topic, 3);
  });

  afterAll(async () => {
    await deleteTopics(kafka, [topic]).catch(() => undefined);
    if (ds?.isInitialized) {
      await dropProjectionSchema(ds, schema).catch(() => undefined);
      await ds.destroy();
    }
  });

  it('gives the rows projected before it the acting manager the projection gives them', async () => {
    const ledger = syntheticLedger({ shoes: 5, seed: 7, prefix: 'amf', maxRounds: 14, voidRate: 0.15, correctionRate: 0.15, exposedCardRate: 0.05, shoeVoidRate: 0.4 });
    const producer = kafka.producer();
    await producer.connect();
    await produce(producer, topic, ledger.events);
    await producer.disconnect();
    await dropProjectionSchema(ds, schema);
    await runProjectionMigrations(ds, { schema, migrations: READ_MODEL_MIGRATIONS });
    const applier = new ProjectionApplier({ projections: ALL_PROJECTIONS, ds, schema, checkpointGroup: 'acting-manager-fill', notify: false });
    const raw = await readAll(kafka, topic);
    for (const partition of [...new Set(raw.map((r) => r.partition))].sort()) {
      const records: EventRecord[] = raw
        .filter((r) => r.partition === partition)
        .sort((a, b) => Number(BigInt(a.offset) - BigInt(b.offset)))
        .map((r) => ({ topic, partition, offset: r.offset, key: r.key, value: r.value, headers: r.headers }));
      for (let i = 0; i < records.length; i += 11) await applier.applyBatch(topic, partition, records.slice(i, i + 11));
    }
    const read = () =>
      ds.query(`SELECT bet_id, seq, kind, reason IS NOT NULL AS decided, acting_manager_id FROM "${schema}".bet_settlement_revisions ORDER BY bet_id COLLATE "C", seq`) as Promise<
        { bet_id: string; seq: number; kind: string; decided: boolean; acting_manager_id: string | null }[]
      >;
    const projected = await read();
    // the ledger has entries of each sort: decided resettlements and refunds (acting manager named), and entries no decision caused
    for (const kind of ['RESETTLED', 'REFUNDED']) expect({ kind, named: projected.some((r) => r.kind === kind && r.acting_manager_id !== null) }).toEqual({ kind, named: true });
    expect(projected.some((r) => r.acting_manager_id === null)).toBe(true);
    expect(projected.every((r) => (r.acting_manager_id !== null) === r.decided)).toBe(true);

    await ds.query(`UPDATE "${schema}".bet_settlement_revisions SET acting_manager_id = NULL`);
    for (const statement of settlementActingManagerSql(schema)) await ds.query(statement);
    expect(await read()).toEqual(projected);
  });
});
