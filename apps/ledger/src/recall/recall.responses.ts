import { ApiProperty } from '@nestjs/swagger';
import { CARD_JSON_PATTERN, CardCodes } from '../common/validators';
import { Bool, Day, Enum, Int, List, NBool, NEnum, NInt, NOne, NStr, NStrs, NTime, One, Position, Str, Strs, Time } from '../kernel/openapi-props';
import { EVENT_ROLES, ROUND_STATUSES, WINNERS, DECISION_STATUSES, DECISION_KINDS } from '../kernel/response-enums';
import { ChainProblem } from '../kernel/chain.dto';
import { SettlementRevision, Settlement } from '../kernel/settlement.dto';
import { EventCore } from '../kernel/event.dto';

/**
 * The response schemas of a round's recall (docs/openapi.json; the console's types are generated from
 * it). Classes only describe; the services answer plain objects of these shapes. Amounts: strings of
 * integer minor units. Times: ISO-8601 UTC.
 */

/** One revision of a round's outcome (resulted, corrected, voided), with who did it and why. */
export class RoundRevision {
  @Str() roundId!: string;
  @Int() revision!: number;
  @Enum(['RESULTED', 'CORRECTED', 'VOIDED']) kind!: string;
  @Str() shoeId!: string;
  @Str() tableId!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', pattern: CARD_JSON_PATTERN }, nullable: true, description: 'card codes in dealing order' }) cards!: string[] | null;
  @CardCodes({ nullable: true, description: "the player's cards" }) playerCards!: string[] | null;
  @CardCodes({ nullable: true, description: "the banker's cards" }) bankerCards!: string[] | null;
  @NInt() playerTotal!: number | null;
  @NInt() bankerTotal!: number | null;
  @NEnum(WINNERS) winner!: string | null;
  @NBool() isNatural!: boolean | null;
  @NBool() playerPair!: boolean | null;
  @NBool() bankerPair!: boolean | null;
  @NStr() paytableRef!: string | null;
  @NStr() voidCause!: string | null;
  @NStr() causedBy!: string | null;
  @Str() eventId!: string;
  @Position() globalPosition!: string;
  @Str() actorId!: string;
  @Enum(EVENT_ROLES) actorRole!: string;
  @NStr() reason!: string | null;
  @NStr() actingManagerId!: string | null;
  @NStr() approverId!: string | null;
  @NStr() compensates!: string | null;
  @Time() occurredAt!: string;
  @Time() recordedAt!: string;
}

/** Video evidence of a table fact or a decision (docs/reports.md §7); a field not given is null. */
export class EvidenceView {
  @NStr('camera or channel id') cameraId!: string | null;
  @NStr('SMPTE timecode HH:MM:SS:FF (HH:MM:SS;FF drop frame)') timecode!: string | null;
  @NStr('video segment id or URI') segmentRef!: string | null;
}

/** An event of a round as the recall shows it (from `audit_events`). */
export class RecallEvent extends EventCore {
  @NOne(() => EvidenceView, "the evidence recorded with the event (a table fact's, a decision step's, or the decision a compensating event carries out); null when none") evidence!: EvidenceView | null;
  @Int() streamVersion!: number;
  @Str() correlationId!: string;
  @Str() causationId!: string;
  @Str() hash!: string;
  @Str() prevHash!: string;
}

/** A management decision in a recall: requested by, decided by, reasons. */
export class RecallDecision {
  @Str() decisionId!: string;
  @Enum(DECISION_KINDS) kind!: string;
  @Enum(DECISION_STATUSES) status!: string;
  @Str() requestedBy!: string;
  @Time() requestedAt!: string;
  @Str() reason!: string;
  @NStr() decidedBy!: string | null;
  @NTime() decidedAt!: string | null;
  @NStr() decisionReason!: string | null;
  @NOne(() => EvidenceView, 'the evidence the requester gave (docs/reports.md §7), null when none') evidence!: EvidenceView | null;
  @NOne(() => EvidenceView, 'the evidence the approving or rejecting manager gave, null when none') decisionEvidence!: EvidenceView | null;
  @Strs('eventIds of the steps, in order') steps!: string[];
}

