import { Amount, Enum, List, NStr, NStrs, NTime, One, Position, Str, Strs, Time } from '../../kernel/openapi-props';
import { DECISION_STATUSES, DECISION_KINDS } from '../../kernel/response-enums';

/**
 * The response schemas of the management decisions (docs/openapi.json; the console's types are
 * generated from it). Classes only describe; the services answer plain objects of these shapes.
 * Amounts: strings of integer minor units. Times: ISO-8601 UTC.
 */

/** What a decision asks (fields its kind does not use are null). */
export class DecisionProposal {
  @Enum(DECISION_KINDS) kind!: string;
  @NStr() roundId!: string | null;
  @NStrs('CORRECT_RESULT: the corrected cards in dealing order') cards!: string[] | null;
  @NStr('CORRECT_COMMENCEMENT: the corrected card') card!: string | null;
}

/** A bet a decision changes, as of its request. */
export class AffectedBet {
  @Str() betId!: string;
  @Str() roundId!: string;
  @Str() accountId!: string;
  @Str() betCode!: string;
  @Str() currency!: string;
  @Amount() stake!: string;
  @Enum(['REFUND', 'RESETTLE']) effect!: string;
  @Amount('returned to the player after the decision') payoutAfter!: string;
  @NStr('eventId of the settlement in force it replaces') replaces!: string | null;
}

/** A step of a decision. */
export class DecisionStep {
  @Enum(['DecisionRequested', 'DecisionApproved', 'DecisionRejected', 'DecisionExpired']) type!: string;
  @Str() eventId!: string;
  @Str() actorId!: string;
  @Str() actorRole!: string;
  @Time() recordedAt!: string;
  @Position() globalPosition!: string;
}

/** A management decision (decisions/decision-view.ts). */
export class DecisionView {
  @Str() decisionId!: string;
  @Str() shoeId!: string;
  @Str() tableId!: string;
  @Enum(DECISION_KINDS) kind!: string;
  @One(() => DecisionProposal) proposal!: DecisionProposal;
  @Enum(DECISION_STATUSES) status!: string;
  @Str() reason!: string;
  @Str() requestedBy!: string;
  @Time() requestedAt!: string;
  @Time() expiresAt!: string;
  @Strs() roundIds!: string[];
  @Strs('dealers of the rounds concerned (none may request or approve)') dealerIds!: string[];
  @List(() => AffectedBet) affectedBets!: AffectedBet[];
  @NStr() decidedBy!: string | null;
  @NTime() decidedAt!: string | null;
  @NStr() decisionReason!: string | null;
  @List(() => DecisionStep) steps!: DecisionStep[];
}

/** `GET /decisions`. */
export class DecisionsPage {
  @List(() => DecisionView, 'in request order') decisions!: DecisionView[];
}
