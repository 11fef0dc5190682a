import { ApiProperty } from '@nestjs/swagger';
import { Enum, Int, Json, List, Position, Str } from '../kernel/openapi-props';
import { DECISION_STATUSES } from '../kernel/response-enums';

/**
 * The answers of the write routes and of the four-eyes requests (docs/openapi.json; the console's
 * types are generated from it). Classes only describe; the services answer plain objects of these
 * shapes. Amounts: strings of integer minor units. Times: ISO-8601 UTC.
 */

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