/** A bet of a recall, with its history (each entry names its bet). */
export class RecallBetRevision extends SettlementRevision {
  @Str() betId!: string;
}

/** A bet in a recall. */
export class RecallBet extends Settlement {
  @List(() => RecallBetRevision) history!: RecallBetRevision[];
}

/** The hash chain of the round's stream, verified from the last verified head. */
export class RecallChain {
  @Bool() ok!: boolean;
  @Int() eventsChecked!: number;
  @List(() => ChainProblem) problems!: ChainProblem[];
  @Int('stream version the check started after (0: the whole stream)') verifiedFrom!: number;
  @Int('stream version it ended at') headVersion!: number;
}

/** The round as it stands (a `hand_outcomes` row). */
export class RecallRound {
  @Str() roundId!: string;
  @Str() shoeId!: string;
  @Str() tableId!: string;
  @Int() handNumber!: number;
  @Str() dealerId!: string;
  @Str() dealingDealerId!: string;
  @Day() gamingDay!: string;
  @Str() currency!: string;
  @Str() paytableRef!: string;
  @Time() openedAt!: string;
  @Enum(ROUND_STATUSES) status!: string;
  @Bool() bettingClosed!: boolean;
  @ApiProperty({ type: 'array', items: { type: 'string', pattern: CARD_JSON_PATTERN }, description: 'card codes in dealing order' }) cards!: string[];
  @CardCodes({ description: 'cards drawn and not needed' }) unneededCards!: string[];
  @CardCodes({ nullable: true, description: "the player's cards" }) playerCards!: string[] | null;
  @CardCodes({ nullable: true, description: "the banker's cards" }) bankerCards!: string[] | null;
  @NInt() playerTotal!: number | null;
  @NInt() bankerTotal!: number | null;
  @NEnum(WINNERS) winner!: string | null;
  @NBool() isNatural!: boolean | null;
  @NBool() playerPair!: boolean | null;
  @NBool() bankerPair!: boolean | null;
  @Bool() lastHand!: boolean;
  @Int() currentRevision!: number;
  @NStr() resultEventId!: string | null;
  @NTime() resultedAt!: string | null;
  @NTime() correctedAt!: string | null;
  @NStr() voidCause!: string | null;
  @NTime() voidedAt!: string | null;
  @NStr() voidEventId!: string | null;
}

/** The anchor status of the round's stream (libs/anchors/src/stream-anchor.ts, docs/anchors.md). */
export class RecallAnchor {
  @Enum(['ANCHORED', 'NOT_YET_ANCHORED', 'MISMATCH', 'UNVERIFIABLE'], 'ANCHORED: the latest signed checkpoint naming the stream verifies and the event store still has its head') status!: string;
  @NInt('seq of the checkpoint used') seq!: number | null;
  @NTime('when that checkpoint was signed') createdAt!: string | null;
  @NStr('its signing key id') keyId!: string | null;
  @NInt('the stream version it anchors') anchoredVersion!: number | null;
  @NStr('the head hash it anchors (64 hex)') anchoredHash!: string | null;
  @NBool('the Ed25519 signature verified') signatureValid!: boolean | null;
  @NBool("the event store's event at anchoredVersion has anchoredHash") matchesLedger!: boolean | null;
  @NStr('why MISMATCH or UNVERIFIABLE') problem!: string | null;
}

/** `GET /shoes/{shoeId}/rounds/{roundId}/recall`: the game recall. */
export class RecallResponse {
  @One(() => RecallRound) round!: RecallRound;
  @List(() => RoundRevision, 'in revision order') revisions!: RoundRevision[];
  @List(() => RecallEvent, 'in original (stream) order') events!: RecallEvent[];
  @List(() => RecallDecision) decisions!: RecallDecision[];
  @List(() => RecallBet) bets!: RecallBet[];
  @One(() => RecallChain) chain!: RecallChain;
  @One(() => RecallAnchor) anchor!: RecallAnchor;
}
