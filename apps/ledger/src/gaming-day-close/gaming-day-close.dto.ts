import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { Bool, Day, Enum, Int, List, NInt, NOne, NStr, NStrs, One, Position, Str, Strs, Time } from '../kernel/openapi-props';
import { FILTER_ID } from '../kernel/query.dto';
import { ReconciliationRow } from '../kernel/as-of/reconciliation.dto';
import { AdjustmentDto } from '../kernel/closes/adjustment.dto';
import { ReportHeaderSchema } from '../kernel/report-header.dto';

/** Body of `POST /gaming-days/{day}/close`. */
export class CloseDayBody {
  @ApiPropertyOptional({ type: [String], description: 'the table set; default every configured table not closed yet for the day' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @Matches(FILTER_ID, { each: true })
  tableIds?: string[];

  @ApiPropertyOptional({
    description: 'true: close the current gaming day before it ends (docs/reports.md §2): records a request (202) that a second pit manager approves at POST /gaming-days/{day}/close-requests/{requestId}/approve; needs a reason',
  })
  @IsOptional()
  @IsBoolean()
  early?: boolean;

  @ApiPropertyOptional({ description: 'why the day is closed early, 3..500 characters (with early)', minLength: 3, maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

/** Answer to `POST /gaming-days/{day}/close` with `early`: the request awaiting a second pit manager. */
export class EarlyCloseRequestDto {
  @Str('the request id, to approve it with') requestId!: string;
  @Day() gamingDay!: string;
  @NStrs('the table set asked for; null: every table not closed when approved') tableIds!: string[] | null;
  @Str() reason!: string;
  @Str() requestedBy!: string;
  @Time('after it the request can no longer be approved') expiresAt!: string;
  @Enum(['PENDING_APPROVAL']) status!: string;
}

/** An early-close request of a day as it stands (`GET /gaming-days/{day}/close-requests`). */
export class EarlyCloseRequestView {
  @Str('the request id, to approve it with') requestId!: string;
  @Day() gamingDay!: string;
  @NStrs('the table set asked for; null: every table not closed when approved') tableIds!: string[] | null;
  @Str() reason!: string;
  @Str() requestedBy!: string;
  @Time('recordedAt of the request event') requestedAt!: string;
  @Time('after it the request can no longer be approved (at most one hour after requestedAt)') expiresAt!: string;
  @Enum(['PENDING_APPROVAL', 'APPROVED', 'EXPIRED']) status!: string;
  @NStr('the approving pit manager (APPROVED), else null') approvedBy!: string | null;
  @NStr('the GamingDayClosed event that carried it out (APPROVED), else null') closeEventId!: string | null;
}

/** `GET /gaming-days/{day}/close-requests`. */
export class EarlyCloseRequestList {
  @Day() gamingDay!: string;
  @List(() => EarlyCloseRequestView, 'the early-close requests of the day made by the pit managers they name, in request order') items!: EarlyCloseRequestView[];
}

/** An early close's request and approval (four eyes), as its GamingDayClosed event records them. */
export class EarlyCloseApprovalDto {
  @Str() requestId!: string;
  @Str() reason!: string;
  @Str() requestedBy!: string;
  @Str() approvedBy!: string;
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

/** The event with the largest device clock skew of a table's day. */
export class LargestClockSkewDto {
  @Str('the device (the event actor: a table device or betting platform)') deviceId!: string;
  @Int('occurredAt − recordedAt of the event, ms, signed (positive: the device was ahead of the ledger)') skewMs!: number;
  @Position('the event') globalPosition!: string;
  @Str() eventId!: string;
}

/** The largest device clock skew of one table in a gaming day (docs/reports.md §2, docs/architecture.md §9). */
export class TableClockSkewDto {
  @Str() tableId!: string;
  @Int('events of the day at the table whose actor is a table device or betting platform') deviceEvents!: number;
  @NOne(() => LargestClockSkewDto, 'the one with the largest absolute skew (the first in global order among equals); null when no device reported') largest!: LargestClockSkewDto | null;
}

/** One statistic's test of a table's gaming day in a close (docs/fairness.md §8). */
export class CloseFairnessStatisticDto {
  @Str('OUTCOME, PAIRS, NATURALS, …, CARD_RANKS') statistic!: string;
  @Enum(['chi-squared', 'exact-binomial', 'none']) method!: string;
  @Str('the p-value, a plain decimal string (6 significant digits)') pValue!: string;
  @Bool('p-value < α') alert!: boolean;
}

/** The fairness verdict of one table's gaming day, from the events (docs/fairness.md §8). */
export class TableDayFairnessDto {
  @Str() tableId!: string;
  @Int('resulted, not voided rounds of the day counted') rounds!: number;
  @NStr('the game tested; null when no round was counted') variant!: string | null;
  @NInt('decks of its shoes; null when no round was counted') decks!: number | null;
  @Str('FAIRNESS_ALERT_CONFIDENCE as n/d') confidence!: string;
  @Str('the per-test level α, a plain decimal string') alpha!: string;
  @Bool('any statistic alerted') alert!: boolean;
  @List(() => CloseFairnessStatisticDto, 'every statistic of the game') statistics!: CloseFairnessStatisticDto[];
  @Int('STATISTICS.OUT_OF_BOUNDS raised for the table that day, at or below the position') alertsRaised!: number;
}

/** The signed body of a close (docs/reports.md §2). */
export class CloseReportBodyDto {
  @One(() => ReportHeaderSchema, 'the report header (docs/reports.md §1); in a close its generatedAt is the recordedAt of the last event covered (docs/reports.md §2)') header!: ReportHeaderSchema;
  @Day() gamingDay!: string;
  @Strs() tableIds!: string[];
  @Position('every event at or below it is covered') throughPosition!: string;
  @Enum(['MANAGER', 'AUTOMATIC'], 'who closed: a pit manager or the sweeper (signed, so that a copy under another trigger is a replay)') trigger!: string;
  @NOne(() => EarlyCloseApprovalDto, 'an early close: its request and approval (signed); else null') early!: EarlyCloseApprovalDto | null;
  @One(() => GamingDayRule) gamingDayRule!: GamingDayRule;
  @List(() => ReconciliationRow, 'per table, dealer and currency') rows!: ReconciliationRow[];
  @List(() => ReconciliationRow, 'per currency') totals!: ReconciliationRow[];
  @List(() => AdjustmentDto, 'changes to rounds of earlier closed days carried by this day') adjustments!: AdjustmentDto[];
  @ApiPropertyOptional({
    type: () => [TableClockSkewDto],
    description: 'layout 2 on (absent from reports of layout 1): per table of the set, the largest device clock skew of the day (docs/architecture.md §9)',
  })
  clockSkew?: TableClockSkewDto[];
  @ApiPropertyOptional({
    type: () => [TableDayFairnessDto],
    description: 'layout 3 on (absent before): per table of the set, the fairness verdict of its gaming day from the events (docs/fairness.md §8)',
  })
  fairness?: TableDayFairnessDto[];
}

/** A close: its GamingDayClosed event, checked against its signed report (docs/reports.md §2). */
export class GamingDayCloseRecord {
  @Position('the global position of its GamingDayClosed event') closeId!: string;
  @Str('the GamingDayClosed event (recall, exports, npm run -s verify)') eventId!: string;
  @Day() gamingDay!: string;
  @Strs() tableIds!: string[];
  @Position() throughPosition!: string;
  @Enum(['MANAGER', 'AUTOMATIC']) trigger!: string;
  @Str() closedBy!: string;
  @Str() closedByRole!: string;
  @Time('recordedAt of its event (not signed)') closedAt!: string;
  @Str({ example: 'ed25519:0123456789abcdef' }) keyId!: string;
  @Str('Ed25519 signature of the bytes, base64') signature!: string;
  @Str('SHA-256 of the bytes, hex') sha256!: string;
  @NOne(() => EarlyCloseApprovalDto, 'an early close (the day had not ended): request and approval; else null') early!: EarlyCloseApprovalDto | null;
}

/** A close with its report and its exact signed bytes. */
export class GamingDayCloseWithReport extends GamingDayCloseRecord {
  @One(() => CloseReportBodyDto) report!: CloseReportBodyDto;
  @Str('the exact signed bytes (canonical JSON, RFC 8785), as text') bytes!: string;
}

/** A close event that failed its check (docs/reports.md §2): refused, never served as a close. */
export class RefusedCloseDto {
  @Str('the GamingDayClosed event') eventId!: string;
  @Day() gamingDay!: string;
  @Enum(['WRONG_STREAM', 'REPORT_MISSING', 'SHA_MISMATCH', 'KEY_UNKNOWN', 'BAD_SIGNATURE', 'REPLAYED', 'MALFORMED', 'DUPLICATE', 'WRONG_ACTOR', 'EARLY_NOT_APPROVED'], 'why it is not genuine') problem!: string;
  @Str() detail!: string;
}

/** `GET /gaming-days/closes`. */
export class GamingDayClosesList {
  @List(() => GamingDayCloseRecord, 'the genuine closes') items!: GamingDayCloseRecord[];
  @List(() => RefusedCloseDto, 'close events that fail their check (forged or replayed): refused; npm run -s verify reports them too') refused!: RefusedCloseDto[];
}

/** `GET /gaming-days/{day}/close`. */
export class GamingDayCloses {
  @Day() gamingDay!: string;
  @List(() => GamingDayCloseWithReport, 'the genuine closes') closes!: GamingDayCloseWithReport[];
  @List(() => RefusedCloseDto, 'close events of the day that fail their check (forged or replayed): refused') refused!: RefusedCloseDto[];
}
