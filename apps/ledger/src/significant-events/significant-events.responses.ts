import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One significant event as `GET /significant-events` answers it (camelCase columns of the read model). */
export class SignificantEventView {
  @ApiProperty({ format: 'uuid' }) significantEventId!: string;
  @ApiProperty({ description: 'catalogue code AREA.REASON (docs/significant-events.md)' }) code!: string;
  @ApiProperty({ enum: ['info', 'low', 'medium', 'high', 'critical'] }) severity!: string;
  @ApiProperty({ description: '0 (info) … 4 (critical)' }) severityRank!: number;
  @ApiProperty({ nullable: true, type: String }) tableId!: string | null;
  @ApiProperty({ nullable: true, type: String }) shoeId!: string | null;
  @ApiProperty({ nullable: true, type: String }) roundId!: string | null;
  @ApiProperty({ nullable: true, type: String }) dealerId!: string | null;
  @ApiProperty({ description: 'whose act caused it (the cause event’s actor)' }) actorId!: string;
  @ApiProperty({ enum: ['event', 'refusal', 'projector', 'verifier', 'rate-limit-window'], description: 'what raised it (docs/significant-events.md, "Causes")' }) causeKind!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'the cause event (null when the cause is not a ledger event)' }) causeEventId!: string | null;
  @ApiProperty({ example: 'BetSettled', nullable: true, type: String }) causeEventType!: string | null;
  @ApiProperty({ description: 'decimal string', nullable: true, type: String }) causeGlobalPosition!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'the cause as raised: a refusal (error code, reason, request, actor, window with its count), a projector record, a divergence, a window of 429s',
  })
  cause!: Record<string, unknown> | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'small facts of the cause as strings (minor units, ms)' }) details!: Record<string, string>;
  @ApiProperty({ description: 'severity high or above: a second person must acknowledge it' }) requiresAck!: boolean;
  @ApiProperty({ format: 'date-time' }) raisedAt!: string;
  @ApiProperty({ description: 'global position of the SignificantEventRaised, decimal string' }) raisedPosition!: string;
  @ApiProperty({ nullable: true, type: String }) acknowledgedBy!: string | null;
  @ApiProperty({ nullable: true, type: String, enum: ['pit-manager', 'auditor'] }) acknowledgedRole!: string | null;
  @ApiProperty({ nullable: true, type: String }) ackReason!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) acknowledgedAt!: string | null;
  @ApiProperty({ nullable: true, type: String }) ackPosition!: string | null;
}

/** A page of significant events, newest first. */
export class SignificantEventsPage {
  @ApiProperty({ type: [SignificantEventView] }) items!: SignificantEventView[];
  @ApiPropertyOptional({ nullable: true, type: String, description: 'pass as cursor for the next page; null at the end' }) nextCursor!: string | null;
}

/** The answer to an acknowledgement: the SignificantEventAcknowledged recorded. */
export class SignificantEventAcknowledgement {
  @ApiProperty({ format: 'uuid' }) significantEventId!: string;
  @ApiProperty() code!: string;
  @ApiProperty() reason!: string;
  @ApiProperty() acknowledgedBy!: string;
  @ApiProperty({ enum: ['pit-manager', 'auditor'] }) role!: string;
  @ApiProperty({ format: 'uuid', description: 'event id of the SignificantEventAcknowledged' }) eventId!: string;
  @ApiProperty({ description: 'its global position, decimal string' }) globalPosition!: string;
  @ApiProperty({ format: 'date-time' }) acknowledgedAt!: string;
}
