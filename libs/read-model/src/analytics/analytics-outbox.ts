import type { LedgerEvent, VoidCause } from '@ledger/events';
import type { AppliedEventEffect, ProjectionTx } from '@ledger/projections';
import { roundContext, RoundContext } from '../outcomes/round-context';
import type { RoadRound, RoadWinner } from '../roads/roads';
import { settlementReferenceRow } from './analytics-references';
import { ANALYTICS_SOURCE_TYPES, AnalyticsRecord, analyticsRecordsFor, AnalyticsStateReader, RoundSnapshot } from './analytics-records';
import { HAND_OUTCOMES_TABLE } from '../outcomes/tables';
import { SHOE_STATE_TABLE } from '../shoe-state/tables';

/**
 * The analytics side of the projector's transaction (docs/guarantees.md §4 and §6 applied
 * to the analytics topics): for each ledger event applied, the records it produces are written to
 * `<schema>.analytics_outbox` by the SAME transaction that writes the projections and moves the
 * checkpoint. Either all of it commits or none of it does, so:
 *
 * - a record exists in the outbox iff its event was applied, exactly once (a redelivered event is
 *   skipped by the applier before it gets here; the primary key `(global_position, ordinal)` and,
 *   for stored records, `ce_id` UNIQUE are the backstop);
 * - a settlement of a BetSettled / BetResettled is stored as a reference to its event, built by the
 *   publisher when it sends it (`analytics-references.ts`, migration 1797040000000): no copy of
 *   the value and headers per bet, and no record-building CPU in this transaction;
 * - the publisher (`analytics-publisher.ts`) sends what is committed, at least once, and a
 *   duplicate on Kafka is always byte-identical (same `ce_id`), never a loss.
 *
 * Replays switch it off: the live projector hands {@link ANALYTICS_OUTBOX_EFFECT} to the engine,
 * `rebuildProjections` runs no effect, so a rebuild emits nothing. The outbox is bookkeeping, not a projection: it is not in the
 * checksums.
 */

/** The outbox table (in the projection schema, created by migration 1733100000000). */
export const ANALYTICS_OUTBOX_TABLE = 'analytics_outbox';

/** A round row of `hand_outcomes` (+ the shoe's variant) as the analytics records need it. */
interface RoundRow {
  round_id: string;
  shoe_id: string;
  table_id: string;
  variant: string;
  hand_number: number;
  dealer_id: string;
  dealing_dealer_id: string;
  gaming_day: string;
  paytable_ref: string;
  status: RoundSnapshot['status'];
  current_revision: number;
  cards: string[];
  player_cards: string[] | null;
  banker_cards: string[] | null;
  player_total: number | null;
  banker_total: number | null;
  winner: RoadWinner | null;
  is_natural: boolean | null;
  player_pair: boolean | null;
  banker_pair: boolean | null;
  void_cause: VoidCause | null;
}

/**
 * {@link AnalyticsStateReader} over the projection tables, inside the projector's transaction:
 * reads see every write of the transaction so far (`ProjectionTx.query` flushes deferred writes).
 */
export class TxAnalyticsState implements AnalyticsStateReader {
  /** @param tx the transaction the event is being applied in */
  constructor(private readonly tx: ProjectionTx) {}

