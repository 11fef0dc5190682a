import { ApiPropertyOptional } from '@nestjs/swagger';
import { ApiError } from '../kernel/api-error';
import { IsIn, IsOptional } from 'class-validator';
import { IsIntegerText, IsIsoTime } from '../kernel/query.dto';

/** The period of an export: recording times, `from` inclusive, `to` exclusive (docs/reports.md §5); default the last 24 hours. */
export class ExportPeriodQuery {
  @ApiPropertyOptional({ description: 'ISO-8601, inclusive; default 24 hours before to' }) @IsOptional() @IsIsoTime() from?: string;
  @ApiPropertyOptional({ description: 'ISO-8601, exclusive, after from; default now' }) @IsOptional() @IsIsoTime() to?: string;
}

/** How long the default period of an export is, in ms (docs/reports.md §5). */
export const DEFAULT_EXPORT_PERIOD_MS = 24 * 3600 * 1000;

/**
 * The period of a query with its defaults: `to` now, `from` {@link DEFAULT_EXPORT_PERIOD_MS} before `to`,
 * as ISO-8601 UTC when defaulted (as given otherwise).
 * @throws ApiError 400 `VALIDATION.FAILED` (details `{ from, to }`) unless `from` is before `to`
 */
export function exportPeriod(q: ExportPeriodQuery, now = new Date()): { from: string; to: string } {
  const to = q.to ?? now.toISOString();
  const from = q.from ?? new Date(Date.parse(to) - DEFAULT_EXPORT_PERIOD_MS).toISOString();
  if (!(Date.parse(from) < Date.parse(to))) throw new ApiError('VALIDATION.FAILED', `the period is empty: from ${from} must be before to ${to}`, { from, to });
  return { from, to };
}

/** Query of `GET /exports/{kind}`. */
export class ExportQuery extends ExportPeriodQuery {
  @ApiPropertyOptional({ enum: ['jsonl', 'csv'], description: 'default jsonl' }) @IsOptional() @IsIn(['jsonl', 'csv']) format?: 'jsonl' | 'csv';
  @ApiPropertyOptional({
    description:
      'events only: the global position the events export ends at (at least the last position of the period), as `positions.through` of `GET /exports/anchors` answered; default: the first signed checkpoint at or after the period',
  })
  @IsOptional()
  @IsIntegerText(1, Number.MAX_SAFE_INTEGER)
  through?: string;
}
