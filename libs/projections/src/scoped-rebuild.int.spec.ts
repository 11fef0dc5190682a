import type { DataSource } from 'typeorm';
import type { KafkaClient, KafkaProducer } from '@ledger/kafka';
import { createProjectionDataSource } from './data-source';
import { dropProjectionSchema, runProjectionMigrations } from './migrations';
import { ProjectionRunner } from './runner';
import { scopedRebuild, type ScopedRebuildProgress } from './scoped-rebuild';
import { createTopic, deleteTopics, produce, storedCheckpoints, TEST_DATABASE_URL, testKafka, uniqueTopic, waitForCatchUp } from './testing/kafka-kit';
import { syntheticLedger } from './testing/synthetic-shoes';
import { ALL_PROJECTIONS, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

/**
 * A scoped rebuild (docs/guarantees.md §7): the rows of one gaming table, and of one gaming day of
 * that table, rebuilt into a scratch schema while a live projector keeps applying the other tables'
 * events, have the live checksums as of the live checkpoints read at start; a live row of the scope
 * changed behind the projector's back (the owner's login) is reported as different, only there.
 */
jest.setTimeout(300_000);

describe('scoped rebuild (PostgreSQL, Kafka)', () => {
  let ds: DataSource;
  let kafka: KafkaClient;
  let producer: KafkaProducer;
  let runner: ProjectionRunner;
  const topic = uniqueTopic('scoped-rebuild');
  const live = 'read_it_scoped_live';
  const scratch = 'read_it_scoped_scratch';
  const group = 'scoped-rebuild-live';
  const ledger = syntheticLedger({ shoes: 8, seed: 7, prefix: 'scp', maxRounds: 12, voidRate: 0.1, correctionRate: 0.1, exposedCardRate: 0.05, shoeVoidRate: 0.3 });
  const scopeTable = 'T-scp-0';
  // the scope's table and three others first; four more tables arrive while the scoped rebuilds run
  const first = ledger.events.filter((e) => ['T-scp-0', 'T-scp-1', 'T-scp-2', 'T-scp-3'].includes(e.tableId));
  const later = ledger.events.filter((e) => !first.includes(e));

  const rebuild = (scope: { tableId?: string; gamingDay?: string; projections?: string[] }, onProgress?: (p: ScopedRebuildProgress) => void) =>
    scopedRebuild({ ds, kafka, topic, projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, scope, liveSchema: live, scratchSchema: scratch, checkpointGroup: group, maxRecordsPerTransaction: 50, onProgress });

  /** Produces the later tables' events a few at a time while `during` runs. */
  async function whileLiveMovesOn<T>(during: () => Promise<T>, from: number, to: number): Promise<T> {
    let stop = false;
    const feeding = (async () => {
      for (let i = from; i < to && !stop; i += 20) {
        await produce(producer, topic, later.slice(i, Math.min(i + 20, to)));
        await new Promise((r) => setTimeout(r, 30));
      }
    })();
    try {
      return await during();
    } finally {
      stop = true;
      await feeding;
    }
  }

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'projections-int-scoped', poolSize: 10 });
    await ds.initialize();
    kafka = testKafka('scoped-rebuild');
    await createTopic(kafka, topic, 3);
    producer = kafka.producer();
    await producer.connect();
    for (const s of [live, scratch]) await dropProjectionSchema(ds, s).catch(() => undefined);
    runner = new ProjectionRunner({ projections: ALL_PROJECTIONS, kafka, ds, topic, groupId: group, schema: live, maxRecordsPerTransaction: 7, deadLetterTopic: null });
    // the runner creates no schema: the live one is migrated first
    await runProjectionMigrations(ds, { schema: live, migrations: READ_MODEL_MIGRATIONS });
    await runner.start();
    await produce(producer, topic, first);
    await waitForCatchUp(kafka, ds, live, group, topic);
  });

  afterAll(async () => {
    await runner?.stop();
    await producer?.disconnect();
    if (kafka) await deleteTopics(kafka, [topic]).catch(() => undefined);
    if (ds?.isInitialized) {
      for (const s of [live, scratch]) await dropProjectionSchema(ds, s).catch(() => undefined);
      await ds.destroy();
    }
  });

  it('Given a live projector applying other tables meanwhile, When one table is rebuilt in scope, Then every table of the scope has the live checksums at the live offsets read at start', async () => {
    const progress: ScopedRebuildProgress[] = [];
    const result = await whileLiveMovesOn(() => rebuild({ tableId: scopeTable }, (p) => progress.push(p)), 0, Math.floor(later.length / 2));
    expect(result.equal).toBe(true);
    expect(result.replayed).toEqual(ALL_PROJECTIONS.map((p) => p.name));
    for (const t of result.tables) expect({ table: t.table, equal: t.equal }).toEqual({ table: t.table, equal: true });
    const outcomes = result.tables.find((t) => t.table === 'hand_outcomes')!;
    expect(outcomes.live!.rows).toBeGreaterThan(0);
    // only the scope's events were applied (the other tables' records were passed over)
    expect(result.events).toBe(first.filter((e) => e.tableId === scopeTable).length);
    expect(result.events).toBeLessThan(result.records);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[progress.length - 1].done).toBe(result.records);
    // live went on meanwhile, beyond the stop offsets
    await waitForCatchUp(kafka, ds, live, group, topic);
    const now = await storedCheckpoints(ds, live, group, topic);
    const stopped = Object.values(result.stopOffsets).reduce((n, o) => n + BigInt(o), 0n);
    expect([...now.values()].reduce((n, o) => n + o, 0n)).toBeGreaterThan(stopped);
  });

  it('Given one gaming day of one table, When rebuilt in scope, Then its rows per table equal live and the per-shoe tables are not compared', async () => {
    const days: { d: string; n: number }[] = await ds.query(`SELECT gaming_day::text AS d, count(*)::int AS n FROM "${live}".hand_outcomes WHERE table_id = $1 GROUP BY 1 ORDER BY 1`, [scopeTable]);
    expect(days.length).toBeGreaterThan(0);
    const day = days[0].d;
    const result = await whileLiveMovesOn(() => rebuild({ tableId: scopeTable, gamingDay: day }), Math.floor(later.length / 2), later.length);
    expect(result.equal).toBe(true);
    const byTable = Object.fromEntries(result.tables.map((t) => [t.table, t]));
    expect(byTable.hand_outcomes.live!.rows).toBe(days[0].n);
    expect(byTable.shoe_state.equal).toBeNull();
    expect(byTable.roads.equal).toBeNull();
    for (const name of ['audit_events', 'hand_outcomes', 'hand_outcome_revisions', 'reconciliation', 'ledger_entries', 'bet_settlements', 'bet_settlement_revisions']) {
      expect({ name, equal: byTable[name].equal }).toEqual({ name, equal: true });
    }
    // one projection: settlements, and what it reads (outcomes, shoe state) replayed for it
    const one = await rebuild({ tableId: scopeTable, gamingDay: day, projections: ['bet_settlements'] });
    expect(one.compared).toEqual(['bet_settlements']);
    expect(one.replayed).toEqual(expect.arrayContaining(['bet_settlements', 'hand_outcomes', 'shoe_state']));
    expect(one.equal).toBe(true);
  });

  it('Given a live row of the scope changed with the owner login, When the table is rebuilt in scope, Then that table is reported different and the others equal', async () => {
    await waitForCatchUp(kafka, ds, live, group, topic);
    const [{ round_id }] = await ds.query(`SELECT round_id FROM "${live}".hand_outcomes WHERE table_id = $1 ORDER BY round_id LIMIT 1`, [scopeTable]);
    await ds.query(`UPDATE "${live}".hand_outcomes SET dealing_dealer_id = 'poisoned' WHERE round_id = $1`, [round_id]);
    const result = await rebuild({ tableId: scopeTable });
    expect(result.equal).toBe(false);
    const differ = result.tables.filter((t) => t.equal === false).map((t) => t.table);
    expect(differ).toEqual(['hand_outcomes']);
    const outcomes = result.tables.find((t) => t.table === 'hand_outcomes')!;
    expect(outcomes.live!.rows).toBe(outcomes.rebuilt!.rows);
    // another table's scope is not affected
    expect((await rebuild({ tableId: 'T-scp-1' })).equal).toBe(true);
  });
});
