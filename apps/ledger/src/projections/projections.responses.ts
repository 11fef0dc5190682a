import { Bool, Enum, Int, Json, List, NOne, NStr, NTime, Position, Str, Time } from '../kernel/openapi-props';

/**
 * The response schemas of the projections' status (docs/openapi.json;
 * the console's types are generated from it). Classes only describe; the services answer plain objects
 * of these shapes. Amounts: strings of integer minor units. Times: ISO-8601 UTC.
 */

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
