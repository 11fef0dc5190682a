import type { AffectedBet, DecisionKind, DecisionProposal, DecisionStatus, LedgerEvent } from '@ledger/events';

/** The four event types of the four-eyes flow (docs/domain-rules.md §6). */
export const DECISION_EVENT_TYPES = ['DecisionRequested', 'DecisionApproved', 'DecisionRejected', 'DecisionExpired'] as const;

/** One step of a decision as recorded: who, with which role, when, and the event. */
export interface DecisionStep {
  readonly type: (typeof DECISION_EVENT_TYPES)[number];
  readonly eventId: string;
  readonly actorId: string;
  readonly actorRole: string;
  /** ISO-8601 ledger time the step was recorded. */
  readonly recordedAt: string;
  readonly globalPosition: string;
}

/**
 * A management decision as the API answers it (`GET /decisions`, `GET /decisions/{id}`): what was
 * asked, by whom, what it would change, and how it was decided — folded from the decision's events
 * in the shoe stream, so it is never a second copy kept by hand.
 */
export interface DecisionView {
  readonly decisionId: string;
  readonly shoeId: string;
  readonly tableId: string;
  readonly kind: DecisionKind;
  readonly proposal: DecisionProposal;
  /** PENDING_APPROVAL, APPROVED, REJECTED or EXPIRED (a pending request past its expiry counts as EXPIRED). */
  readonly status: DecisionStatus;
  /** The requester's reason. */
  readonly reason: string;
  readonly requestedBy: string;
  readonly requestedAt: string;
  readonly expiresAt: string;
  readonly roundIds: readonly string[];
  /** Dealers of the rounds concerned: none of them may request or approve. */
  readonly dealerIds: readonly string[];
  /** The bets and amounts (minor units, decimal strings) the decision changes, as of its request. */
  readonly affectedBets: readonly AffectedBet[];
  /** The approving or rejecting manager, null while pending or when it expired. */
  readonly decidedBy: string | null;
  /** When it was approved, rejected or recorded as expired (ISO-8601), else null. */
  readonly decidedAt: string | null;
  /** The approver's remark or the rejection's reason, else null. */
  readonly decisionReason: string | null;
  /** The steps in order: requested, then approved / rejected / expired. */
  readonly steps: readonly DecisionStep[];
}

/** The shoe id of a `shoe-<id>` stream. */
function shoeIdOf(streamId: string): string {
  return streamId.startsWith('shoe-') ? streamId.slice(5) : streamId;
}

/**
 * Folds the four-eyes events (in global order, any number of decisions) into views, in request order.
 * @param now ISO-8601 ledger time: a pending decision past its expiry is reported EXPIRED
 */
export function foldDecisions(events: readonly LedgerEvent[], now: string): DecisionView[] {
  const views = new Map<string, { -readonly [K in keyof DecisionView]: DecisionView[K] }>();
  for (const e of events) {
    const step: DecisionStep = {
      type: e.type as DecisionStep['type'],
      eventId: e.eventId,
      actorId: e.actor.id,
      actorRole: e.actor.role,
      recordedAt: e.recordedAt,
      globalPosition: e.globalPosition,
    };
    if (e.type === 'DecisionRequested') {
      const d = e.data;
      views.set(d.decisionId, {
        decisionId: d.decisionId,
        shoeId: shoeIdOf(e.streamId),
        tableId: e.tableId,
        kind: d.proposal.kind,
        proposal: d.proposal,
        status: 'PENDING_APPROVAL',
        reason: d.reason,
        requestedBy: d.requestedBy,
        requestedAt: e.recordedAt,
        expiresAt: d.expiresAt,
        roundIds: d.roundIds,
        dealerIds: d.dealerIds,
        affectedBets: d.affectedBets,
        decidedBy: null,
        decidedAt: null,
        decisionReason: null,
        steps: [step],
      });
      continue;
    }
    if (e.type !== 'DecisionApproved' && e.type !== 'DecisionRejected' && e.type !== 'DecisionExpired') continue;
    const v = views.get(e.data.decisionId);
    if (!v) continue;
    v.steps = [...v.steps, step];
    v.decidedAt = e.recordedAt;
    if (e.type === 'DecisionApproved') {
      v.status = 'APPROVED';
      v.decidedBy = e.data.approvedBy;
      v.decisionReason = e.data.reason;
    } else if (e.type === 'DecisionRejected') {
      v.status = 'REJECTED';
      v.decidedBy = e.data.rejectedBy;
      v.decisionReason = e.data.reason;
    } else {
      v.status = 'EXPIRED';
    }
  }
  const nowMs = Date.parse(now);
  return [...views.values()].map((v) => (v.status === 'PENDING_APPROVAL' && nowMs >= Date.parse(v.expiresAt) ? { ...v, status: 'EXPIRED' } : v));
}
