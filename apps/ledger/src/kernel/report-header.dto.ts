import { ApiProperty } from '@nestjs/swagger';
import { Bool, Int, NStr, One, Str, Time } from './openapi-props';

/** `ReportHeader.period` (docs/reports.md §1). */
export class ReportPeriodSchema {
  @NStr('ISO date (gaming day) or ISO time; null: open-ended') from!: string | null;
  @NStr('ISO date (gaming day) or ISO time; null: open-ended') to!: string | null;
}

/** `ReportHeader.software` (docs/reports.md §1). */
export class ReportSoftwareSchema {
  @Str({ example: 'baccarat-round-ledger' }) name!: string;
  @Str({ example: '0.1.0' }) version!: string;
}

/**
 * The OpenAPI schema of `ReportHeader` (apps/ledger/src/kernel/report-header.ts, docs/reports.md §1):
 * the header every report and export carries.
 */
export class ReportHeaderSchema {
  @Str({ example: 'Reconciliation report' }) title!: string;
  @Str({ example: 'reconciliation' }) report!: string;
  @Int('layout version of the report') reportVersion!: number;
  @One(() => ReportPeriodSchema) period!: ReportPeriodSchema;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'the filters the report was run with (only those given)' }) filters!: Record<string, string>;
  @One(() => ReportSoftwareSchema) software!: ReportSoftwareSchema;
  @Time('when the report was produced (UTC)') generatedAt!: string;
  @Bool('true when the period holds no activity for the filters (the body is then empty)') noActivity!: boolean;
}
