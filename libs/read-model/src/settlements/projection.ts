import type { BetSettlementData, LedgerEvent, ManagementDecision } from '@ledger/events';
import { type FoldedRow, parseFraction, parseMinor, type Projection, ProjectionError, type ProjectionTx } from '@ledger/projections';
import { roundContext, ROUND_CONTEXT_TABLE, RoundContext } from '../outcomes/round-context';
import { HAND_OUTCOME_REVISIONS_TABLE } from '../outcomes/tables';
import { BET_SETTLEMENTS_TABLE, BET_SETTLEMENT_REVISIONS_TABLE } from './tables';
import { SHOE_STATE_TABLE } from '../shoe-state/tables';

/**
 * `bet_settlements` + `bet_settlement_revisions`: one row per bet with the settlement in force,
 * and every settlement, resettlement and refund it received (docs/domain-rules.md §4, §5).
 *
 * Status: OPEN (placed) → SETTLED (BetSettled, revision 1) → RESETTLED (each BetResettled after
 * a ResultCorrected, revision n) → REFUNDED (BetRefunded after a void, from OPEN or any settled
 * state; the refund keeps the revision it ends). On a refund the money columns of the row are
 * cleared (nothing is paid out; the stake returns as `refunded_stake`); the revisions keep them.
 *
 * Attribution (round, shoe, table, dealer at RoundOpened, gaming day) is copied from the round when
 * the bet is placed. `first_payout` is the payout of the first settlement and
 * `correction_payout_delta` = payout in force − first_payout while the bet is settled.
 *
 * Each revision row carries the actor (the envelope's: who appended it), the event compensated,
 * and — for resettlements and refunds caused by a management decision — its reason, acting manager
 * (`acting_manager_id`, who requested it) and approver. In the four-eyes flow the envelope's actor
 * is the approver, so the histories name `acting_manager_id` as the actor (`queries.ts`).
 *
 * Amounts: `bigint` minor units; the event's decimal strings are checked and passed as text.
 *
 * What it needs beyond its own rows it takes from the events, and reads in `prepare` what they
 * cannot give: the round's context (`hand_outcomes`, fixed at RoundOpened), and the decision of a
 * void or correction applied in an EARLIER transaction (`hand_outcome_revisions`, `shoe_state`).
 * Decisions of this transaction come from the RoundResulted / ResultCorrected / RoundVoided /
 * ShoeVoided events themselves (see {@link decisionsOf}), so no other projection has to run first.
 */
export const betSettlementsProjection: Projection<Prepared | undefined> = {
  name: 'bet_settlements',
  tables: [
    { name: BET_SETTLEMENTS_TABLE, orderBy: 'bet_id COLLATE "C"', scope: { tableId: (p) => `table_id = ${p}`, gamingDay: (p) => `gaming_day = ${p}` } },
    {
      name: BET_SETTLEMENT_REVISIONS_TABLE,
      orderBy: 'bet_id COLLATE "C", seq',
      // no table or day of its own: those of its bet
      scope: {
        tableId: (p, t) => `bet_id IN (SELECT bet_id FROM ${t(BET_SETTLEMENTS_TABLE)} WHERE table_id = ${p})`,
        gamingDay: (p, t) => `bet_id IN (SELECT bet_id FROM ${t(BET_SETTLEMENTS_TABLE)} WHERE gaming_day = ${p})`,
      },
    },
  ],
  reads: [ROUND_CONTEXT_TABLE, HAND_OUTCOME_REVISIONS_TABLE, SHOE_STATE_TABLE],
  async prepare(e: LedgerEvent, tx: ProjectionTx): Promise<Prepared | undefined> {
    switch (e.type) {
      case 'BetPlaced':
        return { ctx: await roundContext(tx, e.data.roundId) };
      case 'BetResettled':
        return { decision: await latestRoundDecision(tx, e.data.roundId) };
      case 'BetRefunded':
        return { decision: await decisionOf(tx, e.data.compensates) };
      default:
        return undefined;
    }
  },
  async preload(events: readonly LedgerEvent[], tx: ProjectionTx): Promise<void> {
    await tx.preload(BET_SETTLEMENTS_TABLE, 'bet_id', settledBetIds(events));
  },
  async apply(e: LedgerEvent, tx: ProjectionTx, prepared: Prepared | undefined): Promise<void> {
    switch (e.type) {
      case 'RoundResulted':
      case 'ResultCorrected':
      case 'RoundVoided':
      case 'ShoeVoided':
        rememberDecision(tx, e);
        return;
      case 'BetPlaced':
        return placeBet(tx, e as LedgerEvent<'BetPlaced'>, prepared!.ctx!);
      case 'BetSettled':
        return settleBet(tx, e as LedgerEvent<'BetSettled'>);
      case 'BetResettled':
        return resettleBet(tx, e as LedgerEvent<'BetResettled'>, prepared!.decision ?? null);
      case 'BetRefunded':
        return refundBet(tx, e as LedgerEvent<'BetRefunded'>, prepared!.decision ?? null);
      default:
        return;
    }
  },
};

