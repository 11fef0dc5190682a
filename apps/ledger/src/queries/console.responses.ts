import { ApiProperty } from '@nestjs/swagger';
import { Bool, Columns, Counts, Day, Enum, Int, List, NBool, NEnum, NInt, NOne, NStr, NStrs, NTime, One, Position, Str, Strs, Time } from '../kernel/openapi-props';
import { VARIANTS, SHOE_STATUSES, ROUND_STATUSES, WINNERS, POSITIONS } from '../kernel/response-enums';

/**
 * The response schemas of the console's reads (tables overview, shoes, rounds, roads, a shoe's state)
 * (docs/openapi.json; the console's types are generated from it). Classes only describe; the services
 * answer plain objects of these shapes. Amounts: strings of integer minor units. Times: ISO-8601 UTC.
 */

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
