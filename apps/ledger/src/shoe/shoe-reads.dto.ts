import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { Amount, Bool, Enum, Int, Json, List, NInt, One, Position, Str, Time } from '../kernel/openapi-props';
import { EVENT_ROLES, VARIANTS } from '../kernel/response-enums';

/**
 * The response schemas of the reads that drive a shoe (`GET /tables`, a shoe's events)
 * (docs/openapi.json; the console's types are generated from it). Classes only describe; the services
 * answer plain objects of these shapes. Amounts: strings of integer minor units. Times: ISO-8601 UTC.
 */

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
