import { ApiProperty } from '@nestjs/swagger';
import { CARD_JSON_PATTERN, CardCodes } from '../common/validators';
import { Bool, Day, Enum, Int, List, NBool, NEnum, NInt, NOne, NStr, NStrs, NTime, Str, Strs, Time } from '../kernel/openapi-props';
import { VARIANTS, SHOE_STATUSES, ROUND_STATUSES, WINNERS, POSITIONS } from '../kernel/response-enums';
import { BeadCell, BigRoad } from '../kernel/roads.dto';

/**
 * The response schemas of the console's reads (tables overview, shoes, a shoe's rounds)
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
  @ApiProperty({ type: String, pattern: CARD_JSON_PATTERN, description: 'card code: rank A 2..9 T J Q K (or 10), suit S H D C', example: '9S' }) card!: string;
}

/** A round of a shoe (from `hand_outcomes`): its outcome in force, cards and revision. */
export class RoundRow extends RoundSummary {
  @CardCodes({ nullable: true, description: "the player's cards" }) playerCards!: string[] | null;
  @CardCodes({ nullable: true, description: "the banker's cards" }) bankerCards!: string[] | null;
  @List(() => DealtCard, 'every card dealt to the round in dealing order (the corrected ones after a correction)') cards!: DealtCard[];
  @CardCodes({ description: 'cards drawn and not needed' }) unneededCards!: string[];
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
