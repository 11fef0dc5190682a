import type { AffectedBet, DecisionApprovedData, DecisionExpiredData, DecisionKind, DecisionProposal, DecisionRejectedData, DecisionRequestedData, Evidence, NewEvent } from '@ledger/events';
import { decide } from '../decide';
import { checkReason } from '../decide/guards';
import { DomainError } from '../errors';
import type { DecideContext, ShoeCommand } from '../commands';
import { betSettlement, findRound, type DecisionRecord, type ShoeState } from '../state';

/**
 * The four-eyes flow (docs/domain-rules.md §6), pure like `decide`: a management decision is
 * *requested* by one pit manager and takes effect only when a *different* pit manager *approves*
 * it with their own credentials. Neither may be the dealer of any round the decision concerns
 * (for a shoe void: of any round of the shoe). The compensating events are produced by `decide`
 * from the management command at approval time, from the shoe as it then stands, and name the
 * decision and both managers.
 *
 * Times are ISO-8601 strings of the ledger's clock, passed in by the caller (no clock here).
 */

/** What a pit manager asks for; cards in card notation (`9S`, `TH`, `10H`). */
export interface DecisionRequestInput {
  readonly kind: DecisionKind;
  readonly roundId?: string | null;
  readonly cards?: readonly string[] | null;
  readonly card?: string | null;
}

/** Commands of the four-eyes flow. `now` and `expiresAt` are ISO-8601 ledger times. */
export type DecisionCommand =
  | {
      readonly type: 'RequestDecision';
      readonly decisionId: string;
      readonly request: DecisionRequestInput;
      readonly reason: string;
      readonly requestedBy: string;
      readonly expiresAt: string;
      /** The requester's video evidence (docs/reports.md §7), checked at the edge; carried onto the compensating events. */
      readonly evidence?: Evidence;
    }
  | { readonly type: 'ApproveDecision'; readonly decisionId: string; readonly approvedBy: string; readonly reason: string | null; readonly now: string; readonly evidence?: Evidence }
  | { readonly type: 'RejectDecision'; readonly decisionId: string; readonly rejectedBy: string; readonly reason: string; readonly now: string; readonly evidence?: Evidence }
  | { readonly type: 'ExpireDecision'; readonly decisionId: string; readonly now: string };

/** A decision of the shoe by id. */
export function findDecision(state: ShoeState, decisionId: string): DecisionRecord | undefined {
  return state.decisions.find((d) => d.decisionId === decisionId);
}

/** The decision's status at `now` (a pending decision past its expiry counts as EXPIRED). */
export function decisionStatusAt(d: DecisionRecord, now: string): DecisionRecord['status'] {
  return d.status === 'PENDING_APPROVAL' && Date.parse(now) >= Date.parse(d.expiresAt) ? 'EXPIRED' : d.status;
}

/**
 * Decides a four-eyes command against the shoe.
 * - RequestDecision → `[DecisionRequested]` after a dry run of the management command (so a
 *   request that could never take effect is refused at once), with the bets it would change.
 * - ApproveDecision → `[DecisionApproved, ...compensating events]`.
 * - RejectDecision → `[DecisionRejected]`; ExpireDecision → `[DecisionExpired]`.
 * @throws DomainError `SHOE.NOT_FOUND`, `MANAGEMENT.REASON_REQUIRED`, `DECISION.NOT_FOUND`,
 *   `DECISION.DUPLICATE_ID`, `DECISION.ALREADY_PENDING`, `DECISION.ALREADY_DECIDED`,
 *   `DECISION.EXPIRED`, `DECISION.NOT_EXPIRED`, `MANAGEMENT.SAME_APPROVER` (the requester approving
 *   or rejecting their own request), `MANAGEMENT.DEALER_CANNOT_DECIDE`, and every refusal of the
 *   management command itself (`ROUND.NOT_RESULTED`, `TABLEAU.VIOLATION`, …).
 */
