import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { FILTER_ID, IsGamingDay } from '../kernel/query.dto';

/**
 * Query of `GET /statistics/fairness` (docs/fairness.md): a table's gaming day, optionally one
 * shoe or one dealer of it. Unknown, repeated or malformed parameters answer 400 `VALIDATION.FAILED`.
 */
export class FairnessQuery {
  @ApiProperty() @Matches(FILTER_ID) tableId!: string;
  @ApiProperty({ description: 'gaming day YYYY-MM-DD' }) @IsGamingDay() gamingDay!: string;
  @ApiPropertyOptional({ description: 'only this shoe of the day' }) @IsOptional() @Matches(FILTER_ID) shoeId?: string;
  @ApiPropertyOptional({ description: 'only the rounds this dealer dealt that day' }) @IsOptional() @Matches(FILTER_ID) dealerId?: string;
}
