import type { BetSettlementData, LedgerEvent, ManagementDecision } from '@ledger/events';
import { jsonRows, parseFraction, parseMinor, type Projection, ProjectionError, type ProjectionTx } from '@ledger/projections';
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
 * Each revision row carries the actor, the event compensated, and — for resettlements and
 * refunds caused by a management decision — its reason and approver.
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
  async apply(e: LedgerEvent, tx: ProjectionTx, prepared: Prepared | undefined): Promise<void> {
    const b = tx.t(BET_SETTLEMENTS_TABLE);
    switch (e.type) {
      case 'RoundResulted':
      case 'ResultCorrected':
      case 'RoundVoided':
      case 'ShoeVoided':
        rememberDecision(tx, e);
        return;
      case 'BetPlaced': {
        const d = e.data;
        const ctx = prepared!.ctx!;
        tx.deferInsert(BET_SETTLEMENTS_TABLE, {
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
        return;
      }
      case 'BetSettled': {
        // deferred: the settlements of a round (up to ~10,000) are written by one UPDATE
        tx.defer('bet-settlements:settled', e as LedgerEvent<'BetSettled'>, (items) => settleBets(tx, items));
        return;
      }
      case 'BetResettled': {
        const d = e.data;
        const m = money(d);
        const rows = await tx.query<{ revisions: number }>(
          `UPDATE ${b} SET status = 'RESETTLED', result = $2, winnings = $3, payout = $4, net = $5, dropped = $6, paytable_ref = $7,
             revision = $8, revisions = revisions + 1, correction_payout_delta = $4 - first_payout,
             settled_at = $9::timestamptz, settlement_event_id = $10
           WHERE bet_id = $1 AND status IN ('SETTLED','RESETTLED') RETURNING revisions`,
          [d.betId, d.result, m.winnings, m.payout, m.net, m.dropped, d.paytableRef, d.revision, e.occurredAt, e.eventId],
        );
        if (rows.length === 0) throw await notApplicable(tx, e, d.betId, 'SETTLED or RESETTLED');
        appendRevision(tx, e, d.betId, rows[0].revisions, 'RESETTLED', d, d.compensates, prepared!.decision ?? null);
        return;
      }
      case 'BetRefunded': {
        const d = e.data;
        const stake = parseMinor(d.stake, 'stake').toString();
        const rows = await tx.query<{ revisions: number; paytable_ref: string | null }>(
          `UPDATE ${b} SET status = 'REFUNDED', result = NULL, winnings = NULL, payout = NULL, net = NULL, dropped = NULL,
             correction_payout_delta = 0, revisions = revisions + 1, refunded_stake = $2,
             refunded_at = $3::timestamptz, refund_event_id = $4
           WHERE bet_id = $1 AND status <> 'REFUNDED' RETURNING revisions, paytable_ref`,
          [d.betId, stake, e.occurredAt, e.eventId],
        );
        if (rows.length === 0) throw await notApplicable(tx, e, d.betId, 'not REFUNDED');
        const decision = prepared!.decision ?? null;
        tx.append(BET_SETTLEMENT_REVISIONS_TABLE, {
          ...revisionBase(e, d.betId, rows[0].revisions, 'REFUNDED', d.revision, d.roundId),
          result: null,
          stake,
          winnings: null,
          payout: null,
          net: null,
          dropped: null,
          paytable_ref: rows[0].paytable_ref,
          compensates: d.compensates,
          reason: decision?.reason ?? null,
          approver_id: decision?.approverId ?? null,
        });
        return;
      }
      default:
        return;
    }
  },
};

/**
 * BetSettled × n in ONE `UPDATE … FROM json_to_recordset($1)` (one parameter, however many bets: a
 * round's ~10,000 settlements are one statement): each bet must be OPEN (settled once), then its
 * revision row is appended with the sequence number the UPDATE returns.
 */
async function settleBets(tx: ProjectionTx, events: LedgerEvent<'BetSettled'>[]): Promise<void> {
  const rows = events.map((e) => {
    const d = e.data;
    const m = money(d);
    return { bet_id: d.betId, result: d.result, winnings: m.winnings, payout: m.payout, net: m.net, dropped: m.dropped, paytable_ref: d.paytableRef, revision: d.revision, settled_at: e.occurredAt, event_id: e.eventId };
  });
  const b = tx.t(BET_SETTLEMENTS_TABLE);
  const updated = await tx.queryNow<{ bet_id: string; revisions: number }>(
    `UPDATE ${b} AS b SET status = 'SETTLED', result = v.result, winnings = v.winnings, payout = v.payout, net = v.net, dropped = v.dropped,
       paytable_ref = v.paytable_ref, revision = v.revision, revisions = b.revisions + 1, first_payout = v.payout,
       correction_payout_delta = 0, settled_at = v.settled_at, settlement_event_id = v.event_id
     FROM json_to_recordset($1::json) AS v(bet_id text, result text, winnings bigint, payout bigint, net bigint, dropped text, paytable_ref text, revision int, settled_at timestamptz, event_id text)
     WHERE b.bet_id = v.bet_id AND b.status = 'OPEN'
     RETURNING b.bet_id, b.revisions`,
    [jsonRows(rows)],
  );
  const seq = new Map(updated.map((r) => [r.bet_id, r.revisions]));
  const once = new Set<string>();
  for (const e of events) {
    const betId = e.data.betId;
    if (!seq.has(betId) || once.has(betId)) {
      // not OPEN (never placed, already settled or refunded), or settled twice in this batch
      const status = (await tx.queryNow<{ status: string }>(`SELECT status FROM ${b} WHERE bet_id = $1`, [betId]))[0]?.status ?? 'never placed';
      throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `BetSettled of bet ${betId}, which is ${once.has(betId) ? 'settled twice' : status} (expected OPEN)`, {
        eventId: e.eventId,
        betId,
      });
    }
    once.add(betId);
  }
  for (const e of events) appendRevision(tx, e, e.data.betId, seq.get(e.data.betId)!, 'SETTLED', e.data, null, null);
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

async function notApplicable(tx: ProjectionTx, e: LedgerEvent, betId: string, expected: string): Promise<ProjectionError> {
  const rows = await tx.query<{ status: string }>(`SELECT status FROM ${tx.t(BET_SETTLEMENTS_TABLE)} WHERE bet_id = $1`, [betId]);
  const actual = rows[0]?.status ?? 'never placed';
  return new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `${e.type} of bet ${betId}, which is ${actual} (expected ${expected})`, {
    eventId: e.eventId,
    betId,
    status: actual,
  });
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