export function decideDecision(state: ShoeState, cmd: DecisionCommand, ctx: DecideContext): NewEvent[] {
  if (state.status === 'NONE') throw new DomainError('SHOE.NOT_FOUND', 'no shoe has been opened on this stream');
  switch (cmd.type) {
    case 'RequestDecision':
      return requestDecision(state, cmd, ctx);
    case 'ApproveDecision':
      return approveDecision(state, cmd, ctx);
    case 'RejectDecision':
      return rejectDecision(state, cmd, ctx);
    case 'ExpireDecision':
      return expireDecision(state, cmd, ctx);
  }
}

function requestDecision(s: ShoeState, cmd: Extract<DecisionCommand, { type: 'RequestDecision' }>, ctx: DecideContext): NewEvent[] {
  const reason = checkReason(cmd.reason, 'MANAGEMENT.REASON_REQUIRED');
  if (findDecision(s, cmd.decisionId)) {
    throw new DomainError('DECISION.DUPLICATE_ID', `decision ${cmd.decisionId} already exists`, { decisionId: cmd.decisionId });
  }
  const proposal = normalise(cmd.request);
  const pending = s.decisions.find((d) => d.status === 'PENDING_APPROVAL' && sameTarget(d.proposal, proposal));
  if (pending) {
    throw new DomainError('DECISION.ALREADY_PENDING', `decision ${pending.decisionId} on the same target awaits approval`, { decisionId: pending.decisionId });
  }
  const { roundIds, dealerIds } = concerned(s, proposal);
  if (dealerIds.includes(cmd.requestedBy)) {
    throw new DomainError('MANAGEMENT.DEALER_CANNOT_DECIDE', `${cmd.requestedBy} dealt a round this decision concerns`, { managerId: cmd.requestedBy });
  }
  // Dry run with a stand-in approver: refuses now what could never take effect, and tells what would change.
  const dryRun = decide(s, managementCommand(proposal, reason, cmd.requestedBy, '\u0000approver', cmd.decisionId, cmd.evidence), ctx);
  const data: DecisionRequestedData = {
    decisionId: cmd.decisionId,
    proposal,
    reason,
    requestedBy: cmd.requestedBy,
    expiresAt: cmd.expiresAt,
    roundIds,
    dealerIds,
    affectedBets: affectedBets(s, dryRun),
    ...(cmd.evidence ? { evidence: cmd.evidence } : {}),
  };
  return [{ eventId: ctx.newId(), type: 'DecisionRequested', data }];
}

function approveDecision(s: ShoeState, cmd: Extract<DecisionCommand, { type: 'ApproveDecision' }>, ctx: DecideContext): NewEvent[] {
  const d = requirePending(s, cmd.decisionId, cmd.now);
  if (cmd.approvedBy === d.requestedBy) {
    throw new DomainError('MANAGEMENT.SAME_APPROVER', 'the approving manager must differ from the requesting one', { decisionId: d.decisionId, managerId: cmd.approvedBy });
  }
  // The dealers as recorded at the request and as the shoe stands now (a round may have changed hands since).
  const dealers = new Set([...d.dealerIds, ...concerned(s, d.proposal).dealerIds]);
  if (dealers.has(cmd.approvedBy)) {
    throw new DomainError('MANAGEMENT.DEALER_CANNOT_DECIDE', `${cmd.approvedBy} dealt a round this decision concerns`, { decisionId: d.decisionId, managerId: cmd.approvedBy });
  }
  const remark = cmd.reason === null || cmd.reason === undefined || cmd.reason.trim() === '' ? null : checkReason(cmd.reason, 'MANAGEMENT.REASON_REQUIRED');
  const effect = decide(s, managementCommand(d.proposal, d.reason, d.requestedBy, cmd.approvedBy, d.decisionId, d.evidence), ctx);
  const data: DecisionApprovedData = { decisionId: d.decisionId, approvedBy: cmd.approvedBy, requestedBy: d.requestedBy, reason: remark, ...(cmd.evidence ? { evidence: cmd.evidence } : {}) };
  return [{ eventId: ctx.newId(), type: 'DecisionApproved', data }, ...effect];
}