  /** @inheritdoc */
  async roundAfter(roundId: string): Promise<RoundSnapshot> {
    const rows = await this.tx.query<RoundRow>(
      `SELECT h.round_id, h.shoe_id, h.table_id, s.variant, h.hand_number, h.dealer_id, h.dealing_dealer_id, h.gaming_day::text AS gaming_day,
              h.paytable_ref, h.status, h.current_revision, h.cards, h.player_cards, h.banker_cards, h.player_total, h.banker_total,
              h.winner, h.is_natural, h.player_pair, h.banker_pair, h.void_cause
       FROM ${this.tx.t(HAND_OUTCOMES_TABLE)} h JOIN ${this.tx.t(SHOE_STATE_TABLE)} s ON s.shoe_id = h.shoe_id
       WHERE h.round_id = $1`,
      [roundId],
    );
    const r = rows[0];
    if (!r) throw new Error(`analytics: round ${roundId} has no hand_outcomes row`);
    return {
      roundId: r.round_id,
      shoeId: r.shoe_id,
      tableId: r.table_id,
      variant: r.variant,
      handNumber: r.hand_number,
      dealerId: r.dealer_id,
      dealingDealerId: r.dealing_dealer_id,
      gamingDay: r.gaming_day,
      paytableRef: r.paytable_ref,
      status: r.status,
      revision: r.current_revision,
      cards: r.cards,
      playerCards: r.player_cards,
      bankerCards: r.banker_cards,
      playerTotal: r.player_total,
      bankerTotal: r.banker_total,
      winner: r.winner,
      natural: r.is_natural,
      playerPair: r.player_pair,
      bankerPair: r.banker_pair,
      voidCause: r.void_cause,
    };
  }

  /** @inheritdoc */
  async countedRounds(shoeId: string): Promise<RoadRound[]> {
    const rows = await this.tx.query<{ round_id: string; hand_number: number; winner: RoadWinner; player_pair: boolean; banker_pair: boolean; is_natural: boolean }>(
      `SELECT round_id, hand_number, winner, player_pair, banker_pair, is_natural FROM ${this.tx.t(HAND_OUTCOMES_TABLE)}
       WHERE shoe_id = $1 AND status IN ('RESULTED','CORRECTED') ORDER BY hand_number`,
      [shoeId],
    );
    return rows.map((r) => ({ roundId: r.round_id, handNumber: r.hand_number, winner: r.winner, playerPair: r.player_pair, bankerPair: r.banker_pair, natural: r.is_natural }));
  }

  /** @inheritdoc */
  roundContext(roundId: string): Promise<RoundContext> {
    return roundContext(this.tx, roundId);
  }
}

/**
 * The outbox row of a record stored in full (column → value), as `ProjectionTx.append` writes it:
 * the same columns as a reference row (`settlementReferenceRow`), one batch's rows share one list.
 */
export function outboxRow(r: AnalyticsRecord): Record<string, unknown> {
  return {
    global_position: r.globalPosition,
    ordinal: r.ordinal,
    kind: r.kind,
    source_event_id: r.sourceEventId,
    record_key: r.key,
    ce_id: r.ceId,
    headers: JSON.stringify(r.headers),
    value: r.value,
    occurred_at: null,
  };
}

/**
 * Writes the analytics outbox rows of one applied event into the transaction. Must run after every
 * projection has applied the event (it reads `hand_outcomes` as the event left it). A BetSettled /
 * BetResettled gets a reference row (`analytics-references.ts`: the publisher builds its record);
 * every other source event gets its records built now and stored in full.
 * @returns the number of rows written (0 for events that produce none)
 */
export async function writeAnalyticsOutbox(e: LedgerEvent, tx: ProjectionTx): Promise<number> {
  if (!ANALYTICS_SOURCE_TYPES.has(e.type)) return 0;
  if (e.type === 'BetSettled' || e.type === 'BetResettled') {
    tx.append(ANALYTICS_OUTBOX_TABLE, settlementReferenceRow(e));
    return 1;
  }
  const records = await analyticsRecordsFor(e, new TxAnalyticsState(tx));
  for (const r of records) tx.append(ANALYTICS_OUTBOX_TABLE, outboxRow(r));
  return records.length;
}

/**
 * The analytics outbox as the engine's side effect of an applied event (`effects` of
 * `ProjectionRunner` / `ProjectionApplier`): {@link writeAnalyticsOutbox} in the projector's
 * transaction, after every projection. The live projector passes it (`ANALYTICS_ENABLED`); a
 * rebuild does not, so a replay emits nothing.
 */
export const ANALYTICS_OUTBOX_EFFECT: AppliedEventEffect = {
  name: 'the analytics records',
  reads: [HAND_OUTCOMES_TABLE, SHOE_STATE_TABLE],
  apply: writeAnalyticsOutbox,
};
