import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiError } from '../kernel/api-error';
import { IsIn, IsOptional, Matches } from 'class-validator';
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

/** The most receipts `GET /exports/manifest` takes (a bundle is one export of each of the five kinds). */
export const MANIFEST_RECEIPTS_MAX = 10;

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** Query of `GET /exports/manifest` (docs/reports.md §5, "The bundle"). */
export class ExportManifestQuery {
  @ApiProperty({
    description: `the receipts (UUIDs, comma-separated, at most ${MANIFEST_RECEIPTS_MAX}) the exports of the bundle answered in Ledger-Export-Receipt: one of each kind, one period, one format`,
    example: '0b6f3c1e-5d4a-4c43-9a56-3f0e2f7f6a10,…',
  })
  @Matches(new RegExp(`^${UUID}(,${UUID}){0,${MANIFEST_RECEIPTS_MAX - 1}}$`), { message: `receipts must be 1..${MANIFEST_RECEIPTS_MAX} UUIDs separated by commas` })
  receipts!: string;
}
