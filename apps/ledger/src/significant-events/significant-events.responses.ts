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
  @ApiProperty({ format: 'uuid' }) causeEventId!: string;
  @ApiProperty({ example: 'BetSettled' }) causeEventType!: string;
  @ApiProperty({ description: 'decimal string' }) causeGlobalPosition!: string;
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
