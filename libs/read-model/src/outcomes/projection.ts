import type { LedgerEvent, ManagementDecision, RoundOutcomeData } from '@ledger/events';
import { gamingDay, type Projection, ProjectionError, type ProjectionTx, shoeIdOf } from '@ledger/projections';
import { rememberRoundContext } from './round-context';
import { HAND_OUTCOMES_TABLE, HAND_OUTCOME_REVISIONS_TABLE } from './tables';
import { SHOE_STATE_TABLE } from '../shoe-state/tables';

/**
 * `hand_outcomes` + `hand_outcome_revisions`: one row per round with its cards and current
 * outcome, and every revision of that outcome (game recall, docs/guarantees.md §9;
 * docs/domain-rules.md §6: voids and result edits are new events, nothing is erased).
 *
 * - RoundOpened creates the row (status OPEN) with what the round is attributed to: the shoe's
 *   dealer at that moment (`dealer_id`), its gaming day (from the RoundOpened's recordedAt, the ledger's own clock), the
 *   shoe's currency and paytable. `dealing_dealer_id` follows a DealerChanged while bets are open
 *   (the write side makes that dealer the round's dealer for management checks).
 * - RoundResulted → status RESULTED, revision 1 (kind RESULTED).
 * - ResultCorrected → status CORRECTED, the corrected cards and outcome, revision n+1 (kind
 *   CORRECTED, with the decision: acting manager, approver, reason, the event compensated).
 * - RoundVoided → status VOIDED, revision n+1 (kind VOIDED, cause, decision if management's,
 *   `caused_by` for automatic voids). The last outcome stays visible on the row; status says it
 *   no longer counts.
 * Revisions are numbered 1, 2, … per round in event order; `current_revision` is the latest.
 *
 * READS `shoe_state` once per round, in `prepare` of the RoundOpened (its row as the transaction holds it, `ProjectionTx.row`) (the shoe's table, dealer,
 * currency and paytable at that moment); everything else comes from the events and its own rows.
 */
