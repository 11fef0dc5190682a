import type { DecisionStatus } from '@ledger/events';
import type { ShoeCommandResult } from '../shoe-stream.writer';

/**
 * What the four-eyes routes answer: the decision's id and status, and the events recorded
 * (docs/domain-rules.md §6). A request answers 202 `PENDING_APPROVAL`; an approval 201 `APPROVED`
 * with the compensating events; a rejection 201 `REJECTED`.
 */
export interface DecisionAnswer extends ShoeCommandResult {
  readonly decisionId: string;
  readonly status: DecisionStatus;
  /** ISO-8601 time after which the request can no longer be approved (requests only). */
  readonly expiresAt?: string;
}

/**
 * Shapes the writer's result into a {@link DecisionAnswer}. A pure function of the recorded events
 * where they say it: the decision id and expiry come from the recorded decision event when there is
 * one, so an idempotent replay, which rebuilds the answer from the stored events
 * (docs/guarantees.md §3), answers the first request's decision, not the retry's fresh id.
 */
export function decisionAnswer(decisionId: string, status: DecisionStatus, extra: { expiresAt?: string } = {}): (r: ShoeCommandResult) => DecisionAnswer {
  return (r) => {
    const recorded = r.events.find((e) => typeof (e.data as { decisionId?: unknown } | null)?.decisionId === 'string')?.data as { decisionId: string; expiresAt?: string } | undefined;
    const expiresAt = recorded?.expiresAt ?? extra.expiresAt;
    return { decisionId: recorded?.decisionId ?? decisionId, status, ...(expiresAt === undefined ? {} : { expiresAt }), ...r };
  };
}
