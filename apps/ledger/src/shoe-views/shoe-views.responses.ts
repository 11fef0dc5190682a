import { ApiProperty } from '@nestjs/swagger';
import { Bool, Counts, Enum, Int, List, NInt, NStr, NTime, One, Position, Str, Time } from '../kernel/openapi-props';
import { VARIANTS, SHOE_STATUSES } from '../kernel/response-enums';
import { BeadCell, BigRoad } from '../kernel/roads.dto';

/**
 * The response schemas of a shoe's views (its roads, its projected state) (docs/openapi.json; the
 * console's types are generated from it). Classes only describe; the services answer plain objects
 * of these shapes. Times: ISO-8601 UTC.
 */

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
