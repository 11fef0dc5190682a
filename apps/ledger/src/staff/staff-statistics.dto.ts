import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { VARIANTS } from '@ledger/rules';
import { FILTER_ID, IsGamingDay, IsIntegerText, IsIsoTime } from '../kernel/query.dto';
import { DEFAULT_MIN_ROUNDS, MIN_ROUNDS_FLOOR } from './staff-flags';
import { STAFF_GROUP_BY } from './staff-statistics.service';

/**
 * Query of `GET /statistics/staff` (docs/reports.md §6). Unknown, repeated or malformed
 * parameters answer 400 `VALIDATION.FAILED`.
 */
export class StaffStatisticsQuery {
  @ApiPropertyOptional({ enum: STAFF_GROUP_BY, description: 'default dealer' }) @IsOptional() @IsIn(STAFF_GROUP_BY as unknown as string[]) groupBy?: (typeof STAFF_GROUP_BY)[number];
  @ApiPropertyOptional({ description: 'ISO-8601 ledger time (recordedAt), inclusive' }) @IsOptional() @IsIsoTime() from?: string;
  @ApiPropertyOptional({ description: 'ISO-8601 ledger time (recordedAt), exclusive' }) @IsOptional() @IsIsoTime() to?: string;
  @ApiPropertyOptional({ description: 'gaming day YYYY-MM-DD, inclusive' }) @IsOptional() @IsGamingDay() fromDay?: string;
  @ApiPropertyOptional({ description: 'gaming day YYYY-MM-DD, inclusive' }) @IsOptional() @IsGamingDay() toDay?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(FILTER_ID) tableId?: string;
  @ApiPropertyOptional({ enum: VARIANTS }) @IsOptional() @IsIn(VARIANTS as unknown as string[]) variant?: string;
  @ApiPropertyOptional({ description: `fewest rounds of a dealer and of their peers for a flag, ${MIN_ROUNDS_FLOOR}..1000000 (default ${DEFAULT_MIN_ROUNDS})` })
  @IsOptional()
  @IsIntegerText(MIN_ROUNDS_FLOOR, 1_000_000)
  minRounds?: string;
  @ApiPropertyOptional({ enum: ['json', 'csv'] }) @IsOptional() @IsIn(['json', 'csv']) format?: 'json' | 'csv';
}
