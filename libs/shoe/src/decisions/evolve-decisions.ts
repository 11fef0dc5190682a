import type { DecisionApprovedData, DecisionExpiredData, DecisionRejectedData, DecisionRequestedData } from '@ledger/events';
import type { DecisionRecord } from '../state';

/**
 * Folding the four-eyes events into the shoe's list of decisions (docs/domain-rules.md §6).
 * Pure; copy-on-write (a shoe holds a handful of decisions).
 */

/** DecisionRequested: a new PENDING_APPROVAL decision. */
export function decisionRequested(list: readonly DecisionRecord[], d: DecisionRequestedData, eventId: string): readonly DecisionRecord[] {
  return [
    ...list,
    {
      decisionId: d.decisionId,
      requestedEventId: eventId,
      proposal: d.proposal,
      reason: d.reason,
      requestedBy: d.requestedBy,
      expiresAt: d.expiresAt,
      roundIds: d.roundIds,
      dealerIds: d.dealerIds,
      status: 'PENDING_APPROVAL',
      closedEventId: null,
      ...(d.evidence ? { evidence: d.evidence } : {}),
    },
  ];
}

/** DecisionApproved / DecisionRejected / DecisionExpired: the decision's final status. */
export function decisionClosed(list: readonly DecisionRecord[], d: DecisionApprovedData | DecisionRejectedData | DecisionExpiredData, status: 'APPROVED' | 'REJECTED' | 'EXPIRED', eventId: string): readonly DecisionRecord[] {
  return list.map((r) => (r.decisionId === d.decisionId ? { ...r, status, closedEventId: eventId } : r));
}