export const handOutcomesProjection: Projection<ShoeFacts | undefined> = {
  name: 'hand_outcomes',
  tables: [
    {
      name: HAND_OUTCOMES_TABLE,
      orderBy: 'round_id COLLATE "C"',
      scope: { tableId: (p) => `table_id = ${p}`, gamingDay: (p) => `gaming_day = ${p}` },
      // a shoe's rounds are read by shoe during the load (a DealerChanged's open round, the roads at commit)
      keptInRebuild: ['hand_outcomes_shoe_hand_idx'],
    },
    {
      name: HAND_OUTCOME_REVISIONS_TABLE,
      orderBy: 'round_id COLLATE "C", revision',
      scope: { tableId: (p) => `table_id = ${p}`, gamingDay: (p, t) => `round_id IN (SELECT round_id FROM ${t(HAND_OUTCOMES_TABLE)} WHERE gaming_day = ${p})` },
    },
  ],
  reads: [SHOE_STATE_TABLE],
  async preload(events: readonly LedgerEvent[], tx: ProjectionTx): Promise<void> {
    const opened = new Set<string>();
    const changed: string[] = [];
    for (const e of events) {
      if (e.type === 'RoundOpened') opened.add(e.data.roundId);
      else if (ROUND_EVENTS.has(e.type)) {
        const roundId = (e.data as { roundId?: string | null }).roundId;
        if (roundId && !opened.has(roundId)) changed.push(roundId);
      }
    }
    await tx.preload(HAND_OUTCOMES_TABLE, 'round_id', changed);
  },
  async prepare(e: LedgerEvent, tx: ProjectionTx): Promise<ShoeFacts | undefined> {
    if (e.type !== 'RoundOpened') return undefined;
    // the shoe's row as the transaction holds it (shoe_state folds its changes in memory)
    const row = await tx.row(SHOE_STATE_TABLE, 'shoe_id', shoeIdOf(e));
    if (!row) throw inconsistent(e, `RoundOpened in shoe ${shoeIdOf(e)}, which was never opened`);
    const v = row.values as unknown as ShoeFacts;
    return { table_id: v.table_id, dealer_id: v.dealer_id, currency: v.currency, paytable_ref: v.paytable_ref };
  },
  async apply(e: LedgerEvent, tx: ProjectionTx, shoe: ShoeFacts | undefined): Promise<void> {
    switch (e.type) {
      case 'RoundOpened': {
        const s = shoe!;
        const day = gamingDay(e.recordedAt, tx.gamingDayConfig);
        // the ledger's time of the opening, never the client's occurredAt (docs/domain-rules.md §7);
        // the row is created in memory (INSERTed with the transaction's other new rounds, one
        // statement): the round's later events change it there. Every column, as the table's defaults
        tx.createRow(HAND_OUTCOMES_TABLE, 'round_id', {
          ...NEW_ROUND,
          round_id: e.data.roundId,
          shoe_id: shoeIdOf(e),
          table_id: s.table_id,
          hand_number: e.data.handNumber,
          dealer_id: s.dealer_id,
          dealing_dealer_id: s.dealer_id,
          gaming_day: day,
          currency: s.currency,
          paytable_ref: s.paytable_ref,
          opened_at: e.occurredAt,
          status: 'OPEN',
          cards: [],
          unneeded_cards: [],
        });
        rememberRoundContext(tx, { roundId: e.data.roundId, shoeId: shoeIdOf(e), tableId: s.table_id, dealerId: s.dealer_id, gamingDay: day, currency: s.currency, paytableRef: s.paytable_ref });
        return;
      }
      case 'BettingClosed':
        return change(tx, e, e.data.roundId, () => ({ betting_closed: true }));
      case 'DealerChanged': {
        // the dealer who takes over while bets are open deals that round: the shoe's rounds OPEN
        // with betting open, as the transaction holds them (read by the shoe's index), changed in memory
        const shoeId = shoeIdOf(e);
        const open = (r: Record<string, unknown>) => r.shoe_id === shoeId && r.status === 'OPEN' && r.betting_closed === false;
        for (const row of await tx.rowsWhere(HAND_OUTCOMES_TABLE, 'round_id', `shoe_id = $1 AND status = 'OPEN' AND NOT betting_closed`, [shoeId])) {
          if (open(row.values)) tx.update(row, { dealing_dealer_id: e.data.dealerId });
        }
        return;
      }
      case 'CardDealt':
        return change(tx, e, e.data.roundId, (r) => ({ cards: [...(r.cards as string[]), e.data.card] }));
      case 'UnneededCardDrawn':
        return change(tx, e, e.data.roundId, (r) => ({ unneeded_cards: [...(r.unneeded_cards as string[]), e.data.card] }));
      case 'CutCardDrawn':
        if (e.data.timing === 'DURING_DEALING' && e.data.roundId) return change(tx, e, e.data.roundId, () => ({ last_hand: true }));
        return;
      case 'RoundResulted': {
        const d = e.data;
        const rev = await setOutcome(tx, e, d.roundId, d.outcome, null, { status: 'RESULTED', resulted_at: e.occurredAt, paytable_ref: d.paytableRef });
        insertRevision(tx, e, d.roundId, rev, 'RESULTED', { outcome: d.outcome, cards: null, paytableRef: d.paytableRef, decision: null });
        return;
      }
      case 'ResultCorrected': {
        const d = e.data;
        const rev = await setOutcome(tx, e, d.roundId, d.outcome, d.cards, { status: 'CORRECTED', corrected_at: e.occurredAt, paytable_ref: d.paytableRef });
        insertRevision(tx, e, d.roundId, rev, 'CORRECTED', { outcome: d.outcome, cards: d.cards, paytableRef: d.paytableRef, decision: d.decision });
        return;
      }
      case 'RoundVoided': {
        const d = e.data;
        let revision = 0;
        await change(tx, e, d.roundId, (r) => {
          revision = (r.current_revision as number) + 1;
          return { status: 'VOIDED', void_cause: d.cause, voided_at: e.occurredAt, void_event_id: e.eventId, current_revision: revision };
        });
        insertRevision(tx, e, d.roundId, revision, 'VOIDED', {
          outcome: null,
          cards: null,
          paytableRef: null,
          decision: d.decision,
          voidCause: d.cause,
          causedBy: d.causedBy,
        });
        return;
      }
      default:
        return;
    }
  },
};

/** The events that change a round's row after its RoundOpened (the rows {@link handOutcomesProjection} preloads). */
const ROUND_EVENTS: ReadonlySet<string> = new Set(['BettingClosed', 'CardDealt', 'UnneededCardDrawn', 'CutCardDrawn', 'RoundResulted', 'ResultCorrected', 'RoundVoided']);

