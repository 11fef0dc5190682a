import type { LedgerEvent } from '@ledger/events';
import type { DataSource } from 'typeorm';
import { ProjectionApplier } from './applier';
import { projectionChecksums, ProjectionChecksums } from './checksums';
import { createProjectionDataSource } from './data-source';
import type { EventRecord } from './event-record';
import { dropProjectionSchema, runProjectionMigrations } from './migrations';
import type { Projection } from './projection';
import { assignPositions } from './testing/envelopes';
import { TEST_DATABASE_URL, toMessage } from './testing/kafka-kit';
import { smallShoe } from './testing/small-shoe.fixture';
import { syntheticLedger } from './testing/synthetic-shoes';
import { ALL_PROJECTIONS, ANALYTICS_OUTBOX_EFFECT, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

/**
 * The projections do not depend on the order they run in (docs/architecture.md §7): the same
 * events applied with the projection list in other orders, and in batches of other sizes, give
 * identical rows (the checksums of every projection, the read-model rebuild's proof) in real
 * PostgreSQL. The events: the two hand-written small shoes and synthetic shoes with management
 * voids, corrections, exposed-card voids and shoe voids, interleaved, on one partition.
 */
jest.setTimeout(300_000);

const TOPIC = 'order-independence';

/** A deterministic shuffle (mulberry32), so a failure names a reproducible order. */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describe('projections in any order (PostgreSQL)', () => {
  let ds: DataSource;
  const shoes = [smallShoe({ shoeId: 'ordfx-1', tableId: 'T-ORDFX-1' }), smallShoe({ shoeId: 'ordfx-2', tableId: 'T-ORDFX-2' })];
  const synthetic = syntheticLedger({ shoes: 3, seed: 7, prefix: 'ord', maxRounds: 16, voidRate: 0.1, correctionRate: 0.1, exposedCardRate: 0.05, shoeVoidRate: 0.5, significantEvents: true });
  const events: LedgerEvent[] = assignPositions([...shoes.map((s) => s.events), ...synthetic.streams]);
  // as the relay publishes them: signed (the applier's default key is the development one)
  const records: EventRecord[] = events.map((e, i) => {
    const m = toMessage(e);
    return { topic: TOPIC, partition: 0, offset: String(i), key: m.key as string, value: m.value as string, headers: m.headers as Record<string, string> };
  });
  const schemas: string[] = [];

  async function project(label: string, projections: readonly Projection[], batch: number): Promise<ProjectionChecksums> {
    const schema = `read_it_order_${label}`;
    schemas.push(schema);
    await dropProjectionSchema(ds, schema);
    await runProjectionMigrations(ds, { schema, migrations: READ_MODEL_MIGRATIONS });
    const applier = new ProjectionApplier({ effects: [ANALYTICS_OUTBOX_EFFECT], ds, schema, projections, checkpointGroup: 'order-spec' });
    for (let i = 0; i < records.length; i += batch) await applier.applyBatch(TOPIC, 0, records.slice(i, i + batch));
    return projectionChecksums(ds, schema, ALL_PROJECTIONS);
  }

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'projections-int-order' });
    await ds.initialize();
  });

  afterAll(async () => {
    if (ds?.isInitialized) {
      for (const s of schemas) await dropProjectionSchema(ds, s).catch(() => undefined);
      await ds.destroy();
    }
  });

  it('Given the list reversed, rotated and shuffled, and batches of 1, 13 and all, Then every projection has the same rows', async () => {
    const reference = await project('ref', ALL_PROJECTIONS, 50);
    for (const name of Object.keys(reference) as (keyof ProjectionChecksums)[]) expect(reference[name].rows).toBeGreaterThan(0);
    const variants: [string, readonly Projection[], number][] = [
      ['reversed', [...ALL_PROJECTIONS].reverse(), 13],
      ['rotated', [...ALL_PROJECTIONS.slice(3), ...ALL_PROJECTIONS.slice(0, 3)], records.length],
      ['shuffled_1', shuffled(ALL_PROJECTIONS, 1), 1],
      ['shuffled_2', shuffled(ALL_PROJECTIONS, 2), 13],
      ['shuffled_3', shuffled(ALL_PROJECTIONS, 3), records.length],
    ];
    for (const [label, order, batch] of variants) {
      const sums = await project(label, order, batch);
      expect({ label, order: order.map((p) => p.name), sums }).toEqual({ label, order: order.map((p) => p.name), sums: reference });
    }
  });

  it('Given a round of ~8,000 bets in ONE batch, Then it is applied set-wise (a few statements, not one per event) with the rows of small batches', async () => {
    // 8,000 settlements: more than one statement can carry as one parameter per value (65,535)
    const big = syntheticLedger({ shoes: 1, seed: 11, prefix: 'ordbig', maxRounds: 2, betsPerRound: 4000, voidRate: 0, correctionRate: 0, exposedCardRate: 0, shoeVoidRate: 0 });
    const bigRecords: EventRecord[] = assignPositions(big.streams).map((e, i) => {
      const m = toMessage(e);
      return { topic: TOPIC, partition: 0, offset: String(i), key: m.key as string, value: m.value as string, headers: m.headers as Record<string, string> };
    });
    const settled = bigRecords.filter((r) => r.value!.toString().includes('"BetSettled"')).length;
    expect(settled).toBeGreaterThan(6_600);
    const apply = async (label: string, batch: number) => {
      const schema = `read_it_order_${label}`;
      schemas.push(schema);
      await dropProjectionSchema(ds, schema);
      await runProjectionMigrations(ds, { schema, migrations: READ_MODEL_MIGRATIONS });
      const applier = new ProjectionApplier({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], ds, schema, checkpointGroup: 'order-spec' });
      let statements = 0;
      for (let i = 0; i < bigRecords.length; i += batch) statements += (await applier.applyBatch(TOPIC, 0, bigRecords.slice(i, i + batch))).statements;
      return { statements, sums: await projectionChecksums(ds, schema, ALL_PROJECTIONS) };
    };
    const whole = await apply('big_whole', bigRecords.length);
    const small = await apply('big_500', 500);
    expect(whole.sums).toEqual(small.sums);
    expect(whole.sums.bet_settlements.rows).toBeGreaterThan(2 * settled - 1);
    // one transaction of ~16,000 events: bounded by the tables and rounds, not by the events
    expect(whole.statements).toBeLessThan(120);
  });

  it('Given 4 shoes of 10 and of 60 rounds (voids, corrections, refunds), each in one batch and in batches of 700, Then the statements grow with the batches, not with the rounds (no per-round UPDATE chain)', async () => {
    const run = async (label: string, maxRounds: number, batch: number) => {
      const ledger = syntheticLedger({ shoes: 4, seed: 5, prefix: `ordst${maxRounds}`, maxRounds, voidRate: 0.1, correctionRate: 0.1, exposedCardRate: 0, shoeVoidRate: 0 });
      const recs: EventRecord[] = assignPositions(ledger.streams).map((e, i) => {
        const m = toMessage(e);
        return { topic: TOPIC, partition: 0, offset: String(i), key: m.key as string, value: m.value as string, headers: m.headers as Record<string, string> };
      });
      const schema = `read_it_order_${label}`;
      schemas.push(schema);
      await dropProjectionSchema(ds, schema);
      await runProjectionMigrations(ds, { schema, migrations: READ_MODEL_MIGRATIONS });
      const applier = new ProjectionApplier({ projections: ALL_PROJECTIONS, ds, schema, checkpointGroup: 'order-spec' });
      let statements = 0;
      let batches = 0;
      for (let i = 0; i < recs.length; i += batch, batches++) statements += (await applier.applyBatch(TOPIC, 0, recs.slice(i, i + batch))).statements;
      const [{ rounds }] = await ds.query(`SELECT count(*)::int AS rounds FROM "${schema}".hand_outcomes`);
      const [{ resettled }] = await ds.query(`SELECT count(*)::int AS resettled FROM "${schema}".bet_settlement_revisions WHERE kind <> 'SETTLED'`);
      const dealerChanges = recs.filter((r) => r.value!.toString().includes('"DealerChanged"')).length;
      return { statements, batches, rounds, resettled, dealerChanges, events: recs.length };
    };
    const short = await run('st10', 10, 1_000_000);
    const long = await run('st60', 60, 1_000_000);
    expect(long.rounds).toBeGreaterThan(4 * short.rounds);
    expect(long.resettled).toBeGreaterThan(0);
    // one batch each: the same statements whatever the number of rounds (per table and per shoe;
    // a dealer change reads its shoe's open round: one more each)
    expect(long.statements).toBeLessThanOrEqual(short.statements + 8 + (long.dealerChanges - short.dealerChanges));
    // batches of 700 (rounds cut between placing and settling): a bounded number per batch
    const cut = await run('st60b', 60, 700);
    expect(cut.batches).toBeGreaterThan(3);
    expect(cut.statements / cut.batches).toBeLessThan(long.statements + 8);
    expect(cut.statements).toBeLessThan(cut.events / 10);
  });

  it('Given the reversed order, Then the reconciliation is the hand-computed one of the small shoe', async () => {
    const schema = 'read_it_order_reversed';
    const [boris] = await ds.query(
      `SELECT turnover::text, payouts::text, correction_payout_delta::text AS cpd, voided_stakes::text AS voided, bets_settled::int, bets_refunded::int,
              bets_resettled::int, rounds_resulted::int, rounds_voided::int, corrections::int, dropped_num::text AS num, dropped_den::text AS den
       FROM "${schema}".reconciliation WHERE shoe_id = 'ordfx-1' AND dealer_id = 'D-BORIS'`,
    );
    expect(boris).toMatchObject({ turnover: '3705', payouts: '5029', cpd: '-50', voided: '700', rounds_resulted: 3, rounds_voided: 2, corrections: 1 });
    expect([boris.bets_settled, boris.bets_refunded, boris.bets_resettled]).toEqual([9, 3, 3]);
    expect(Number(boris.num) / Number(boris.den)).toBe(0.25);
  });
});
