import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { ReportHeaderSchema } from '../reports/report-header.dto';
import { Amount, Bool, Columns, Counts, Day, Enum, Int, Json, List, NAmount, NBool, NEnum, NInt, NOne, NStr, NStrs, NTime, One, Position, Str, Strs, Time } from './openapi-props';
import { AdjustmentDto } from '../reports/gaming-day-close/adjustment.dto';

/**
 * The response schemas of the read routes, as documented in docs/openapi.json (the console's types
 * are generated from it: `components['schemas']['<Name>']`). Classes only describe; the services
 * answer plain objects of these shapes. Amounts: strings of integer minor units. Times: ISO-8601 UTC.
 */

const ROLES = ['table-device', 'betting-platform', 'pit-manager', 'auditor'] as const;
const EVENT_ROLES = [...ROLES, 'system'] as const;
const VARIANTS = ['classic', 'tiger', 'fabulous4'] as const;
const SHOE_STATUSES = ['OPEN', 'COMMENCING', 'READY', 'IN_ROUND', 'CLOSED', 'VOIDED'] as const;
const ROUND_STATUSES = ['OPEN', 'RESULTED', 'CORRECTED', 'VOIDED'] as const;
const WINNERS = ['PLAYER', 'BANKER', 'TIE'] as const;
const POSITIONS = ['P1', 'B1', 'P2', 'B2', 'P3', 'B3'] as const;
const SETTLEMENT_STATUSES = ['OPEN', 'SETTLED', 'RESETTLED', 'REFUNDED'] as const;
const BET_RESULTS = ['WIN', 'LOSE', 'PUSH'] as const;
const DECISION_STATUSES = ['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'EXPIRED'] as const;
const DECISION_KINDS = ['VOID_ROUND', 'CORRECT_RESULT', 'VOID_SHOE', 'CORRECT_COMMENCEMENT'] as const;

// ------------------------------------------------------------------------------------------ me

/** The gaming day's settings (`GAMING_DAY_TZ`, `GAMING_DAY_CUTOFF_HOUR`; docs/domain-rules.md §4). */
export class GamingDaySettings {
  @Str({ description: 'IANA time zone of the gaming day', example: 'Europe/Malta' }) timeZone!: string;
  @Int('local hour 0..23 at which a gaming day starts') cutoffHour!: number;
}

/** `GET /me`: who the bearer token says the caller is, and the gaming day to show times in. */
export class MeResponse {
  @Str('the token subject (actor id)') sub!: string;
  @Enum(ROLES) role!: (typeof ROLES)[number];
  @NStrs('the tables this token may act for; null = every table') tables!: string[] | null;
  @Time('when the token expires') expiresAt!: string;
  @One(() => GamingDaySettings) gamingDay!: GamingDaySettings;
}

// ------------------------------------------------------------------------------------------ tables

/** A bet's table limits: minor units. */
export class BetLimit {
  @Amount('smallest stake') min!: string;
  @Amount('largest stake') max!: string;
}

/** A configured table (`config/tables.json`). */
export class TableConfig {
  @Str() tableId!: string;
  @Str() name!: string;
  @Enum(VARIANTS) variant!: (typeof VARIANTS)[number];
  @Int() decks!: number;
  @Bool() virtualTable!: boolean;
  @Str({ example: 'classic-standard@1' }) paytableRef!: string;
  @Bool() pairBetsRequireMainBet!: boolean;
  @Str({ description: 'ISO 4217', example: 'EUR' }) currency!: string;
  @ApiProperty({ type: 'object', additionalProperties: { $ref: getSchemaPath(BetLimit) }, description: 'bet code → limits (integer minor units)' })
  limits!: Record<string, BetLimit>;
}

/** `GET /tables`. */
export class TablesResponse {
  @List(() => TableConfig) tables!: TableConfig[];
}

/** A shoe as lists show it (from `shoe_state`). */
export class ShoeSummary {
  @Str() shoeId!: string;
  @Str() tableId!: string;
  @Enum(VARIANTS) variant!: string;
  @Enum(SHOE_STATUSES) status!: string;
  @Int('number of the last round opened (0 before the first)') handNumber!: number;
  @Int('cards left in the shoe') cardsRemaining!: number;
  @Str('the dealer now at the table') dealerId!: string;
  @Time() openedAt!: string;
  @NTime() closedAt!: string | null;
  @Bool() voided!: boolean;
  @NInt('rounds played, set when the shoe closes') roundsPlayed!: number | null;
}

/** A round as the tables page shows it. */
export class RoundSummary {
  @Str() roundId!: string;
  @Int() handNumber!: number;
  @Enum(ROUND_STATUSES) status!: string;
  @NEnum(WINNERS, 'null while open and once voided (see status)') winner!: string | null;
  @NInt() playerTotal!: number | null;
  @NInt() bankerTotal!: number | null;
  @NBool() playerPair!: boolean | null;
  @NBool() bankerPair!: boolean | null;
  @NBool() isNatural!: boolean | null;
}

/** One bead of the bead plate: a counted round; `column`, `row` its place on a 6-row plate (0-based). */
export class BeadCell {
  @Str() roundId!: string;
  @Int() handNumber!: number;
  @Enum(['P', 'B', 'T']) result!: string;
  @Bool() playerPair!: boolean;
  @Bool() bankerPair!: boolean;
  @Bool() natural!: boolean;
  @Int() column!: number;
  @Int() row!: number;
}

/** A big-road cell: a Player or Banker win, with the ties that followed it. */
export class BigRoadCell {
  @Enum(['P', 'B']) result!: string;
  @Str() roundId!: string;
  @Int() handNumber!: number;
  @Bool() playerPair!: boolean;
  @Bool() bankerPair!: boolean;
  @Int('ties recorded on this cell') ties!: number;
}

/** The big road: columns of streaks (logical; the drawing wraps at 6 rows), ties before the first win. */
export class BigRoad {
  @Int() leadingTies!: number;
  @Columns(BigRoadCell) columns!: BigRoadCell[][];
}

/** A derived-road entry and the big-road cell (column, row) it was computed for. */
export class DerivedEntry {
  @Enum(['RED', 'BLUE']) colour!: string;
  @Int() column!: number;
  @Int() row!: number;
}

/** A derived road (big eye boy offset 1, small road 2, cockroach pig 3). */
export class DerivedRoad {
  @ApiProperty({ enum: [1, 2, 3], type: 'integer' }) offset!: 1 | 2 | 3;
  @List(() => DerivedEntry) entries!: DerivedEntry[];
  @ApiProperty({ type: 'array', items: { type: 'array', items: { type: 'string', enum: ['RED', 'BLUE'] } }, description: 'entries grouped in columns of one colour' })
  columns!: string[][];
}

/** One table on the console's tables page. */
export class TableOverview {
  @Str() tableId!: string;
  @Str() name!: string;
  @Enum(VARIANTS) variant!: string;
  @Str() currency!: string;
  @NOne(() => ShoeSummary, 'the table’s latest shoe (by openedAt); null before the first') shoe!: ShoeSummary | null;
  @List(() => RoundSummary, 'newest first, at most 12, of that shoe') lastResults!: RoundSummary[];
  @List(() => BeadCell, 'the shoe’s bead plate (empty without a shoe)') beadPlate!: BeadCell[];
  @NOne(() => BigRoad, 'null without a shoe or before its roads are projected') bigRoad!: BigRoad | null;
}

/** `GET /tables/overview`. */
export class TablesOverviewResponse {
  @List(() => TableOverview) tables!: TableOverview[];
}

/** `GET /shoes`: newest first. */
export class ShoesPage {
  @List(() => ShoeSummary) items!: ShoeSummary[];
  @NStr('pass back as cursor for the next page; null at the end') nextCursor!: string | null;
}

/** A card of a round in dealing order. */
export class DealtCard {
  @Int('0-based index in dealing order') index!: number;
  @NEnum(POSITIONS, 'the tableau position (P1 B1 P2 B2 P3 B3)') position!: string | null;
  @Str({ description: 'card code: rank A 2..9 T J Q K, suit S H D C', example: '9S' }) card!: string;
}

/** A round of a shoe (from `hand_outcomes`): its outcome in force, cards and revision. */
export class RoundRow extends RoundSummary {
  @NStrs({ description: 'card codes', example: ['9S', 'KH'] }) playerCards!: string[] | null;
  @NStrs({ description: 'card codes', example: ['4D', '3C'] }) bankerCards!: string[] | null;
  @List(() => DealtCard, 'every card dealt to the round in dealing order (the corrected ones after a correction)') cards!: DealtCard[];
  @Strs('cards drawn and not needed') unneededCards!: string[];
  @Int('0 while open; 1 resulted; +1 per correction or void') currentRevision!: number;
  @Str() dealerId!: string;
  @Str('the dealer who dealt it') dealingDealerId!: string;
  @Day() gamingDay!: string;
  @Time() openedAt!: string;
  @NTime() resultedAt!: string | null;
  @NTime() correctedAt!: string | null;
  @NTime() voidedAt!: string | null;
  @NStr('MANAGEMENT, EXPOSED_CARD, SHOE_VOIDED, ...') voidCause!: string | null;
  @Bool('the shoe’s last hand (after the cut card)') lastHand!: boolean;
}

/** `GET /shoes/{shoeId}/rounds`: by hand number ascending. */
export class RoundsPage {
  @List(() => RoundRow) items!: RoundRow[];
  @NStr() nextCursor!: string | null;
}

// ------------------------------------------------------------------------------------------ shoe

/** `GET /shoes/{shoeId}/state`: the projected shoe. */
export class ShoeStateResponse {
  @Str() shoeId!: string;
  @Str() streamId!: string;
  @Str() tableId!: string;
  @Enum(VARIANTS) variant!: string;
  @Int() decks!: number;
  @Bool() virtualTable!: boolean;
  @Str() paytableRef!: string;
  @Str() currency!: string;
  @Str() openingDealerId!: string;
  @Str() dealerId!: string;
  @Enum(SHOE_STATUSES) status!: string;
  @Int() handNumber!: number;
  @NStr() currentRoundId!: string | null;
  @NStr() previousRoundId!: string | null;
  @Int('cards out of the shoe (dealt, burned, unneeded, exposed, dropped)') cardsOut!: number;
  @Int() cardsRemaining!: number;
  @Int() cardsUnseen!: number;
  @Int() cardsDealt!: number;
  @Int() cardsBurned!: number;
  @Int() cardsUnneeded!: number;
  @Int() cardsExposed!: number;
  @Int() cardsDropped!: number;
  @Counts('cards out by rank') cardsOutByRank!: Record<string, number>;
  @Counts('cards remaining by rank') cardsRemainingByRank!: Record<string, number>;
  @Int() burns!: number;
  @NStr() commencementCard!: string | null;
  @NInt() commencementBurnCount!: number | null;
  @Int() commencementBurnsDone!: number;
  @NStr() commencementEventId!: string | null;
  @Int() commencementCorrections!: number;
  @Bool() cutCardDrawn!: boolean;
  @NStr() cutCardTiming!: string | null;
  @NStr() cutCardRoundId!: string | null;
  @NStr() lastHandRoundId!: string | null;
  @Bool() voided!: boolean;
  @NStr() voidEventId!: string | null;
  @NStr() voidReason!: string | null;
  @NStr() voidActorId!: string | null;
  @NStr() voidApproverId!: string | null;
  @Bool() closed!: boolean;
  @NInt() roundsPlayed!: number | null;
  @Time() openedAt!: string;
  @NTime() closedAt!: string | null;
  @NTime() voidedAt!: string | null;
  @Int() streamVersion!: number;
  @Str() lastEventId!: string;
  @Position() lastGlobalPosition!: string;
}

/** `GET /shoes/{shoeId}/roads`: the five scoreboards (`leadingTies` is also `bigRoad.leadingTies`). */
export class RoadsResponse {
  @Str() shoeId!: string;
  @Str() tableId!: string;
  @Int() roundsCounted!: number;
  @Int() leadingTies!: number;
  @List(() => BeadCell) beadPlate!: BeadCell[];
  @One(() => BigRoad) bigRoad!: BigRoad;
  @One(() => DerivedRoad) bigEyeBoy!: DerivedRoad;
  @One(() => DerivedRoad) smallRoad!: DerivedRoad;
  @One(() => DerivedRoad) cockroachPig!: DerivedRoad;
  @Str() lastEventId!: string;
  @Position() lastGlobalPosition!: string;
}

/** The actor of an event. */
export class EventActor {
  @Str() id!: string;
  @Enum(EVENT_ROLES) role!: string;
}

/** An event of a shoe stream as stored: the envelope of `libs/events/src/envelope.ts` (docs/architecture.md §9). */
export class StoredEvent {
  @Str() eventId!: string;
  @Str() type!: string;
  @Int() schemaVersion!: number;
  @Str() streamId!: string;
  @Int() streamVersion!: number;
  @Position() globalPosition!: string;
  @Str() tableId!: string;
  @Time() occurredAt!: string;
  @Time() recordedAt!: string;
  @One(() => EventActor) actor!: EventActor;
  @Str() correlationId!: string;
  @Str() causationId!: string;
  @Str() prevHash!: string;
  @Str() hash!: string;
  @Json('the event’s payload (amounts: strings of integer minor units)') data!: Record<string, unknown>;
}

/** `GET /shoes/{shoeId}/events`. */
export class StreamPage {
  @Str() shoeId!: string;
  @List(() => StoredEvent) events!: StoredEvent[];
  @NInt('fromVersion of the next page; null at the end') nextFromVersion!: number | null;
}

/** A problem a chain verification found. */
export class ChainProblem {
  @NStr() streamId!: string | null;
  @NInt() streamVersion!: number | null;
  @NStr() eventId!: string | null;
  @Enum(['HASH_MISMATCH', 'PREV_HASH_MISMATCH', 'VERSION_GAP', 'POSITION_GAP'], 'see docs/guarantees.md §8') kind!: string;
  @Str() detail!: string;
}

/** `GET /shoes/{shoeId}/chain`, `GET /tables/{tableId}/chain`: the hash chain re-verified. */
export class ChainVerification {
  @Bool() ok!: boolean;
  @Int() streamsChecked!: number;
  @Int() eventsChecked!: number;
  @List(() => ChainProblem) problems!: ChainProblem[];
}

// ------------------------------------------------------------------------------------------ recall

/** One revision of a round's outcome (resulted, corrected, voided), with who did it and why. */
export class RoundRevision {
  @Str() roundId!: string;
  @Int() revision!: number;
  @Enum(['RESULTED', 'CORRECTED', 'VOIDED']) kind!: string;
  @Str() shoeId!: string;
  @Str() tableId!: string;
  @NStrs() cards!: string[] | null;
  @NStrs() playerCards!: string[] | null;
  @NStrs() bankerCards!: string[] | null;
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

/** The fields every read of an event shows (audit search, decisions, recall). */
export class EventCore {
  @Position() globalPosition!: string;
  @Str() eventId!: string;
  @Str() type!: string;
  @Str() actorId!: string;
  @Enum(EVENT_ROLES) actorRole!: string;
  @Time() occurredAt!: string;
  @Time() recordedAt!: string;
  @NStr() reason!: string | null;
  @NStr() actingManagerId!: string | null;
  @NStr() approverId!: string | null;
  @NStr() compensates!: string | null;
  @Json() data!: Record<string, unknown>;
}

/** Video evidence of a table fact or a decision (docs/reports.md §7); a field not given is null. */
export class EvidenceView {
  @NStr('camera or channel id') cameraId!: string | null;
  @NStr('SMPTE timecode HH:MM:SS:FF (HH:MM:SS;FF drop frame)') timecode!: string | null;
  @NStr('video segment id or URI') segmentRef!: string | null;
}

/** An event of a round as the recall shows it (from `audit_events`). */
export class RecallEvent extends EventCore {
  @NOne(() => EvidenceView, 'the evidence recorded with the event (a table fact\'s, a decision step\'s, or the decision a compensating event carries out); null when none') evidence!: EvidenceView | null;
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

/** One step of a bet's settlement history. */
export class SettlementRevision {
  @Int() seq!: number;
  @Enum(['SETTLED', 'RESETTLED', 'REFUNDED']) kind!: string;
  @Int() revision!: number;
  @NEnum(BET_RESULTS) result!: string | null;
  @Amount() stake!: string;
  @NAmount() winnings!: string | null;
  @NAmount('returned to the player') payout!: string | null;
  @NAmount('payout − stake') net!: string | null;
  @NStr('fraction of a minor unit dropped by rounding, e.g. 1/2') dropped!: string | null;
  @NStr() paytableRef!: string | null;
  @NStr() compensates!: string | null;
  @Str() eventId!: string;
  @Str() actorId!: string;
  @Enum(EVENT_ROLES) actorRole!: string;
  @NStr() reason!: string | null;
  @NStr() approverId!: string | null;
  @Time() occurredAt!: string;
  @Str('the wallet transaction of this entry: <betId>:win:<revision> (settlement, resettlement) or <betId>:refund:<revision> (docs/reports.md §4)') transactionId!: string;
  @Amount('what the wallet books for it: the payout change of a (re)settlement, stake − payout in force of a refund; may be negative') walletAmount!: string;
}

/** A bet's settlement in force (from `bet_settlements`). */
export class Settlement {
  @Str() betId!: string;
  @Str() shoeId!: string;
  @Str() roundId!: string;
  @Str() tableId!: string;
  @Str() dealerId!: string;
  @Day() gamingDay!: string;
  @Str() accountId!: string;
  @Str() betCode!: string;
  @Str() currency!: string;
  @Amount() stake!: string;
  @Enum(SETTLEMENT_STATUSES) status!: string;
  @NEnum(BET_RESULTS) result!: string | null;
  @NAmount() winnings!: string | null;
  @NAmount() payout!: string | null;
  @NAmount() net!: string | null;
  @NStr() dropped!: string | null;
  @NStr() paytableRef!: string | null;
  @Int() revision!: number;
  @NAmount() refundedStake!: string | null;
  @Time() placedAt!: string;
  @NTime() settledAt!: string | null;
  @NTime() refundedAt!: string | null;
  @Str('the wallet transaction of the stake debited: <betId>:bet (docs/reports.md §4)') betTransactionId!: string;
}

/** A bet's history entry as `GET /settlements/{betId}` shows it. */
export class SettlementWithHistory extends Settlement {
  @List(() => SettlementRevision) history!: SettlementRevision[];
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
  @Strs('card codes in dealing order') cards!: string[];
  @Strs() unneededCards!: string[];
  @NStrs() playerCards!: string[] | null;
  @NStrs() bankerCards!: string[] | null;
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

/** `GET /shoes/{shoeId}/rounds/{roundId}/recall`: the game recall. */
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

export class RecallResponse {
  @One(() => RecallRound) round!: RecallRound;
  @List(() => RoundRevision, 'in revision order') revisions!: RoundRevision[];
  @List(() => RecallEvent, 'in original (stream) order') events!: RecallEvent[];
  @List(() => RecallDecision) decisions!: RecallDecision[];
  @List(() => RecallBet) bets!: RecallBet[];
  @One(() => RecallChain) chain!: RecallChain;
  @One(() => RecallAnchor) anchor!: RecallAnchor;
}

// ------------------------------------------------------------------------------------------ audit

/** An event as the audit search shows it (from `audit_events`). */
export class AuditEvent extends EventCore {
  @Str() streamId!: string;
  @Int() streamVersion!: number;
  @Str('the table; `*` for a ledger-wide event (a gaming day\'s close, docs/reports.md §2)') tableId!: string;
  @NStr('null for a ledger-wide event (stream gaming-day-<day>)') shoeId!: string | null;
  @NStr() roundId!: string | null;
  @NStr() betId!: string | null;
  @Int() schemaVersion!: number;
  @Str() correlationId!: string;
  @Str() causationId!: string;
  @Str() hash!: string;
}

/** `GET /audit/events`: global order. */
export class AuditEventsPage {
  @List(() => AuditEvent) items!: AuditEvent[];
  @NStr() nextCursor!: string | null;
}

/** A decision event (void, correction, shoe void, commencement correction). */
export class AuditDecision extends EventCore {
  @Str() tableId!: string;
  @Str() shoeId!: string;
  @NStr() roundId!: string | null;
}

/** `GET /audit/decisions`: global order. */
export class AuditDecisionsPage {
  @List(() => AuditDecision) items!: AuditDecision[];
  @NStr() nextCursor!: string | null;
}

/** One audit read: who looked at what. */
export class AccessLogEntry {
  @Position() id!: string;
  @Time() at!: string;
  @Str() actorId!: string;
  @Str() actorRole!: string;
  @Str({ example: 'GET /audit/events' }) route!: string;
  @Json('path and query parameters') params!: Record<string, unknown>;
  @NInt('rows answered') resultCount!: number | null;
  @Int() status!: number;
  @NStr() correlationId!: string | null;
}

/** `GET /audit/access-log`: oldest first. */
export class AccessLogPage {
  @List(() => AccessLogEntry) items!: AccessLogEntry[];
  @NStr() nextCursor!: string | null;
}

/** `GET /settlements`: by bet id. */
export class SettlementsPage {
  @List(() => Settlement) items!: Settlement[];
  @NStr() nextCursor!: string | null;
}

/** A row of the reconciliation report: the group's dimensions (those asked for) and its sums. */
export class ReconciliationRow {
  @Str({ description: 'when grouped by table', required: false }) tableId?: string;
  @Str({ description: 'when grouped by shoe', required: false }) shoeId?: string;
  @Str({ description: 'when grouped by dealer', required: false }) dealerId?: string;
  @Day({ description: 'when grouped by day', required: false }) gamingDay?: string;
  @Str({ description: 'when grouped by currency', required: false }) currency?: string;
  @Amount('stakes of the settled bets') turnover!: string;
  @Amount('returned to players') payouts!: string;
  @Amount('turnover − payouts') ggr!: string;
  @NStr('GGR / turnover, 6 decimals (exact); null without turnover') hold!: string | null;
  @Amount('stakes refunded by voids') voidedStakes!: string;
  @Amount('payout change of result corrections') correctionPayoutDelta!: string;
  @Position('count') betsSettled!: string;
  @Position('count') betsRefunded!: string;
  @Position('count') betsResettled!: string;
  @Position('count') roundsResulted!: string;
  @Position('count') roundsVoided!: string;
  @Position('count') corrections!: string;
  @ApiProperty({ type: String, pattern: '^-?\\d+(/\\d+)?$', description: 'exact total of the fractions of a minor unit dropped by rounding, reduced ("0", "3/4"; docs/reports.md §3)' }) dropped!: string;
}

/** `GET /reports/reconciliation` (format json). */
export class ReconciliationReport {
  @ApiProperty({ type: 'array', items: { type: 'string', enum: ['table', 'shoe', 'dealer', 'day', 'currency'] } }) groupBy!: string[];
  @Str({ example: 'minor units of the currency' }) unit!: string;
  @Position({ description: 'with asOf: the global position the report was computed at (docs/reports.md §3)', required: false }) asOfPosition?: string;
  @List(() => ReconciliationRow) items!: ReconciliationRow[];
  /** The report header (docs/reports.md §1); also in the response header `Ledger-Report-Header` (JSON and CSV). */
  @One(() => ReportHeaderSchema, 'the report header (docs/reports.md §1)') header!: ReportHeaderSchema;
  @List(() => AdjustmentDto, 'changes after a close to rounds of closed gaming days, carried by the days of this report (docs/reports.md §2); not in the CSV') adjustments!: AdjustmentDto[];
}

// ------------------------------------------------------------------------------------------ decisions

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

/** An event a write recorded. */
export class RecordedEvent {
  @Str() eventId!: string;
  @Str() type!: string;
  @Int() streamVersion!: number;
  @Position() globalPosition!: string;
  @Json() data!: Record<string, unknown>;
}

/**
 * What a write of a table fact or a bet answers (HTTP 201, `ShoeCommandResult` of
 * shoe-stream.writer.ts): the shoe, its table, the stream version after the append and the events
 * recorded, in order; a retry with the same `Idempotency-Key` gets the same body
 * (docs/guarantees.md §3).
 */
export class CommandResult {
  @Str({ example: 'shoe-7f3a' }) shoeId!: string;
  @Str({ example: 'T-01' }) tableId!: string;
  @Int({ description: 'stream version after the append', example: 12 }) streamVersion!: number;
  @List(() => RecordedEvent) events!: RecordedEvent[];
}

/** The answer of a decision request (202 PENDING_APPROVAL), approval (201 APPROVED) or rejection (201 REJECTED). */
export class DecisionAnswer {
  @Str() decisionId!: string;
  @Enum(DECISION_STATUSES) status!: string;
  @ApiProperty({ type: String, format: 'date-time', required: false, description: 'requests only' }) expiresAt?: string;
  @Str() shoeId!: string;
  @Str() tableId!: string;
  @Int() streamVersion!: number;
  @List(() => RecordedEvent) events!: RecordedEvent[];
}

// ------------------------------------------------------------------------------------------ projections, anchors

/** `GET /projections/applied/{eventId}`. */
export class AppliedResponse {
  @Str() eventId!: string;
  @Bool() applied!: boolean;
}

/** An incident that halted a partition of the projector. */
export class ProjectionIncident {
  @Str() id!: string;
  @Str() consumerGroup!: string;
  @Str() topic!: string;
  @Int() partition!: number;
  @Str('PROJECTION.*') code!: string;
  @Str() message!: string;
  @NStr() projection!: string | null;
  @NStr() kafkaOffset!: string | null;
  @NStr() eventId!: string | null;
  @NStr() globalPosition!: string | null;
  @NStr() checkpointOffset!: string | null;
  @NStr() topicId!: string | null;
  @Json() details!: Record<string, unknown>;
  @Time() haltedAt!: string;
  @NTime() resolvedAt!: string | null;
  @NStr() resolvedBy!: string | null;
  @NStr() resolution!: string | null;
}

/** A partition's checkpoint. */
export class ProjectionCheckpoint {
  @Position() nextOffset!: string;
  @NStr() lastGlobalPosition!: string | null;
  @NStr() topicId!: string | null;
  @Time() updatedAt!: string;
}

/** A partition of the projector. */
export class PartitionStatus {
  @Str() consumerGroup!: string;
  @Str() topic!: string;
  @Int() partition!: number;
  @Enum(['running', 'halted']) status!: string;
  @NOne(() => ProjectionCheckpoint) checkpoint!: ProjectionCheckpoint | null;
  @NOne(() => ProjectionIncident) incident!: ProjectionIncident | null;
}

/** `GET /projections/status`. */
export class ProjectionStatus {
  @Enum(['running', 'halted']) status!: string;
  @List(() => PartitionStatus) partitions!: PartitionStatus[];
  @List(() => ProjectionIncident, 'oldest first') openIncidents!: ProjectionIncident[];
  @List(() => ProjectionIncident, 'newest first, at most 20') recentlyResolved!: ProjectionIncident[];
}

/** The last valid checkpoint of the anchors. */
export class AnchorRef {
  @Int() seq!: number;
  @Position() globalPosition!: string;
  @Time() createdAt!: string;
}

/** A divergence between PostgreSQL, the anchors and Kafka. */
export class Divergence {
  @Str() source!: string;
  @Str() kind!: string;
  @NStr() streamId!: string | null;
  @NInt() version!: number | null;
  @NStr() eventId!: string | null;
  @NStr() globalPosition!: string | null;
  @NInt() anchorSeq!: number | null;
  @Str() reason!: string;
}

/** `GET /audit/anchors/verify` (docs/anchors.md). */
export class AnchorsVerification {
  @Bool() ok!: boolean;
  @Str() ledgerId!: string;
  @Int() anchorsChecked!: number;
  @NOne(() => AnchorRef) lastAnchor!: AnchorRef | null;
  @Int() streamsChecked!: number;
  @Int() eventsChecked!: number;
  @NInt('null when Kafka was not checked') kafkaRecordsChecked!: number | null;
  @Int() pendingOnKafka!: number;
  @Int() otherLedgerAnchors!: number;
  @Int() divergenceCount!: number;
  @NOne(() => Divergence) firstDivergence!: Divergence | null;
  @List(() => Divergence) divergences!: Divergence[];
  @Time() checkedAt!: string;
}

