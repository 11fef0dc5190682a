import type { KafkaClient, KafkaProducer } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { diffChecksums, projectionChecksums } from './checksums';
import { addOverLcm } from './rational';
import { createProjectionDataSource } from './data-source';
import { dropProjectionSchema, runProjectionMigrations } from './migrations';
import { rebuildProjections } from './rebuild';
import { ProjectionRunner } from './runner';
import { GlobalPositions } from './testing/envelopes';
import { createTopic, deleteTopics, produce, readAll, storedCheckpoints, TEST_DATABASE_URL, testKafka, uniqueTopic, waitForCatchUp } from './testing/kafka-kit';
import { smallShoe, SmallShoe } from './testing/small-shoe.fixture';
import { ALL_PROJECTIONS, ANALYTICS_OUTBOX_EFFECT, ENTRY_SUMS, entryRow, foldEntries, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

/**
 * The projections against real PostgreSQL (`ledger_test`, schema `read`, recreated by the
 * migrations) and real Kafka (a topic of 3 partitions unique to this run). Two hand-written shoes
 * (`small-shoe.fixture.ts`) on two tables go through an in-process ProjectionRunner.
 */
jest.setTimeout(180_000);

const SCHEMA = 'read';
const SCRATCH = 'read_it_scratch';

describe('projections (PostgreSQL + Kafka)', () => {
  let ds: DataSource;
  let kafka: KafkaClient;
  let producer: KafkaProducer;
  let runner: ProjectionRunner;
  let topic: string;
  let group: string;
  let shoe1: SmallShoe;
  let shoe2: SmallShoe;
  const q = <T = any>(sql: string, params: unknown[] = []): Promise<T[]> => ds.query(sql, params);

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'projections-int' });
    await ds.initialize();
    await dropProjectionSchema(ds, SCHEMA, { allowLive: true });
    await dropProjectionSchema(ds, SCRATCH);
    await runProjectionMigrations(ds, { schema: SCHEMA, migrations: READ_MODEL_MIGRATIONS });
    kafka = testKafka();
    topic = uniqueTopic('main');
    group = `projector-it-${Date.now()}`;
    await createTopic(kafka, topic, 3);
    producer = kafka.producer();
    await producer.connect();
    const positions = new GlobalPositions();
    shoe1 = smallShoe({ shoeId: 'fx-1', tableId: 'T-FX-1', positions });
    shoe2 = smallShoe({ shoeId: 'fx-2', tableId: 'T-FX-2', positions });
    runner = new ProjectionRunner({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], kafka, ds, topic, groupId: group, schema: SCHEMA, maxRecordsPerTransaction: 7 });
    await runner.start();
    await produce(producer, topic, [...shoe1.events, ...shoe2.events]);
    await waitForCatchUp(kafka, ds, SCHEMA, group, topic);
  });

  afterAll(async () => {
    await runner?.stop();
    await producer?.disconnect();
    if (kafka && topic) await deleteTopics(kafka, [topic]);
    if (ds?.isInitialized) {
      await dropProjectionSchema(ds, SCRATCH).catch(() => undefined);
      await ds.destroy();
    }
  });

  it('audit_events holds every event once, flattened, with the management attribution', async () => {
    const [{ n }] = await q(`SELECT count(*)::int AS n FROM read.audit_events`);
    expect(n).toBe(shoe1.events.length + shoe2.events.length);
    const [v] = await q(`SELECT * FROM read.audit_events WHERE event_id = $1`, [shoe1.ids.r4Voided]);
    expect(v).toMatchObject({
      type: 'RoundVoided',
      table_id: 'T-FX-1',
      shoe_id: 'fx-1',
      round_id: 'fx-1-R4',
      actor_id: 'PM-CARLA',
      actor_role: 'pit-manager',
      acting_manager_id: 'PM-CARLA',
      approver_id: 'PM-DAVID',
      compensates: shoe1.ids.r4Resulted,
    });
    expect(v.reason).toMatch(/discard tray/);
    expect(v.data.cause).toBe('MANAGEMENT');
    const idx: { indexname: string }[] = await q(`SELECT indexname FROM pg_indexes WHERE schemaname = 'read' AND tablename = 'audit_events'`);
    // one index per audit filter, in keyset order (read-model migrations 1797020000000-audit-keyset-indexes, 1799000700000-audit-time-order), and nothing no query reads
    expect(idx.map((i) => i.indexname).sort()).toEqual([
      'audit_events_actor_pos_idx',
      'audit_events_decisions_pos_idx',
      'audit_events_pkey',
      'audit_events_round_pos_idx',
      'audit_events_shoe_pos_idx',
      'audit_events_table_pos_idx',
      'audit_events_time_pos_idx',
      'audit_events_type_pos_idx',
    ]);
  });

  it('shoe_state: status, dealer, hand number, card accounting by rank, burns, commencement, cut card', async () => {
    const [s] = await q(`SELECT * FROM read.shoe_state WHERE shoe_id = 'fx-1'`);
    expect(s).toMatchObject({
      table_id: 'T-FX-1',
      variant: 'classic',
      decks: 8,
      status: 'CLOSED',
      opening_dealer_id: 'D-ANNA',
      dealer_id: 'D-BORIS',
      hand_number: 6,
      cards_out: 24, // commencement 1 + burns 3 + 5 rounds × 4
      cards_remaining: 392,
      cards_unseen: 2, // two face-down burns
      cards_dealt: 20,
      cards_burned: 4,
      burns: 3,
      commencement_card: '3H',
      commencement_burn_count: 3,
      commencement_burns_done: 3,
      cut_card_drawn: true,
      cut_card_timing: 'BEFORE_DEALING',
      cut_card_round_id: 'fx-1-R6',
      last_hand_round_id: 'fx-1-R5',
      voided: false,
      closed: true,
      rounds_played: 4,
      stream_version: shoe1.events.length,
    });
    // known cards out: 3H, KS, R1 9S 7H KD QC, R2 3C 4D 2H 4S, R3 TS JH 7C 7D, R4 4H 2C 4C 5S,
    // R5 as corrected 6C 8D KH QS (the recorded 8C 6D went back)
    const out = { '2': 2, '3': 2, '4': 4, '5': 1, '6': 1, '7': 3, '8': 1, '9': 1, T: 1, J: 1, Q: 2, K: 3 };
    for (const [rank, n] of Object.entries(out)) {
      expect(s.cards_out_by_rank[rank]).toBe(n);
      expect(s.cards_remaining_by_rank[rank]).toBe(32 - n);
    }
    expect(s.cards_remaining_by_rank.A).toBe(32);
    const remainingByRank = Object.values<number>(s.cards_remaining_by_rank).reduce((a, b) => a + b, 0);
    expect(remainingByRank).toBe(s.cards_remaining + s.cards_unseen);
  });

  it('hand_outcomes: cards, totals, winner, natural, pairs, status; every revision with actor, reason, approver, eventId', async () => {
    const rounds = await q(`SELECT * FROM read.hand_outcomes WHERE shoe_id = 'fx-1' ORDER BY hand_number`);
    expect(rounds.map((r) => [r.round_id, r.status, r.winner, r.current_revision])).toEqual([
      ['fx-1-R1', 'RESULTED', 'PLAYER', 1],
      ['fx-1-R2', 'RESULTED', 'BANKER', 1],
      ['fx-1-R3', 'RESULTED', 'TIE', 1],
      ['fx-1-R4', 'VOIDED', 'PLAYER', 2],
      ['fx-1-R5', 'CORRECTED', 'BANKER', 2],
      ['fx-1-R6', 'VOIDED', null, 1],
    ]);
    expect(rounds[1]).toMatchObject({ player_total: 5, banker_total: 8, is_natural: true, player_pair: false, banker_pair: true, cards: ['3C', '4D', '2H', '4S'] });
    expect(rounds[0]).toMatchObject({ dealer_id: 'D-ANNA' });
    expect(rounds[0].gaming_day).toBeDefined();
    const days = await q(`SELECT round_id, gaming_day::text AS d, dealer_id FROM read.hand_outcomes WHERE shoe_id = 'fx-1' ORDER BY hand_number`);
    expect(days.map((r) => r.d)).toEqual(['2025-02-28', '2025-03-01', '2025-03-01', '2025-03-01', '2025-03-01', '2025-03-01']);
    expect(rounds[4]).toMatchObject({ cards: ['6C', '8D', 'KH', 'QS'], player_cards: ['6C', 'KH'], banker_cards: ['8D', 'QS'], player_total: 6, banker_total: 8 });
    expect(rounds[5]).toMatchObject({ void_cause: 'CUT_CARD' });

    const r5 = await q(`SELECT * FROM read.hand_outcome_revisions WHERE round_id = 'fx-1-R5' ORDER BY revision`);
    expect(r5.map((r) => [r.revision, r.kind, r.winner, r.player_total, r.banker_total])).toEqual([
      [1, 'RESULTED', 'PLAYER', 8, 6],
      [2, 'CORRECTED', 'BANKER', 6, 8],
    ]);
    expect(r5[1]).toMatchObject({
      event_id: shoe1.ids.r5Corrected,
      actor_id: 'PM-CARLA',
      acting_manager_id: 'PM-CARLA',
      approver_id: 'PM-DAVID',
      compensates: shoe1.ids.r5Resulted,
      cards: ['6C', '8D', 'KH', 'QS'],
    });
    expect(r5[1].reason).toMatch(/swapped/);
    const r4 = await q(`SELECT kind, event_id, reason, approver_id FROM read.hand_outcome_revisions WHERE round_id = 'fx-1-R4' ORDER BY revision`);
    expect(r4.map((r) => r.kind)).toEqual(['RESULTED', 'VOIDED']);
    expect(r4[1]).toMatchObject({ event_id: shoe1.ids.r4Voided, approver_id: 'PM-DAVID' });
    const [r6] = await q(`SELECT kind, void_cause, caused_by FROM read.hand_outcome_revisions WHERE round_id = 'fx-1-R6'`);
    expect(r6).toEqual({ kind: 'VOIDED', void_cause: 'CUT_CARD', caused_by: shoe1.ids.r6CutCard });
  });

  it('a corrected result re-settles every bet, and the revisions show both versions', async () => {
    const bets = await q(`SELECT bet_id, status, result, payout::text, revision, revisions, first_payout::text, correction_payout_delta::text FROM read.bet_settlements WHERE round_id = 'fx-1-R5' ORDER BY bet_id`);
    expect(bets).toEqual([
      { bet_id: 'fx-1-B5-1', status: 'RESETTLED', result: 'LOSE', payout: '0', revision: 2, revisions: 2, first_payout: '2000', correction_payout_delta: '-2000' },
      { bet_id: 'fx-1-B5-2', status: 'RESETTLED', result: 'WIN', payout: '1950', revision: 2, revisions: 2, first_payout: '0', correction_payout_delta: '1950' },
      { bet_id: 'fx-1-B5-3', status: 'RESETTLED', result: 'LOSE', payout: '0', revision: 2, revisions: 2, first_payout: '0', correction_payout_delta: '0' },
    ]);
    const revs = await q(`SELECT bet_id, seq, kind, revision, result, payout::text, reason, approver_id FROM read.bet_settlement_revisions WHERE round_id = 'fx-1-R5' ORDER BY bet_id, seq`);
    expect(revs.map((r) => [r.bet_id, r.seq, r.kind, r.result, r.payout])).toEqual([
      ['fx-1-B5-1', 1, 'SETTLED', 'WIN', '2000'],
      ['fx-1-B5-1', 2, 'RESETTLED', 'LOSE', '0'],
      ['fx-1-B5-2', 1, 'SETTLED', 'LOSE', '0'],
      ['fx-1-B5-2', 2, 'RESETTLED', 'WIN', '1950'],
      ['fx-1-B5-3', 1, 'SETTLED', 'LOSE', '0'],
      ['fx-1-B5-3', 2, 'RESETTLED', 'LOSE', '0'],
    ]);
    expect(revs.filter((r) => r.kind === 'RESETTLED').every((r) => r.approver_id === 'PM-DAVID' && /swapped/.test(r.reason))).toBe(true);
  });

  it('a voided round refunds every stake; revisions keep what was paid before', async () => {
    const bets = await q(`SELECT bet_id, status, payout, refunded_stake::text, revision FROM read.bet_settlements WHERE round_id IN ('fx-1-R4','fx-1-R6') ORDER BY bet_id`);
    expect(bets).toEqual([
      { bet_id: 'fx-1-B4-1', status: 'REFUNDED', payout: null, refunded_stake: '500', revision: 1 },
      { bet_id: 'fx-1-B4-2', status: 'REFUNDED', payout: null, refunded_stake: '100', revision: 1 },
      { bet_id: 'fx-1-B6-1', status: 'REFUNDED', payout: null, refunded_stake: '100', revision: 0 },
    ]);
    const revs = await q(`SELECT bet_id, kind, payout::text, stake::text, compensates, reason FROM read.bet_settlement_revisions WHERE round_id = 'fx-1-R4' ORDER BY bet_id, seq`);
    expect(revs.map((r) => [r.bet_id, r.kind, r.payout])).toEqual([
      ['fx-1-B4-1', 'SETTLED', '1000'],
      ['fx-1-B4-1', 'REFUNDED', null],
      ['fx-1-B4-2', 'SETTLED', '1200'],
      ['fx-1-B4-2', 'REFUNDED', null],
    ]);
    expect(revs[1]).toMatchObject({ compensates: shoe1.ids.r4Voided, stake: '500' });
    expect(revs[1].reason).toMatch(/discard tray/);
  });

  it('reconciliation: turnover, payouts, GGR, voids and corrections apart, counts, dropped fraction, by dealer and gaming day', async () => {
    const rows = await q(
      `SELECT dealer_id, gaming_day::text AS gaming_day, currency, turnover::text, payouts::text, ggr::text, correction_payout_delta::text,
              voided_stakes::text, bets_settled::int, bets_refunded::int, bets_resettled::int, rounds_resulted::int, rounds_voided::int,
              corrections::int, dropped_num::text, dropped_den::text
       FROM read.reconciliation WHERE shoe_id = 'fx-1' ORDER BY gaming_day`,
    );
    expect(rows).toEqual([
      {
        dealer_id: 'D-ANNA',
        gaming_day: '2025-02-28',
        currency: 'EUR',
        turnover: '1600',
        payouts: '2000',
        ggr: '-400',
        correction_payout_delta: '0',
        voided_stakes: '0',
        bets_settled: 3,
        bets_refunded: 0,
        bets_resettled: 0,
        rounds_resulted: 1,
        rounds_voided: 0,
        corrections: 0,
        dropped_num: '0',
        dropped_den: '1',
      },
      {
        dealer_id: 'D-BORIS',
        gaming_day: '2025-03-01',
        currency: 'EUR',
        turnover: '3705',
        payouts: '5029',
        ggr: '-1324',
        correction_payout_delta: '-50',
        voided_stakes: '700',
        bets_settled: 9,
        bets_refunded: 3,
        bets_resettled: 3,
        rounds_resulted: 3,
        rounds_voided: 2,
        corrections: 1,
        dropped_num: '1',
        dropped_den: '4',
      },
    ]);
    const [report] = await q(`SELECT hold::text, dropped FROM read.reconciliation_report WHERE shoe_id = 'fx-1' AND dealer_id = 'D-BORIS'`);
    expect(report.dropped).toBe('1/4');
    expect(Number(report.hold)).toBeCloseTo(-1324 / 3705, 12); // display only; the stored values are exact
  });

  it('GGR = turnover − payouts on every row, and every row agrees with the bets it sums', async () => {
    const bad = await q(`SELECT * FROM read.reconciliation WHERE ggr <> turnover - payouts`);
    expect(bad).toEqual([]);
    const mismatches = await q(
      `WITH b AS (
         SELECT table_id, shoe_id, dealer_id, gaming_day, currency,
                sum(stake) FILTER (WHERE status IN ('SETTLED','RESETTLED')) AS turnover,
                sum(payout) FILTER (WHERE status IN ('SETTLED','RESETTLED')) AS payouts,
                sum(refunded_stake) AS voided,
                sum(correction_payout_delta) AS corr
         FROM read.bet_settlements GROUP BY 1,2,3,4,5)
       SELECT r.* FROM read.reconciliation r JOIN b USING (table_id, shoe_id, dealer_id, gaming_day, currency)
       WHERE r.turnover <> coalesce(b.turnover, 0) OR r.payouts <> coalesce(b.payouts, 0)
          OR r.voided_stakes <> coalesce(b.voided, 0) OR r.correction_payout_delta <> coalesce(b.corr, 0)`,
    );
    expect(mismatches).toEqual([]);
  });

  it('ledger_entries: the rows foldEntries gives for the same events, field for field (settlements, pushes, dropped fractions, a void with refunds, a correction with resettlements)', async () => {
    const rows = await q(
      `SELECT global_position::text, entry_no, event_id, event_type, to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at,
              gaming_day::text, table_id, shoe_id, round_id, bet_id, dealer_id, currency, turnover::text, payouts::text, correction_payout_delta::text,
              voided_stakes::text, bets_settled::text, bets_refunded::text, bets_resettled::text, rounds_resulted::text, rounds_voided::text,
              corrections::text, dropped_num::text, dropped_den::text
         FROM read.ledger_entries e ORDER BY e.global_position, e.entry_no`,
    );
    const folded = [...foldEntries([...shoe1.events, ...shoe2.events])].sort((a, b) => (a.globalPosition < b.globalPosition ? -1 : a.globalPosition > b.globalPosition ? 1 : a.entryNo - b.entryNo)).map(entryRow);
    expect(rows).toEqual(folded);
    const types = new Set(rows.map((r) => r.event_type));
    for (const t of ['BetSettled', 'RoundVoided', 'BetRefunded', 'ResultCorrected', 'BetResettled']) expect(types).toContain(t);
    expect(rows.some((r) => r.dropped_num !== '0')).toBe(true);
  });

  it('summed by the reconciliation key, ledger_entries are the reconciliation rows', async () => {
    const sums = [...ENTRY_SUMS.map((f) => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))];
    const recon = await q(
      `SELECT table_id, shoe_id, dealer_id, gaming_day::text AS gaming_day, currency, ${sums.map((c) => `${c}::text`).join(', ')}, dropped_num::text, dropped_den::text
         FROM read.reconciliation ORDER BY table_id COLLATE "C", shoe_id COLLATE "C", dealer_id COLLATE "C", gaming_day, currency COLLATE "C"`,
    );
    const entries = await q(
      `SELECT table_id, shoe_id, dealer_id, gaming_day::text AS gaming_day, currency, ${sums.map((c) => `${c}::text`).join(', ')}, dropped_num::text, dropped_den::text
         FROM read.ledger_entries ORDER BY global_position, entry_no`,
    );
    const byKey = new Map<string, Record<string, string>>();
    for (const x of entries) {
      const k = [x.table_id, x.shoe_id, x.dealer_id, x.gaming_day, x.currency].join('|');
      const a: Record<string, string> = byKey.get(k) ?? {
        table_id: x.table_id,
        shoe_id: x.shoe_id,
        dealer_id: x.dealer_id,
        gaming_day: x.gaming_day,
        currency: x.currency,
        ...Object.fromEntries(sums.map((c) => [c, '0'])),
        dropped_num: '0',
        dropped_den: '1',
      };
      for (const c of sums) a[c] = (BigInt(a[c]) + BigInt(x[c])).toString();
      const d = addOverLcm({ num: BigInt(a.dropped_num), den: BigInt(a.dropped_den) }, { num: BigInt(x.dropped_num), den: BigInt(x.dropped_den) });
      [a.dropped_num, a.dropped_den] = [d.num.toString(), d.den.toString()];
      byKey.set(k, a);
    }
    const summed = [...byKey.values()].sort((a, b) => {
      const ka = [a.table_id, a.shoe_id, a.dealer_id, a.gaming_day, a.currency].join('|');
      const kb = [b.table_id, b.shoe_id, b.dealer_id, b.gaming_day, b.currency].join('|');
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    expect(recon.length).toBeGreaterThan(0);
    expect(summed).toEqual(recon);
  });

  it('roads: bead plate, big road with the tie on the Banker cell, derived roads; voided rounds left out', async () => {
    const [r] = await q(`SELECT * FROM read.roads WHERE shoe_id = 'fx-1'`);
    // counted: R1 P, R2 B, R3 T, R5 B (corrected); R4 and R6 voided
    expect(r.rounds_counted).toBe(4);
    expect(r.bead_plate.map((b: { result: string }) => b.result)).toEqual(['P', 'B', 'T', 'B']);
    expect(r.bead_plate[1]).toMatchObject({ bankerPair: true, column: 0, row: 1 });
    expect(r.big_road.map((col: { result: string; ties: number }[]) => col.map((c) => c.result + c.ties))).toEqual([['P0'], ['B1', 'B0']]);
    // big eye boy: (c1,r1): column 0 has 1 cell = row 1 → BLUE; small road / cockroach: too early
    expect(r.big_eye_boy.entries).toEqual([{ colour: 'BLUE', column: 1, row: 1 }]);
    expect(r.small_road.entries).toEqual([]);
    expect(r.cockroach_pig.entries).toEqual([]);
  });

  describe('redelivery changes nothing', () => {
    it('the same records again (offsets below the checkpoint) are skipped', async () => {
      const before = await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS);
      const records = await readAll(kafka, topic);
      let skipped = 0;
      for (const p of [0, 1, 2]) {
        const mine = records.filter((r) => r.partition === p);
        if (mine.length === 0) continue;
        const res = await runner.applier.applyBatch(topic, p, mine);
        expect(res.applied).toBe(0);
        skipped += res.skippedBelowCheckpoint;
      }
      expect(skipped).toBe(records.length);
      expect(await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS)).toEqual(before);
    });

    it('even with the checkpoint lost, every eventId already applied is skipped', async () => {
      const before = await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS);
      const records = await readAll(kafka, topic);
      const saved = await storedCheckpoints(ds, SCHEMA, 'probe-group', topic);
      expect(saved.size).toBe(0);
      // a second "owner" with no checkpoint at all sees every record as new by offset…
      const { ProjectionApplier } = await import('./applier');
      const other = new ProjectionApplier({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], ds, schema: SCHEMA, checkpointGroup: 'probe-group' });
      let dup = 0;
      for (const p of [0, 1, 2]) {
        const mine = records.filter((r) => r.partition === p);
        if (mine.length === 0) continue;
        const res = await other.applyBatch(topic, p, mine);
        expect(res.applied).toBe(0);
        dup += res.skippedDuplicates;
      }
      // …and the eventId check skips them all
      expect(dup).toBe(records.length);
      expect(await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS)).toEqual(before);
      await q(`DELETE FROM read.checkpoints WHERE consumer_group = 'probe-group'`);
    });

    it('a partition with no checkpoint of its own is held to the topic id the other partitions were checkpointed on', async () => {
      const records = await readAll(kafka, topic);
      const parts = [0, 1, 2].filter((p) => records.some((r) => r.partition === p));
      expect(parts.length).toBeGreaterThanOrEqual(2);
      const { ProjectionApplier } = await import('./applier');
      const probe = new ProjectionApplier({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], ds, schema: SCHEMA, checkpointGroup: 'probe-topic-id' });
      try {
        // the first partition is checkpointed on topic id A…
        await probe.applyBatch(
          topic,
          parts[0],
          records.filter((r) => r.partition === parts[0]),
          { topicId: 'topic-id-A' },
        );
        // …so records of another partition fetched from a topic with id B (re-created) are refused, not applied
        await expect(
          probe.applyBatch(
            topic,
            parts[1],
            records.filter((r) => r.partition === parts[1]),
            { topicId: 'topic-id-B' },
          ),
        ).rejects.toMatchObject({
          code: 'PROJECTION.TOPIC_RECREATED',
        });
        // with the same id it goes on
        const same = await probe.applyBatch(
          topic,
          parts[1],
          records.filter((r) => r.partition === parts[1]),
          { topicId: 'topic-id-A' },
        );
        expect(same.applied).toBe(0);
      } finally {
        await q(`DELETE FROM read.checkpoints WHERE consumer_group = 'probe-topic-id'`);
      }
    });

    it('the same eventIds published again at new offsets are skipped; the checkpoint moves on', async () => {
      const before = await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS);
      const cpBefore = await storedCheckpoints(ds, SCHEMA, group, topic);
      const again = [...shoe1.events.slice(10, 30), ...shoe2.events.slice(40, 45)];
      await produce(producer, topic, again);
      await waitForCatchUp(kafka, ds, SCHEMA, group, topic);
      const cpAfter = await storedCheckpoints(ds, SCHEMA, group, topic);
      const moved = [...cpAfter].reduce((n, [p, o]) => n + Number(o - (cpBefore.get(p) ?? 0n)), 0);
      expect(moved).toBe(again.length);
      expect(await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS)).toEqual(before);
      expect(runner.progress.skippedDuplicates).toBeGreaterThanOrEqual(again.length);
    });
  });

  it('a rebuild into a scratch schema gives identical checksums, and leaves live alone', async () => {
    const live = await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS);
    const result = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic, schema: SCRATCH, checkpointGroup: group, maxRecordsPerTransaction: 13 });
    expect(result.events).toBe(shoe1.events.length + shoe2.events.length);
    expect(diffChecksums(result.checksums, live)).toEqual([]);
    expect(await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS)).toEqual(live);
    // the rebuild's checkpoints are the live ones (it also writes 0 for a partition that holds nothing)
    const nonZero = (m: Map<number, bigint>) => new Map([...m].filter(([, o]) => o > 0n));
    expect(nonZero(await storedCheckpoints(ds, SCRATCH, group, topic))).toEqual(nonZero(await storedCheckpoints(ds, SCHEMA, group, topic)));
  });

  it('a rebuild loads, then indexes: the scratch schema ends with every index and constraint of the migrations', async () => {
    // (the rebuild of the test above dropped them for its load, rebuildProjections' step 2)
    const definitions = async (schema: string) => {
      const indexes: { d: string }[] = await q(`SELECT regexp_replace(indexdef, '"?' || $1 || '"?[.]', 'S.', 'g') AS d FROM pg_indexes WHERE schemaname = $1`, [schema]);
      const constraints: { d: string }[] = await q(
        `SELECT r.relname || ' ' || c.contype::text || ' ' || pg_get_constraintdef(c.oid) AS d FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
         JOIN pg_namespace n ON n.oid = r.relnamespace WHERE n.nspname = $1`,
        [schema],
      );
      return { indexes: indexes.map((r) => r.d).sort(), constraints: constraints.map((r) => r.d).sort() };
    };
    const live = await definitions(SCHEMA);
    expect(live.indexes.length).toBeGreaterThan(20);
    expect(await definitions(SCRATCH)).toEqual(live);
  });

  it('an in-place rebuild refuses to run while a projector holds the schema', async () => {
    await expect(rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic, schema: SCHEMA, checkpointGroup: group })).rejects.toMatchObject({ code: 'PROJECTION.SCHEMA_IN_USE' });
    const [{ n }] = await q(`SELECT count(*)::int AS n FROM read.audit_events`);
    expect(n).toBe(shoe1.events.length + shoe2.events.length);
  });
});
