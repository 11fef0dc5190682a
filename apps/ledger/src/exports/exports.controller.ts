import { Controller, Get, Param, Query, Req, Res, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Roles } from '../kernel/auth/roles.decorator';
import type { Principal } from '../kernel/auth/principal';
import { ApiError } from '../kernel/api-error';
import { HeavyRead, HeavyReadLimiter } from '../kernel/heavy-read';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { EXPORT_KINDS, isExportKind } from './export-kinds';
import { ExportManifestService } from './export-manifest.service';
import { ExportManifestQuery, ExportPeriodQuery, exportPeriod, ExportQuery } from './exports.dto';
import { ExportAnchorsResponse, ExportManifestResponse } from './exports.responses';
import { ExportsService } from './exports.service';
import { answerFormat } from '../kernel/answer-format';

/**
 * Exports for regulators (docs/reports.md §5): `GET /exports/{kind}` streams the events,
 * settlements, decisions, rejections or access log of a period as JSONL or CSV;
 * `GET /exports/anchors` answers the signed checkpoints and public keys the events verify against;
 * `GET /exports/manifest` signs the manifest of a bundle from the receipts the exports answered.
 * `npm run export` (scripts/export.ts) calls all three and writes a bundle with `manifest.json` that
 * `examples/verify-export/verify.mjs` checks without the ledger's code. Roles of the audit reads;
 * every export is recorded in `query_log` with its row count.
 */
@ApiTags('exports')
@ApiBearerAuth()
@Roles('auditor', 'pit-manager')
@Controller('exports')
export class ExportsController {
  constructor(
    private readonly exports: ExportsService,
    private readonly manifests: ExportManifestService,
    private readonly heavy: HeavyReadLimiter,
  ) {}

  @Get('anchors')
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({ summary: 'The signed checkpoints (anchors) and public keys the events of a period verify against, and the positions the events export covers' })
  @ApiOkResponse({ type: ExportAnchorsResponse })
  anchors(@Query() q: ExportPeriodQuery) {
    const { from, to } = exportPeriod(q);
    return this.exports.anchors(from, to);
  }

  @Get('manifest')
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({
    summary:
      "Sign a bundle's manifest (period, positions, each file's SHA-256, size and row count, the checkpoints' digests) with the report signing key, from the sealed receipts the API recorded when it sent the caller's own exports (one of each kind)",
  })
  @ApiOkResponse({ type: ExportManifestResponse })
  manifest(@Query() q: ExportManifestQuery, @Req() req: Request & { principal?: Principal }) {
    return this.manifests.manifest(q.receipts.split(','), req.principal?.id ?? '');
  }

  @Get(':kind')
  @HeavyRead()
  @ApiParam({ name: 'kind', enum: EXPORT_KINDS })
  @ApiOperation({
    summary:
      'Stream the events, settlements (every revision), decisions, rejections or access log of a period as JSONL (first line the report header, last line a trailer with the row count) or CSV (header in the Ledger-Report-Header response header)',
  })
  @ApiProduces('application/x-ndjson', 'text/csv')
  @ApiOkResponse({
    description:
      '`format=jsonl` (default) or `Accept: application/x-ndjson`: JSONL; `format=csv` or `Accept: text/csv`: CSV. JSONL: `{"header":ReportHeader,"positions":…}`, one JSON object per row, `{"trailer":{"rows":N}}`; CSV: a line of column names, one record per row. Both: response headers `Ledger-Report-Header` (the ReportHeader as ASCII JSON), `Ledger-Export-Count`, `Ledger-Export-Positions`, `Ledger-Export-Receipt` (the receipt GET /exports/manifest signs from, recorded after the last byte)',
    content: {
      'application/x-ndjson': { schema: { type: 'string', description: 'JSON lines' } },
      'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV with a header line' } },
    },
  })
  async export(@Param('kind') kind: string, @Query() q: ExportQuery, @Req() req: Request & { principal?: Principal; correlationId?: string }, @Res() res: Response): Promise<void> {
    if (!isExportKind(kind)) throw new ApiError('ROUTE.NOT_FOUND', `no export ${String(kind).slice(0, 40)}; one of ${EXPORT_KINDS.join(', ')}`);
    if (q.through !== undefined && kind !== 'events') throw new ApiError('VALIDATION.FAILED', 'through applies to the events export only', { through: q.through });
    const caller = {
      id: req.principal?.id ?? 'unknown',
      role: req.principal?.role ?? 'unknown',
      route: `GET /exports/:kind`,
      params: { kind, ...q },
      correlationId: req.correlationId ?? null,
    };
    const { from, to } = exportPeriod(q);
    const format = answerFormat(req, q.format, { 'application/x-ndjson': 'jsonl', 'text/csv': 'csv' });
    await this.heavy.run(req as never, () => this.exports.stream(kind, { from, to, format, through: q.through }, caller, res));
  }
}
