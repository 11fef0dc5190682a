import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { ID_PATTERN } from '@ledger/events';
import { SEVERITIES, SIGNIFICANT_EVENT_CODES } from '@ledger/significant-events';
import { REASON_PATTERN } from '../common/validators';
import { IsIsoTime, PageQuery } from '../kernel/query.dto';

/** Query of `GET /significant-events` (docs/significant-events.md): every filter optional; pages newest first. */
export class SignificantEventsQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'catalogue code, e.g. WIN.LARGE', enum: [...SIGNIFICANT_EVENT_CODES] }) @IsOptional() @IsIn([...SIGNIFICANT_EVENT_CODES]) code?: string;
  @ApiPropertyOptional({ enum: [...SEVERITIES] }) @IsOptional() @IsIn([...SEVERITIES]) severity?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(ID_PATTERN) tableId?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(ID_PATTERN) dealerId?: string;
  @ApiPropertyOptional({ description: 'raised at or after (ISO-8601, the ledger clock)' }) @IsOptional() @IsIsoTime() from?: string;
  @ApiPropertyOptional({ description: 'raised before (ISO-8601, exclusive)' }) @IsOptional() @IsIsoTime() to?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'true: acknowledged only; false: not acknowledged only' }) @IsOptional() @IsIn(['true', 'false']) acknowledged?: 'true' | 'false';
}

/** Body of `POST /significant-events/{id}/acknowledgements`: why, 3..500 characters. The acknowledging person is the token's subject. */
export class AcknowledgeSignificantEventDto {
  @ApiProperty({ example: 'video reviewed with surveillance: the win is genuine' }) @Matches(REASON_PATTERN) reason!: string;
}
