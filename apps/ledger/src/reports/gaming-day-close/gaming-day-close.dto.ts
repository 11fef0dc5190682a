import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, Matches } from 'class-validator';
import { Bool, Day, Enum, Int, List, NStr, One, Position, Str, Strs, Time } from '../../queries/openapi-props';
import { FILTER_ID } from '../../queries/query.dto';
import { ReconciliationRow } from '../../queries/responses.dto';
import { AdjustmentDto } from './adjustment.dto';
import { ReportHeaderSchema } from '../report-header.dto';

/** Body of `POST /gaming-days/{day}/close`. */
export class CloseDayBody {
  @ApiPropertyOptional({ type: [String], description: 'the table set; default every configured table not closed yet for the day' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @Matches(FILTER_ID, { each: true })
  tableIds?: string[];
}

/** Query of `GET /gaming-days/{day}/close`. */
export class CloseDayQuery {
  @ApiPropertyOptional({ description: 'only the close covering this table' }) @IsOptional() @Matches(FILTER_ID) tableId?: string;
  @ApiPropertyOptional({ enum: ['json', 'csv', 'raw'], description: 'raw: the exact signed bytes of the one close (give tableId when the day has several)' })
  @IsOptional()
  @IsIn(['json', 'csv', 'raw'])
  format?: 'json' | 'csv' | 'raw';
}

/** The gaming-day rule of a close. */
export class GamingDayRule {
  @Str() timeZone!: string;
  @Int() cutoffHour!: number;
}

/** The signed body of a close (docs/reports.md §2). */
export class CloseReportBodyDto {
  @One(() => ReportHeaderSchema, 'the report header (docs/reports.md §1); in a close its generatedAt is the recordedAt of the last event covered (docs/reports.md §2)') header!: ReportHeaderSchema;
  @Day() gamingDay!: string;
  @Strs() tableIds!: string[];
  @Position('every event at or below it is covered') throughPosition!: string;
  @One(() => GamingDayRule) gamingDayRule!: GamingDayRule;
  @List(() => ReconciliationRow, 'per table, dealer and currency') rows!: ReconciliationRow[];
  @List(() => ReconciliationRow, 'per currency') totals!: ReconciliationRow[];
  @List(() => AdjustmentDto, 'changes to rounds of earlier closed days carried by this day') adjustments!: AdjustmentDto[];
}

/** A stored close. */
export class GamingDayCloseRecord {
  @Position() closeId!: string;
  @Day() gamingDay!: string;
  @Strs() tableIds!: string[];
  @Position() throughPosition!: string;
  @Enum(['MANAGER', 'AUTOMATIC']) trigger!: string;
  @Str() closedBy!: string;
  @Str() closedByRole!: string;
  @Time('wall clock of the close (not signed)') closedAt!: string;
  @Str({ example: 'ed25519:0123456789abcdef' }) keyId!: string;
  @Str('Ed25519 signature of the bytes, base64') signature!: string;
  @Str('SHA-256 of the bytes, hex') sha256!: string;
}

/** A close with its report and its exact signed bytes. */
export class GamingDayCloseWithReport extends GamingDayCloseRecord {
  @One(() => CloseReportBodyDto) report!: CloseReportBodyDto;
  @Str('the exact signed bytes (canonical JSON, RFC 8785), as text') bytes!: string;
}

/** `GET /gaming-days/closes`. */
export class GamingDayClosesList {
  @List(() => GamingDayCloseRecord) items!: GamingDayCloseRecord[];
}

/** `GET /gaming-days/{day}/close`. */
export class GamingDayCloses {
  @Day() gamingDay!: string;
  @List(() => GamingDayCloseWithReport) closes!: GamingDayCloseWithReport[];
}
