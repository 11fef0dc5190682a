import { ApiProperty } from '@nestjs/swagger';
import { ReportHeaderSchema } from '../kernel/report-header.dto';
import { List, One, Position, Str } from '../kernel/openapi-props';
import { AdjustmentDto } from '../kernel/closes/adjustment.dto';
import { ReconciliationRow } from '../kernel/as-of/reconciliation.dto';

/**
 * The response schema of the reconciliation report (docs/openapi.json; the console's types are
 * generated from it). Classes only describe; the services answer plain objects of these shapes.
 * Amounts: strings of integer minor units. Times: ISO-8601 UTC.
 */

/** `GET /reports/reconciliation` (format json). */
export class ReconciliationReport {
  @ApiProperty({ type: 'array', items: { type: 'string', enum: ['table', 'shoe', 'dealer', 'day', 'currency'] } }) groupBy!: string[];
  @Str({ example: 'minor units of the currency' }) unit!: string;
  @Position({ description: 'with asOf: the global position the report was computed at (docs/reports.md §3)', required: false }) asOfPosition?: string;
  @List(() => ReconciliationRow) items!: ReconciliationRow[];
  /** The report header (docs/reports.md §1); also in the response header `Ledger-Report-Header` (JSON and CSV). */
  @One(() => ReportHeaderSchema, 'the report header (docs/reports.md §1)') header!: ReportHeaderSchema;
  @List(() => AdjustmentDto, 'changes after a close to rounds of closed gaming days, carried by the days of this report (docs/reports.md §2); not in the CSV') adjustments!: AdjustmentDto[];
}
