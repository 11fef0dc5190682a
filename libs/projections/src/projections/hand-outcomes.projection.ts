import type { LedgerEvent, ManagementDecision, RoundOutcomeData } from '@ledger/events';
import { ProjectionError } from '../errors';
import { shoeIdOf } from '../event-record';
import { gamingDay } from '../gaming-day';
import type { ProjectionTx } from '../projection-tx';
import type { Projection } from './projection';

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
    { name: 'hand_outcomes', orderBy: 'round_id COLLATE "C"' },
    { name: 'hand_outcome_revisions', orderBy: 'round_id COLLATE "C", revision' },
  ],
  reads: ['shoe_state'],
  async prepare(e: LedgerEvent, tx: ProjectionTx): Promise<ShoeFacts | undefined> {
    if (e.type !== 'RoundOpened') return undefined;
    // the shoe's row as the transaction holds it (shoe_state folds its changes in memory)
    const row = await tx.row('shoe_state', 'shoe_id', shoeIdOf(e));
    if (!row) throw inconsistent(e, `RoundOpened in shoe ${shoeIdOf(e)}, which was never opened`);
    const v = row.values as unknown as ShoeFacts;
    return { table_id: v.table_id, dealer_id: v.dealer_id, currency: v.currency, paytable_ref: v.paytable_ref };
  },
  async apply(e: LedgerEvent, tx: ProjectionTx, shoe: ShoeFacts | undefined): Promise<void> {
    const h = tx.t('hand_outcomes');
    switch (e.type) {
      case 'RoundOpened': {
        const s = shoe!;
        // the ledger's time of the opening, never the client's occurredAt (docs/domain-rules.md §7)
        await tx.query(
          `INSERT INTO ${h} (round_id, shoe_id, table_id, hand_number, dealer_id, dealing_dealer_id, gaming_day, currency, paytable_ref, opened_at, status)
           VALUES ($1, $2, $3, $4, $5, $5, $6::date, $7, $8, $9::timestamptz, 'OPEN')`,
          [e.data.roundId, shoeIdOf(e), s.table_id, e.data.handNumber, s.dealer_id, gamingDay(e.recordedAt, tx.gamingDayConfig), s.currency, s.paytable_ref, e.occurredAt],
        );
        return;
      }
      case 'BettingClosed':
        return touch(tx, e, e.data.roundId, `betting_closed = true`, []);
      case 'DealerChanged':
        // the dealer who takes over while bets are open deals that round
        await tx.query(`UPDATE ${h} SET dealing_dealer_id = $2 WHERE shoe_id = $1 AND status = 'OPEN' AND NOT betting_closed`, [
          shoeIdOf(e),
          e.data.dealerId,
        ]);
        return;
      case 'CardDealt':
        // deferred: consecutive cards (of any rounds) are appended by one statement
        tx.defer('hand-outcomes:card-dealt', { roundId: e.data.roundId, card: e.data.card, eventId: e.eventId }, (items) => appendCards(tx, items));
        return;
      case 'UnneededCardDrawn':
        return touch(tx, e, e.data.roundId, `unneeded_cards = unneeded_cards || jsonb_build_array($2::text)`, [e.data.card]);
      case 'CutCardDrawn':
        if (e.data.timing === 'DURING_DEALING' && e.data.roundId) return touch(tx, e, e.data.roundId, `last_hand = true`, []);
        return;
      case 'RoundResulted': {
        const d = e.data;
        const rev = await setOutcome(tx, e, d.roundId, d.outcome, null, `status = 'RESULTED', resulted_at = $12::timestamptz, paytable_ref = $13`, [e.occurredAt, d.paytableRef]);
        await insertRevision(tx, e, d.roundId, rev, 'RESULTED', { outcome: d.outcome, cards: null, paytableRef: d.paytableRef, decision: null });
        return;
      }
      case 'ResultCorrected': {
        const d = e.data;
        const rev = await setOutcome(tx, e, d.roundId, d.outcome, d.cards, `status = 'CORRECTED', corrected_at = $12::timestamptz, paytable_ref = $13`, [
          e.occurredAt,
          d.paytableRef,
        ]);
        await insertRevision(tx, e, d.roundId, rev, 'CORRECTED', { outcome: d.outcome, cards: d.cards, paytableRef: d.paytableRef, decision: d.decision });
        return;
      }
      case 'RoundVoided': {
        const d = e.data;
        const rows = await tx.query<{ current_revision: number }>(
          `UPDATE ${h} SET status = 'VOIDED', void_cause = $2, voided_at = $3::timestamptz, void_event_id = $4, current_revision = current_revision + 1
           WHERE round_id = $1 RETURNING current_revision`,
          [d.roundId, d.cause, e.occurredAt, e.eventId],
        );
        if (rows.length === 0) throw inconsistent(e, `RoundVoided of round ${d.roundId}, which was never opened`);
        await insertRevision(tx, e, d.roundId, rows[0].current_revision, 'VOIDED', {
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

/** Appends dealt cards to their rounds, in order, with one UPDATE. */
async function appendCards(tx: ProjectionTx, items: { roundId: string; card: string; eventId: string }[]): Promise<void> {
  const perRound = new Map<string, string[]>();
  for (const it of items) perRound.set(it.roundId, [...(perRound.get(it.roundId) ?? []), it.card]);
  const params: unknown[] = [];
  const values = [...perRound].map(([roundId, cards]) => `($${params.push(roundId)}::text, $${params.push(JSON.stringify(cards))}::jsonb)`);
  const rows = await tx.queryNow<{ round_id: string }>(
    `UPDATE ${tx.t('hand_outcomes')} h SET cards = h.cards || v.cards FROM (VALUES ${values.join(',')}) AS v(round_id, cards)
     WHERE h.round_id = v.round_id RETURNING h.round_id`,
    params,
  );
  if (rows.length !== perRound.size) {
    const found = new Set(rows.map((r) => r.round_id));
    const missing = items.find((it) => !found.has(it.roundId))!;
    throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `CardDealt for round ${missing.roundId}, which was never opened`, { eventId: missing.eventId });
  }
}

async function touch(tx: ProjectionTx, e: LedgerEvent, roundId: string, set: string, params: unknown[]): Promise<void> {
  const rows = await tx.query(`UPDATE ${tx.t('hand_outcomes')} SET ${set} WHERE round_id = $1 RETURNING 1`, [roundId, ...params]);
  if (rows.length === 0) throw inconsistent(e, `${e.type} for round ${roundId}, which was never opened`);
}

/** Writes an outcome on the round's row and bumps its revision. @returns the new revision number */
async function setOutcome(
  tx: ProjectionTx,
  e: LedgerEvent,
  roundId: string,
  o: RoundOutcomeData,
  cards: readonly string[] | null,
  extraSet: string,
  extraParams: unknown[],
): Promise<number> {
  const rows = await tx.query<{ current_revision: number }>(
    `UPDATE ${tx.t('hand_outcomes')} SET
       player_cards = $2::jsonb, banker_cards = $3::jsonb, player_total = $4, banker_total = $5, winner = $6,
       is_natural = $7, player_pair = $8, banker_pair = $9, result_event_id = $10,
       cards = coalesce($11::jsonb, cards), current_revision = current_revision + 1, ${extraSet}
     WHERE round_id = $1 RETURNING current_revision`,
    [
      roundId,
      JSON.stringify(o.player),
      JSON.stringify(o.banker),
      o.playerTotal,
      o.bankerTotal,
      o.winner,
      o.natural,
      o.playerPair,
      o.bankerPair,
      e.eventId,
      cards ? JSON.stringify(cards) : null,
      ...extraParams,
    ],
  );
  if (rows.length === 0) throw inconsistent(e, `${e.type} for round ${roundId}, which was never opened`);
  return rows[0].current_revision;
}

interface RevisionFacts {
  outcome: RoundOutcomeData | null;
  cards: readonly string[] | null;
  paytableRef: string | null;
  decision: ManagementDecision | null;
  voidCause?: string;
  causedBy?: string | null;
}

async function insertRevision(tx: ProjectionTx, e: LedgerEvent, roundId: string, revision: number, kind: 'RESULTED' | 'CORRECTED' | 'VOIDED', f: RevisionFacts): Promise<void> {
  const o = f.outcome;
  // written now, not deferred: one row per revision, rare next to cards and bets
  await tx.query(
    `INSERT INTO ${tx.t('hand_outcome_revisions')} (round_id, revision, kind, shoe_id, table_id, cards, player_cards, banker_cards,
       player_total, banker_total, winner, is_natural, player_pair, banker_pair, paytable_ref, void_cause, caused_by,
       event_id, global_position, actor_id, actor_role, reason, acting_manager_id, approver_id, compensates, occurred_at, recorded_at)
     VALUES ($1,$2,$3,$4,$5,$6::jsonb,$7::jsonb,$8::jsonb,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26::timestamptz,$27::timestamptz)`,
    [
      roundId,
      revision,
      kind,
      shoeIdOf(e),
      e.tableId,
      f.cards ? JSON.stringify(f.cards) : null,
      o ? JSON.stringify(o.player) : null,
      o ? JSON.stringify(o.banker) : null,
      o?.playerTotal ?? null,
      o?.bankerTotal ?? null,
      o?.winner ?? null,
      o?.natural ?? null,
      o?.playerPair ?? null,
      o?.bankerPair ?? null,
      f.paytableRef,
      f.voidCause ?? null,
      f.causedBy ?? null,
      e.eventId,
      e.globalPosition,
      e.actor.id,
      e.actor.role,
      f.decision?.reason ?? null,
      f.decision?.actingManagerId ?? null,
      f.decision?.approverId ?? null,
      f.decision?.compensates ?? null,
      e.occurredAt,
      e.recordedAt,
    ],
  );
}