function rejectDecision(s: ShoeState, cmd: Extract<DecisionCommand, { type: 'RejectDecision' }>, ctx: DecideContext): NewEvent[] {
  const d = requirePending(s, cmd.decisionId, cmd.now);
  const reason = checkReason(cmd.reason, 'MANAGEMENT.REASON_REQUIRED');
  if (cmd.rejectedBy === d.requestedBy) {
    throw new DomainError('MANAGEMENT.SAME_APPROVER', 'a second manager decides on a request, not its requester', { decisionId: d.decisionId, managerId: cmd.rejectedBy });
  }
  const data: DecisionRejectedData = { decisionId: d.decisionId, rejectedBy: cmd.rejectedBy, requestedBy: d.requestedBy, reason, ...(cmd.evidence ? { evidence: cmd.evidence } : {}) };
  return [{ eventId: ctx.newId(), type: 'DecisionRejected', data }];
}

function expireDecision(s: ShoeState, cmd: Extract<DecisionCommand, { type: 'ExpireDecision' }>, ctx: DecideContext): NewEvent[] {
  const d = requireDecision(s, cmd.decisionId);
  if (d.status !== 'PENDING_APPROVAL') throw alreadyDecided(d);
  if (Date.parse(cmd.now) < Date.parse(d.expiresAt)) {
    throw new DomainError('DECISION.NOT_EXPIRED', `decision ${d.decisionId} expires at ${d.expiresAt}`, { decisionId: d.decisionId, expiresAt: d.expiresAt });
  }
  const data: DecisionExpiredData = { decisionId: d.decisionId, requestedBy: d.requestedBy, expiresAt: d.expiresAt };
  return [{ eventId: ctx.newId(), type: 'DecisionExpired', data }];
}

// ---------------------------------------------------------------------------------------------

/** The management command a proposal stands for, with both managers and the decision named. */
function managementCommand(p: DecisionProposal, reason: string, requestedBy: string, approvedBy: string, decisionId: string, evidence?: Evidence): ShoeCommand {
  const decision = { reason, actingManagerId: requestedBy, approverId: approvedBy, decisionId, ...(evidence ? { evidence } : {}) };
  switch (p.kind) {
    case 'VOID_ROUND':
      return { type: 'VoidRound', roundId: p.roundId as string, decision };
    case 'CORRECT_RESULT':
      return { type: 'CorrectResult', roundId: p.roundId as string, cards: p.cards ?? [], decision };
    case 'VOID_SHOE':
      return { type: 'VoidShoe', decision };
    case 'CORRECT_COMMENCEMENT':
      return { type: 'CorrectCommencement', card: p.card as string, reason, decision };
  }
}

function normalise(r: DecisionRequestInput): DecisionProposal {
  const kind = r?.kind;
  const needsRound = kind === 'VOID_ROUND' || kind === 'CORRECT_RESULT';
  if (kind !== 'VOID_ROUND' && kind !== 'CORRECT_RESULT' && kind !== 'VOID_SHOE' && kind !== 'CORRECT_COMMENCEMENT') {
    throw new DomainError('COMMAND.INVALID', 'unknown decision kind', { field: 'kind' });
  }
  if (needsRound && (typeof r.roundId !== 'string' || r.roundId === '')) throw new DomainError('COMMAND.INVALID', 'roundId is required', { field: 'roundId' });
  if (kind === 'CORRECT_RESULT' && !Array.isArray(r.cards)) throw new DomainError('COMMAND.INVALID', 'cards must be a list of cards in dealing order', { field: 'cards' });
  if (kind === 'CORRECT_COMMENCEMENT' && (typeof r.card !== 'string' || r.card === '')) throw new DomainError('COMMAND.INVALID', 'card is required', { field: 'card' });
  return {
    kind,
    roundId: needsRound ? (r.roundId as string) : null,
    cards: kind === 'CORRECT_RESULT' ? [...(r.cards as string[])] : null,
    card: kind === 'CORRECT_COMMENCEMENT' ? (r.card as string) : null,
  };
}

