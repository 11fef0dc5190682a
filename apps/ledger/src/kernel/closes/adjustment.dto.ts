import { ApiProperty } from '@nestjs/swagger';
import { Amount, Day, Enum, NStr, Position, Str, Time } from '../openapi-props';

/** An adjustment (docs/reports.md §2), as the reconciliation report and the gaming-day close show it. */
export class AdjustmentDto {
  @Str() roundId!: string;
  @Str() shoeId!: string;
  @Str() tableId!: string;
  @Str() dealerId!: string;
  @Str({ example: 'EUR' }) currency!: string;
  @Day('the closed gaming day the round belongs to') closedDay!: string;
  @Position('the close that froze that day') closeId!: string;
  @Day('the gaming day whose report carries the adjustment') targetDay!: string;
  @Enum(['CORRECTED', 'VOIDED', 'RESULTED', 'SETTLEMENT'], 'what changed') kind!: string;
  @Str('the event that made the change (the compensating ResultCorrected or RoundVoided, or the first settlement event)') eventId!: string;
  @Position('global position of that event') globalPosition!: string;
  @Time('when the ledger recorded it') recordedAt!: string;
  @NStr('the four-eyes decision behind it') decisionId!: string | null;
  @NStr() reason!: string | null;
  @NStr() actingManagerId!: string | null;
  @NStr() approverId!: string | null;
  @NStr('the event it compensates') compensates!: string | null;
  @Amount('change of turnover') turnover!: string;
  @Amount('change of payouts') payouts!: string;
  @Amount('change of GGR') ggr!: string;
  @Amount('change of voided stakes') voidedStakes!: string;
  @Amount('change of the correction payout delta') correctionPayoutDelta!: string;
  @ApiProperty({ type: String, pattern: '^-?\\d+(/\\d+)?$', description: 'change of the dropped-fraction total, reduced' }) dropped!: string;
  @ApiProperty({ type: String, pattern: '^-?\\d+$', description: 'change of the count' }) betsSettled!: string;
  @ApiProperty({ type: String, pattern: '^-?\\d+$', description: 'change of the count' }) betsRefunded!: string;
  @ApiProperty({ type: String, pattern: '^-?\\d+$', description: 'change of the count' }) betsResettled!: string;
  @ApiProperty({ type: String, pattern: '^-?\\d+$', description: 'change of the count' }) roundsResulted!: string;
  @ApiProperty({ type: String, pattern: '^-?\\d+$', description: 'change of the count' }) roundsVoided!: string;
  @ApiProperty({ type: String, pattern: '^-?\\d+$', description: 'change of the count' }) corrections!: string;
}