/**
 * BetPlaced: the bet's row, in memory (`ProjectionTx.createRow`): INSERTed with the transaction's
 * other new bets in one statement, and settled there when its BetSettled is in the same transaction.
 */
function placeBet(tx: ProjectionTx, e: LedgerEvent<'BetPlaced'>, ctx: RoundContext): void {
  const d = e.data;
  tx.createRow(BET_SETTLEMENTS_TABLE, 'bet_id', {
    ...NEW_BET,
    bet_id: d.betId,
    round_id: d.roundId,
    shoe_id: ctx.shoeId,
    table_id: ctx.tableId,
    dealer_id: ctx.dealerId,
    gaming_day: ctx.gamingDay,
    account_id: d.accountId,
    bet_code: d.betCode,
    currency: d.currency,
    stake: parseMinor(d.stake, 'stake').toString(),
    status: 'OPEN',
    placed_at: e.occurredAt,
    placed_event_id: e.eventId,
  });
}

/** BetSettled: an OPEN bet settled (revision row SETTLED). @throws ProjectionError when it is not OPEN */
async function settleBet(tx: ProjectionTx, e: LedgerEvent<'BetSettled'>): Promise<void> {
  const d = e.data;
  const m = money(d);
  const row = await betRow(tx, e, d.betId, (s) => s === 'OPEN', 'OPEN');
  const seq = (row.values.revisions as number) + 1;
  tx.update(row, {
    status: 'SETTLED',
    result: d.result,
    ...moneyColumns(m),
    paytable_ref: d.paytableRef,
    revision: d.revision,
    revisions: seq,
    first_payout: m.payout,
    correction_payout_delta: '0',
    settled_at: e.occurredAt,
    settlement_event_id: e.eventId,
  });
  appendRevision(tx, e, d.betId, seq, 'SETTLED', d, null, null);
}

/** BetResettled: a settled bet's settlement replaced (revision row RESETTLED). @throws ProjectionError when it is not settled */
async function resettleBet(tx: ProjectionTx, e: LedgerEvent<'BetResettled'>, decision: ManagementDecision | null): Promise<void> {
  const d = e.data;
  const m = money(d);
  const row = await betRow(tx, e, d.betId, (s) => s === 'SETTLED' || s === 'RESETTLED', 'SETTLED or RESETTLED');
  const seq = (row.values.revisions as number) + 1;
  tx.update(row, {
    status: 'RESETTLED',
    result: d.result,
    ...moneyColumns(m),
    paytable_ref: d.paytableRef,
    revision: d.revision,
    revisions: seq,
    correction_payout_delta: (BigInt(m.payout) - BigInt(String(row.values.first_payout))).toString(),
    settled_at: e.occurredAt,
    settlement_event_id: e.eventId,
  });
  appendRevision(tx, e, d.betId, seq, 'RESETTLED', d, d.compensates, decision);
}

/** BetRefunded: the stake returned, the money columns cleared (revision row REFUNDED). @throws ProjectionError when already refunded */
async function refundBet(tx: ProjectionTx, e: LedgerEvent<'BetRefunded'>, decision: ManagementDecision | null): Promise<void> {
  const d = e.data;
  const stake = parseMinor(d.stake, 'stake').toString();
  const row = await betRow(tx, e, d.betId, (s) => s !== 'REFUNDED', 'not REFUNDED');
  const seq = (row.values.revisions as number) + 1;
  tx.update(row, {
    status: 'REFUNDED',
    result: null,
    winnings: null,
    payout: null,
    net: null,
    dropped: null,
    correction_payout_delta: '0',
    revisions: seq,
    refunded_stake: stake,
    refunded_at: e.occurredAt,
    refund_event_id: e.eventId,
  });
  tx.append(BET_SETTLEMENT_REVISIONS_TABLE, {
    ...revisionBase(e, d.betId, seq, 'REFUNDED', d.revision, d.roundId),
    result: null,
    stake,
    winnings: null,
    payout: null,
    net: null,
    dropped: null,
    paytable_ref: row.values.paytable_ref ?? null,
    compensates: d.compensates,
    reason: decision?.reason ?? null,
    acting_manager_id: decision?.actingManagerId || null,
    approver_id: decision?.approverId ?? null,
  });
}

