import { ApiProperty } from '@nestjs/swagger';
import { Amount, Day, NStr, Position, Str } from '../openapi-props';

/**
 * A reconciliation row, shared by the reconciliation report (`reconciliation/`) and the gaming-day close
 * (`gaming-day-close/`) (docs/openapi.json; the console's types are generated from it). Classes only
 * describe; the services answer plain objects of these shapes. Amounts: strings of integer minor
 * units. Times: ISO-8601 UTC.
 */

/** A row of the reconciliation report: the group's dimensions (those asked for) and its sums. */
export class ReconciliationRow {
  @Str({ description: 'when grouped by table', required: false }) tableId?: string;
  @Str({ description: 'when grouped by shoe', required: false }) shoeId?: string;
  @Str({ description: 'when grouped by dealer', required: false }) dealerId?: string;
  @Day({ description: 'when grouped by day', required: false }) gamingDay?: string;
  @Str({ description: 'when grouped by currency', required: false }) currency?: string;
  @Amount('stakes of the settled bets') turnover!: string;
  @Amount('returned to players') payouts!: string;
  @Amount('turnover − payouts') ggr!: string;
  @ApiProperty({ type: String, nullable: true, pattern: '^-?\\d+\\.\\d{6}$', description: 'GGR / turnover, a decimal of exactly 6 places (rounded, exact numeric; `-0.079536`); null without turnover', example: '0.125892' }) hold!:
    string | null;
  @Amount('stakes refunded by voids') voidedStakes!: string;
  @Amount('payout change of result corrections') correctionPayoutDelta!: string;
  @Position('count') betsSettled!: string;
  @Position('count') betsRefunded!: string;
  @Position('count') betsResettled!: string;
  @Position('count') roundsResulted!: string;
  @Position('count') roundsVoided!: string;
  @Position('count') corrections!: string;
  @ApiProperty({ type: String, pattern: '^-?\\d+(/\\d+)?$', description: 'exact total of the fractions of a minor unit dropped by rounding, reduced ("0", "3/4"; docs/reports.md §3)' }) dropped!: string;
}