function sameTarget(a: DecisionProposal, b: DecisionProposal): boolean {
  if (a.kind === 'VOID_SHOE' || b.kind === 'VOID_SHOE') return a.kind === b.kind;
  if (a.kind === 'CORRECT_COMMENCEMENT' || b.kind === 'CORRECT_COMMENCEMENT') return a.kind === b.kind;
  return a.roundId === b.roundId;
}

/** Rounds a proposal concerns and their dealers (for a shoe void: every round; plus the shoe's dealer). */
function concerned(s: ShoeState, p: DecisionProposal): { roundIds: string[]; dealerIds: string[] } {
  const dealers = new Set<string>();
  const roundIds: string[] = [];
  if (p.kind === 'VOID_SHOE' || p.kind === 'CORRECT_COMMENCEMENT') {
    if (s.dealerId) dealers.add(s.dealerId);
    if (p.kind === 'VOID_SHOE') {
      for (const r of s.rounds) {
        dealers.add(r.dealerId);
        if (r.phase !== 'VOIDED') roundIds.push(r.roundId);
      }
    }
  } else {
    const round = p.roundId ? findRound(s, p.roundId) : undefined;
    if (!round) throw new DomainError('ROUND.NOT_FOUND', `no round ${p.roundId} in this shoe`, { roundId: p.roundId });
    dealers.add(round.dealerId);
    roundIds.push(round.roundId);
  }
  return { roundIds, dealerIds: [...dealers].sort() };
}

/** The bets a dry run of the management command refunds or re-settles. */
function affectedBets(s: ShoeState, events: readonly NewEvent[]): AffectedBet[] {
  const out: AffectedBet[] = [];
  for (const e of events) {
    if (e.type === 'BetRefunded') {
      const round = findRound(s, e.data.roundId);
      out.push({
        betId: e.data.betId,
        roundId: e.data.roundId,
        accountId: e.data.accountId,
        betCode: e.data.betCode,
        currency: e.data.currency,
        stake: e.data.stake,
        effect: 'REFUND',
        payoutAfter: e.data.stake,
        replaces: round ? (betSettlement(round, e.data.betId)?.eventId ?? null) : null,
      });
    } else if (e.type === 'BetResettled') {
      out.push({
        betId: e.data.betId,
        roundId: e.data.roundId,
        accountId: e.data.accountId,
        betCode: e.data.betCode,
        currency: e.data.currency,
        stake: e.data.stake,
        effect: 'RESETTLE',
        payoutAfter: e.data.payout,
        replaces: e.data.compensates,
      });
    }
  }
  return out;
}

function requireDecision(s: ShoeState, decisionId: string): DecisionRecord {
  const d = findDecision(s, decisionId);
  if (!d) throw new DomainError('DECISION.NOT_FOUND', `no decision ${decisionId} on this shoe`, { decisionId });
  return d;
}

function requirePending(s: ShoeState, decisionId: string, now: string): DecisionRecord {
  const d = requireDecision(s, decisionId);
  if (d.status !== 'PENDING_APPROVAL') throw alreadyDecided(d);
  if (Date.parse(now) >= Date.parse(d.expiresAt)) {
    throw new DomainError('DECISION.EXPIRED', `decision ${d.decisionId} expired at ${d.expiresAt}`, { decisionId: d.decisionId, expiresAt: d.expiresAt });
  }
  return d;
}

function alreadyDecided(d: DecisionRecord): DomainError {
  return new DomainError('DECISION.ALREADY_DECIDED', `decision ${d.decisionId} is ${d.status}`, { decisionId: d.decisionId, status: d.status });
}