/** The columns of a new `bet_settlements` row the BetPlaced does not set: the table's defaults (`1733000000000-create-read-model.ts`). */
const NEW_BET: Readonly<Record<string, unknown>> = {
  result: null,
  winnings: null,
  payout: null,
  net: null,
  dropped: null,
  paytable_ref: null,
  revision: 0,
  revisions: 0,
  first_payout: null,
  correction_payout_delta: '0',
  refunded_stake: null,
  settled_at: null,
  refunded_at: null,
  settlement_event_id: null,
  refund_event_id: null,
};

/** The bets whose rows a batch's settlements, resettlements and refunds change (placed in an earlier batch or this one). */
export function settledBetIds(events: readonly LedgerEvent[]): string[] {
  const ids: string[] = [];
  for (const e of events) if (e.type === 'BetSettled' || e.type === 'BetResettled' || e.type === 'BetRefunded') ids.push(e.data.betId);
  return ids;
}

/**
 * The bet's row, held in memory for the transaction (`ProjectionTx.row`: preloaded for the batch,
 * or created by its BetPlaced), when its status allows the event.
 * @throws ProjectionError `PROJECTION.INCONSISTENT_EVENT` (details: eventId, betId, status) when the
 *   bet was never placed or its status does not allow the event (e.g. settled twice)
 */
async function betRow(tx: ProjectionTx, e: LedgerEvent, betId: string, allowed: (status: string) => boolean, expected: string): Promise<FoldedRow> {
  const row = await tx.row(BET_SETTLEMENTS_TABLE, 'bet_id', betId);
  const status = row ? String(row.values.status) : 'never placed';
  if (!row || !allowed(status)) {
    throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `${e.type} of bet ${betId}, which is ${status} (expected ${expected})`, { eventId: e.eventId, betId, status });
  }
  return row;
}

/** The money columns of a settlement's row. */
function moneyColumns(m: ReturnType<typeof money>): Record<string, string> {
  return { winnings: m.winnings, payout: m.payout, net: m.net, dropped: m.dropped };
}

/** Checked money fields of a settlement, as decimal strings for SQL. */
function money(d: BetSettlementData) {
  parseFraction(d.dropped); // PROJECTION.BAD_AMOUNT unless "num/den" or an integer
  return {
    stake: parseMinor(d.stake, 'stake').toString(),
    winnings: parseMinor(d.winnings, 'winnings').toString(),
    payout: parseMinor(d.payout, 'payout').toString(),
    net: parseMinor(d.net, 'net').toString(),
    dropped: d.dropped,
  };
}

function revisionBase(e: LedgerEvent, betId: string, seq: number, kind: string, revision: number, roundId: string) {
  return {
    bet_id: betId,
    seq,
    kind,
    revision,
    round_id: roundId,
    event_id: e.eventId,
    global_position: e.globalPosition,
    actor_id: e.actor.id,
    actor_role: e.actor.role,
    cause_event_id: e.causationId,
    occurred_at: e.occurredAt,
  };
}

function appendRevision(tx: ProjectionTx, e: LedgerEvent, betId: string, seq: number, kind: 'SETTLED' | 'RESETTLED', d: BetSettlementData, compensates: string | null, decision: ManagementDecision | null): void {
  const m = money(d);
  tx.append(BET_SETTLEMENT_REVISIONS_TABLE, {
    ...revisionBase(e, betId, seq, kind, d.revision, d.roundId),
    result: d.result,
    stake: m.stake,
    winnings: m.winnings,
    payout: m.payout,
    net: m.net,
    dropped: m.dropped,
    paytable_ref: d.paytableRef,
    compensates,
    reason: decision?.reason ?? null,
    acting_manager_id: decision?.actingManagerId || null,
    approver_id: decision?.approverId ?? null,
  });
}

/** What {@link betSettlementsProjection} reads before an event. */
interface Prepared {
  /** The round's context (BetPlaced). */
  readonly ctx?: RoundContext;
  /** The decision behind a resettlement or refund, if any. */
  readonly decision?: ManagementDecision | null;
}

/** Decisions seen in one transaction's events: by decision eventId, and the latest of each round. */
interface DecisionMemo {
  readonly byEvent: Map<string, ManagementDecision | null>;
  readonly latestOfRound: Map<string, ManagementDecision | null>;
}

