import { Enum, Json, NStr, Position, Str, Time } from './openapi-props';
import { EVENT_ROLES } from './response-enums';

/**
 * The schema of an event as every read of one shows it, shared by the audit search (`audit/`) and the
 * recall (`recall/`) (docs/openapi.json; the console's types are generated from it). Classes only
 * describe; the services answer plain objects of this shape. Times: ISO-8601 UTC.
 */

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