/** The columns of a new `hand_outcomes` row the RoundOpened does not set: the table's defaults (`1733000000000-create-read-model.ts`). */
const NEW_ROUND: Readonly<Record<string, unknown>> = {
  betting_closed: false,
  player_cards: null,
  banker_cards: null,
  player_total: null,
  banker_total: null,
  winner: null,
  is_natural: null,
  player_pair: null,
  banker_pair: null,
  last_hand: false,
  current_revision: 0,
  result_event_id: null,
  resulted_at: null,
  corrected_at: null,
  void_cause: null,
  voided_at: null,
  void_event_id: null,
};

/** The shoe's facts a round is attributed to when it opens (its `shoe_state` row at RoundOpened). */
interface ShoeFacts {
  table_id: string;
  dealer_id: string;
  currency: string;
  paytable_ref: string;
}

function inconsistent(e: LedgerEvent, message: string): ProjectionError {
  return new ProjectionError('PROJECTION.INCONSISTENT_EVENT', message, { eventId: e.eventId, type: e.type });
}

/**
 * Changes the round's row in memory (`ProjectionTx.row` / `update`: read once per transaction, or
 * held since its RoundOpened, and written once at the end; docs/architecture.md §7). `compute` sees
 * the row before the event, as an UPDATE's SET expressions would.
 * @throws ProjectionError `PROJECTION.INCONSISTENT_EVENT` when the round was never opened
 */
async function change(tx: ProjectionTx, e: LedgerEvent, roundId: string, compute: (before: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  const row = await tx.row(HAND_OUTCOMES_TABLE, 'round_id', roundId);
  if (!row) throw inconsistent(e, `${e.type} for round ${roundId}, which was never opened`);
  tx.update(row, compute(row.values));
}

/** Writes an outcome on the round's row (in memory) and bumps its revision. @returns the new revision number */
async function setOutcome(tx: ProjectionTx, e: LedgerEvent, roundId: string, o: RoundOutcomeData, cards: readonly string[] | null, extra: Record<string, unknown>): Promise<number> {
  let revision = 0;
  await change(tx, e, roundId, (r) => {
    revision = (r.current_revision as number) + 1;
    return {
      player_cards: o.player,
      banker_cards: o.banker,
      player_total: o.playerTotal,
      banker_total: o.bankerTotal,
      winner: o.winner,
      is_natural: o.natural,
      player_pair: o.playerPair,
      banker_pair: o.bankerPair,
      result_event_id: e.eventId,
      cards: cards ?? r.cards,
      current_revision: revision,
      ...extra,
    };
  });
  return revision;
}

interface RevisionFacts {
  outcome: RoundOutcomeData | null;
  cards: readonly string[] | null;
  paytableRef: string | null;
  decision: ManagementDecision | null;
  voidCause?: string;
  causedBy?: string | null;
}

/** Queues the revision row: written before the next statement (a lookup of a void's decision reads it) with the rows queued with it, in one INSERT. */
function insertRevision(tx: ProjectionTx, e: LedgerEvent, roundId: string, revision: number, kind: 'RESULTED' | 'CORRECTED' | 'VOIDED', f: RevisionFacts): void {
  const o = f.outcome;
  tx.deferInsert(HAND_OUTCOME_REVISIONS_TABLE, {
    round_id: roundId,
    revision,
    kind,
    shoe_id: shoeIdOf(e),
    table_id: e.tableId,
    cards: f.cards ?? null,
    player_cards: o ? o.player : null,
    banker_cards: o ? o.banker : null,
    player_total: o?.playerTotal ?? null,
    banker_total: o?.bankerTotal ?? null,
    winner: o?.winner ?? null,
    is_natural: o?.natural ?? null,
    player_pair: o?.playerPair ?? null,
    banker_pair: o?.bankerPair ?? null,
    paytable_ref: f.paytableRef,
    void_cause: f.voidCause ?? null,
    caused_by: f.causedBy ?? null,
    event_id: e.eventId,
    global_position: e.globalPosition,
    actor_id: e.actor.id,
    actor_role: e.actor.role,
    reason: f.decision?.reason ?? null,
    acting_manager_id: f.decision?.actingManagerId ?? null,
    approver_id: f.decision?.approverId ?? null,
    compensates: f.decision?.compensates ?? null,
    occurred_at: e.occurredAt,
    recorded_at: e.recordedAt,
  });
}