const MEMOS = new WeakMap<ProjectionTx, DecisionMemo>();

/** This projection's own memo for `tx` (private to this module: no other projection writes it). */
function decisionsOf(tx: ProjectionTx): DecisionMemo {
  let m = MEMOS.get(tx);
  if (!m) MEMOS.set(tx, (m = { byEvent: new Map(), latestOfRound: new Map() }));
  return m;
}

/**
 * Remembers the decision an event carries, for the resettlements and refunds that follow it in the
 * transaction (the same facts `hand_outcome_revisions` records): a round's latest revision
 * (RESULTED: none; CORRECTED or VOIDED: its decision), and a void's decision by its eventId — an
 * automatic void caused by a shoe void takes the ShoeVoided's.
 */
function rememberDecision(tx: ProjectionTx, e: LedgerEvent): void {
  const m = decisionsOf(tx);
  switch (e.type) {
    case 'RoundResulted':
      m.latestOfRound.set(e.data.roundId, null);
      return;
    case 'ResultCorrected':
      m.latestOfRound.set(e.data.roundId, e.data.decision);
      return;
    case 'ShoeVoided':
      m.byEvent.set(e.eventId, e.data.decision);
      return;
    case 'RoundVoided': {
      const d = e.data;
      m.latestOfRound.set(d.roundId, d.decision);
      if (d.decision) m.byEvent.set(e.eventId, d.decision);
      else if (d.causedBy && m.byEvent.has(d.causedBy)) m.byEvent.set(e.eventId, m.byEvent.get(d.causedBy)!);
      else if (d.cause !== 'SHOE_VOIDED') m.byEvent.set(e.eventId, null);
      // else: the ShoeVoided was applied in an earlier transaction: left to decisionOf's lookup
      return;
    }
    default:
      return;
  }
}

/**
 * The management decision behind a RoundVoided / ShoeVoided `eventId`, if any: the void's own
 * decision, or for a round voided with its shoe (cause SHOE_VOIDED) the ShoeVoided's. From this
 * transaction's events, else (an earlier transaction) from `hand_outcome_revisions` / `shoe_state`.
 */
async function decisionOf(tx: ProjectionTx, eventId: string): Promise<ManagementDecision | null> {
  const m = decisionsOf(tx).byEvent;
  if (m.has(eventId)) return m.get(eventId)!;
  const rows = await tx.query<DecisionRow>(
    `SELECT coalesce(r.reason, s.void_reason) AS reason, coalesce(r.acting_manager_id, s.void_actor_id) AS acting_manager_id,
            coalesce(r.approver_id, s.void_approver_id) AS approver_id, coalesce(r.compensates, s.void_event_id) AS compensates
     FROM ${tx.t(HAND_OUTCOME_REVISIONS_TABLE)} r LEFT JOIN ${tx.t(SHOE_STATE_TABLE)} s ON s.void_event_id = r.caused_by
     WHERE r.event_id = $1
     UNION ALL
     SELECT void_reason, void_actor_id, void_approver_id, NULL FROM ${tx.t(SHOE_STATE_TABLE)} WHERE void_event_id = $1
     LIMIT 1`,
    [eventId],
  );
  const decision = toDecision(rows[0]);
  m.set(eventId, decision);
  return decision;
}

interface DecisionRow {
  reason: string | null;
  acting_manager_id: string | null;
  approver_id: string | null;
  compensates: string | null;
}

function toDecision(r: DecisionRow | undefined): ManagementDecision | null {
  if (!r || r.reason === null) return null;
  return { reason: r.reason, actingManagerId: r.acting_manager_id ?? '', approverId: r.approver_id ?? '', compensates: r.compensates ?? '' };
}

/**
 * The decision of the round's latest revision (the ResultCorrected a resettlement follows): from
 * this transaction's events, else from `hand_outcome_revisions`.
 */
async function latestRoundDecision(tx: ProjectionTx, roundId: string): Promise<ManagementDecision | null> {
  const m = decisionsOf(tx).latestOfRound;
  if (m.has(roundId)) return m.get(roundId)!;
  const rows = await tx.query<DecisionRow>(
    `SELECT reason, acting_manager_id, approver_id, compensates FROM ${tx.t(HAND_OUTCOME_REVISIONS_TABLE)}
     WHERE round_id = $1 ORDER BY revision DESC LIMIT 1`,
    [roundId],
  );
  const decision = toDecision(rows[0]);
  m.set(roundId, decision);
  return decision;
}
