import type { BetCode } from '@ledger/rules';
import type { Evidence } from './envelope';

/**
 * The four-eyes flow of management decisions (docs/domain-rules.md §6): one pit manager
 * *requests* a decision, a different one *approves* (or rejects) it with their own credentials;
 * only an approval lets the compensating events happen. A request not decided in time expires.
 * Every step is an event of the shoe stream the decision concerns, so recall shows the chain and
 * the hash chain covers it (docs/guarantees.md §8, §9, §12).
 */

/** What a management decision does once approved. */
export type DecisionKind = 'VOID_ROUND' | 'CORRECT_RESULT' | 'VOID_SHOE' | 'CORRECT_COMMENCEMENT';

/** Lifecycle of a decision: PENDING until approved, rejected or expired; the last three are final. */
export type DecisionStatus = 'PENDING_APPROVAL' | 'APPROVED' | 'REJECTED' | 'EXPIRED';

/** The decision's target and payload, as requested. Fields not used by the kind are null. */
export interface DecisionProposal {
  readonly kind: DecisionKind;
  /** VOID_ROUND, CORRECT_RESULT: the round. */
  readonly roundId: string | null;
  /** CORRECT_RESULT: the corrected cards in dealing order (P1 B1 P2 B2 [P3] [B3]), canonical codes. */
  readonly cards: readonly string[] | null;
  /** CORRECT_COMMENCEMENT: the corrected commencement card, canonical code. */
  readonly card: string | null;
}

/** One bet the decision would change, computed from the shoe when it was requested. */
export interface AffectedBet {
  readonly betId: string;
  readonly roundId: string;
  readonly accountId: string;
  readonly betCode: BetCode;
  readonly currency: string;
  /** Minor units, decimal string. */
  readonly stake: string;
  /** REFUND: the stake is returned; RESETTLE: the bet is settled again from the corrected result. */
  readonly effect: 'REFUND' | 'RESETTLE';
  /** Minor units returned to the player after the decision (the stake on a refund), decimal string. */
  readonly payoutAfter: string;
  /** eventId of the settlement in force that the decision replaces, null when the bet was never settled. */
  readonly replaces: string | null;
}

/** A pit manager asked for a management decision (the requester is the envelope's actor). */
export interface DecisionRequestedData {
  /** Ledger-wide id of the decision (reserved like round and bet ids). */
  readonly decisionId: string;
  readonly proposal: DecisionProposal;
  /** Why, 3..500 characters. */
  readonly reason: string;
  /** The requesting pit manager (token subject). */
  readonly requestedBy: string;
  /** ISO-8601 ledger time after which the request can no longer be approved. */
  readonly expiresAt: string;
  /** Rounds the decision concerns (for a shoe void: every round not yet voided). */
  readonly roundIds: readonly string[];
  /** Dealers of those rounds (and the shoe's dealer): none of them may request or approve it. */
  readonly dealerIds: readonly string[];
  /** The bets and amounts the decision would change, as the shoe stood when it was requested. */
  readonly affectedBets: readonly AffectedBet[];
  /** The video evidence the requesting pit manager reviewed (carried onto the compensating events' `decision.evidence`) (docs/reports.md §7); absent when none was given. */
  readonly evidence?: Evidence;
}

/** A second pit manager approved the decision; the compensating events follow in the same append. */
export interface DecisionApprovedData {
  readonly decisionId: string;
  /** The approving pit manager (token subject); differs from the requester. */
  readonly approvedBy: string;
  readonly requestedBy: string;
  /** Optional remark of the approver, else null. */
  readonly reason: string | null;
  /** The video evidence the approving pit manager reviewed (docs/reports.md §7); absent when none was given. */
  readonly evidence?: Evidence;
}

/** A second pit manager rejected the decision: nothing changes. */
export interface DecisionRejectedData {
  readonly decisionId: string;
  readonly rejectedBy: string;
  readonly requestedBy: string;
  /** Why, 3..500 characters. */
  readonly reason: string;
  /** The video evidence the rejecting pit manager reviewed (docs/reports.md §7); absent when none was given. */
  readonly evidence?: Evidence;
}

/** The decision was not approved before it expired: nothing changes. */
export interface DecisionExpiredData {
  readonly decisionId: string;
  readonly requestedBy: string;
  /** ISO-8601 expiry time that passed. */
  readonly expiresAt: string;
}
