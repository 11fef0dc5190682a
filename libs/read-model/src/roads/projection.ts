import type { LedgerEvent } from '@ledger/events';
import { type Projection, type ProjectionTx, shoeIdOf } from '@ledger/projections';
import { computeRoads, RoadRound, RoadWinner } from './roads';
import { HAND_OUTCOMES_TABLE } from '../outcomes/tables';
import { ROADS_TABLE } from './tables';

/**
 * `roads`: the scoreboards of each shoe (bead plate, big road, big eye boy, small road, cockroach
 * pig; algorithms in the pure module `roads/roads.ts`), recomputed for the whole shoe from
 * `hand_outcomes` whenever one of its rounds is resulted, corrected or voided, so a correction or a
 * void rewrites the roads as if the round had always had its final outcome.
 *
 * The recomputation runs once per shoe per transaction, at commit (after every event of the
 * batch), from the rounds with status RESULTED or CORRECTED in hand order. `last_event_id` /
 * `last_global_position` name the last event that changed the shoe's rounds.
 *
 * READS `hand_outcomes`, at commit only (after every event of the batch, whatever the order).
 */
export const roadsProjection: Projection<undefined> = {
  name: 'roads',
  // one row per shoe: in a table's scope, in no single gaming day's
  tables: [{ name: ROADS_TABLE, orderBy: 'shoe_id COLLATE "C"', scope: { tableId: (p) => `table_id = ${p}` } }],
  reads: [HAND_OUTCOMES_TABLE],
  async apply(e: LedgerEvent, tx: ProjectionTx): Promise<void> {
    if (e.type !== 'RoundResulted' && e.type !== 'ResultCorrected' && e.type !== 'RoundVoided') return;
    const shoeId = shoeIdOf(e);
    const tableId = e.tableId;
    const eventId = e.eventId;
    const position = e.globalPosition;
    tx.beforeCommit(`roads:${shoeId}`, () => rebuildRoads(tx, shoeId, tableId, eventId, position));
  },
};

async function rebuildRoads(tx: ProjectionTx, shoeId: string, tableId: string, eventId: string, position: string): Promise<void> {
  const rows = await tx.query<{ round_id: string; hand_number: number; winner: RoadWinner; player_pair: boolean; banker_pair: boolean; is_natural: boolean }>(
    `SELECT round_id, hand_number, winner, player_pair, banker_pair, is_natural FROM ${tx.t(HAND_OUTCOMES_TABLE)}
     WHERE shoe_id = $1 AND status IN ('RESULTED','CORRECTED') ORDER BY hand_number`,
    [shoeId],
  );
  const rounds: RoadRound[] = rows.map((r) => ({
    roundId: r.round_id,
    handNumber: r.hand_number,
    winner: r.winner,
    playerPair: r.player_pair,
    bankerPair: r.banker_pair,
    natural: r.is_natural,
  }));
  const roads = computeRoads(rounds);
  await tx.query(
    `INSERT INTO ${tx.t(ROADS_TABLE)} (shoe_id, table_id, rounds_counted, leading_ties, bead_plate, big_road, big_eye_boy, small_road, cockroach_pig, last_event_id, last_global_position)
     VALUES ($1,$2,$3,$4,$5::jsonb,$6::jsonb,$7::jsonb,$8::jsonb,$9::jsonb,$10,$11)
     ON CONFLICT (shoe_id) DO UPDATE SET rounds_counted = EXCLUDED.rounds_counted, leading_ties = EXCLUDED.leading_ties,
       bead_plate = EXCLUDED.bead_plate, big_road = EXCLUDED.big_road, big_eye_boy = EXCLUDED.big_eye_boy,
       small_road = EXCLUDED.small_road, cockroach_pig = EXCLUDED.cockroach_pig,
       last_event_id = EXCLUDED.last_event_id, last_global_position = EXCLUDED.last_global_position`,
    [
      shoeId,
      tableId,
      rounds.length,
      roads.bigRoad.leadingTies,
      JSON.stringify(roads.beadPlate),
      JSON.stringify(roads.bigRoad.columns),
      JSON.stringify(roads.bigEyeBoy),
      JSON.stringify(roads.smallRoad),
      JSON.stringify(roads.cockroachPig),
      eventId,
      position,
    ],
  );
}
