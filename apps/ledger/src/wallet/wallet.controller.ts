import { Controller, Get, HttpCode, Param, Post, Query, Req, Res, StreamableFile, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { answerFormat } from '../kernel/answer-format';
import { Readable } from 'node:stream';
import { Roles } from '../kernel/auth/roles.decorator';
import { CurrentPrincipal } from '../kernel/auth/current-principal.decorator';
import type { Principal } from '../kernel/auth/principal';
import { ApiError } from '../kernel/api-error';
import { CSV_CONTENT_TYPE, csvStream } from '../kernel/csv';
import { parseLimit } from '../kernel/pagination';
import { headerValue, REPORT_HEADER_HTTP } from '../kernel/report-header';
import { NoQuery } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { columnMap, walletFileFormat, WALLET_FIELDS, type WalletField } from './wallet-file';
import { WalletItemsQuery, WalletRunsQuery, WalletUploadQuery } from './wallet.dto';
import { WalletItemsPage, WalletRunReport, WalletRunsPage } from './wallet.responses';
import { WalletService, type WalletItemView } from './wallet.service';

/** The columns of the items CSV, in order. */
export const WALLET_ITEM_CSV_COLUMNS = [
  'seq',
  'status',
  'transactionId',
  'type',
  'betId',
  'roundId',
  'accountId',
  'currency',
  'gamingDay',
  'ledgerAmount',
  'walletAmount',
  'walletLine',
  'walletTime',
  'differences',
  'walletCurrency',
  'walletType',
  'walletBetId',
  'walletRoundId',
  'walletAccountId',
] as const;

/**
 * Wallet matching (docs/reports.md §4): upload a wallet transaction file, match it against the
 * ledger's transactions, read the stored runs and their items (JSON pages or one CSV stream).
 * Reads: the reconciliation report's roles (auditor, pit manager). The upload stores a run, so it
 * is a pit manager's (docs/guarantees.md §12: auditors only read). Every call is recorded in `query_log`; refusals of the
 * upload (a POST) in the rejection log, like every refused write. Bounded (docs/reports.md §4.5): rows per upload,
 * a budget per caller, a retention of the items.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@ApiExtraModels(WalletItemsPage)
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller('reconciliation/wallet-files')
export class WalletController {
  constructor(private readonly wallet: WalletService) {}

  @Post()
  @Roles('pit-manager') // auditors only read (docs/guarantees.md §12); they read the runs
  @HttpCode(201)
  @ApiOperation({
    summary:
      'Upload a wallet transaction file (CSV with a header line, or JSONL; raw body) and match it against the ledger: matched, missing in the wallet, missing in the ledger, amount differs, fields differ, duplicated; stored as a run',
  })
  @ApiConsumes('text/csv', 'application/x-ndjson')
  @ApiBody({
    description: 'the file: columns/keys transactionId, roundId, betId, accountId, type (bet|win|refund), amount (integer minor units), currency, time (ISO-8601 with offset); renamed with map.<field>',
    schema: { type: 'string' },
  })
  @ApiCreatedResponse({ type: WalletRunReport })
  async upload(@Query() q: WalletUploadQuery, @Req() req: Request & { correlationId?: string }, @CurrentPrincipal() who: Principal, @Res({ passthrough: true }) res: Response) {
    const contentType = req.headers['content-type'];
    const format = walletFileFormat(contentType);
    if (!format) throw ApiError.of('WALLET.UNSUPPORTED_FILE_TYPE', { contentType: String(contentType ?? 'none').slice(0, 80) });
    const overrides: Partial<Record<WalletField, string>> = {};
    for (const f of WALLET_FIELDS) {
      const v = (q as Record<string, string | undefined>)[`map.${f}`];
      if (v !== undefined) overrides[f] = v;
    }
    const { map, problems } = columnMap(overrides);
    if (problems.length) throw new ApiError('VALIDATION.FAILED', `the request is invalid: ${problems.join('; ')}`, { problems });
    try {
      return await this.wallet.upload(req as Readable, {
        format,
        map,
        mapGiven: overrides,
        fromDay: q.fromDay ?? null,
        toDay: q.toDay ?? null,
        from: q.from ?? null,
        to: q.to ?? null,
        actor: { id: who.id, role: who.role },
        correlationId: req.correlationId ?? null,
      });
    } catch (e) {
      // a refusal before the body's end (over the size or the rows, over the budget): the rest of it is never read
      if (!req.readableEnded) res.setHeader('Connection', 'close');
      throw e;
    }
  }

  @Get()
  @ApiOperation({ summary: 'Wallet match runs, newest first' })
  @ApiOkResponse({ type: WalletRunsPage })
  runs(@Query() q: WalletRunsQuery) {
    return this.wallet.runs(parseLimit(q.limit), q.cursor);
  }

  @Get(':runId')
  @ApiOperation({ summary: 'One wallet match run: its report header, file, scope, totals and summary per currency and gaming day' })
  @ApiOkResponse({ type: WalletRunReport })
  run(@Param('runId') runId: string, @Query() _q: NoQuery) {
    return this.wallet.run(runId);
  }

  @Get(':runId/items')
  @ApiOperation({ summary: "A run's transactions and what became of each, by status; JSON pages or one CSV" })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({
    description:
      '`format=json` (default) or `Accept: application/json`: a page; `format=csv` or `Accept: text/csv`: every item (of the status) as CSV with a header line (attachment); the report header in `Ledger-Report-Header` (docs/reports.md §1)',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(WalletItemsPage) } },
      'text/csv': { schema: { type: 'string', description: `one line per item: ${WALLET_ITEM_CSV_COLUMNS.join(', ')} (differences separated by |; wallet* columns: the wallet's value where that field differs, else empty)` } },
    },
  })
  async items(@Param('runId') runId: string, @Query() q: WalletItemsQuery, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const status = q.status ?? null;
    if (answerFormat(req, q.format, { 'application/json': 'json', 'text/csv': 'csv' }) === 'json') return this.wallet.items(runId, status, parseLimit(q.limit), q.cursor);
    const run = await this.wallet.runWithItems(runId); // 404 (unknown, or its items pruned) before any byte is sent
    res.setHeader(REPORT_HEADER_HTTP, headerValue({ ...run.header, filters: { ...run.header.filters, ...(status ? { status } : {}) } }));
    const rows = async function* (items: AsyncGenerator<WalletItemView>) {
      for await (const i of items) yield csvItem(i);
    };
    const csv = Readable.from(rows(this.wallet.allItems(runId, status))).pipe(csvStream({ columns: WALLET_ITEM_CSV_COLUMNS }));
    return new StreamableFile(csv, { type: CSV_CONTENT_TYPE, disposition: `attachment; filename="wallet-match-${run.runId}${status ? `-${status.toLowerCase()}` : ''}.csv"` });
  }
}

/** An item as a CSV line's fields ({@link WALLET_ITEM_CSV_COLUMNS}): differences joined by `|`, the wallet's values one column each. */
function csvItem(i: WalletItemView): Record<(typeof WALLET_ITEM_CSV_COLUMNS)[number], unknown> {
  const { walletValues: v, ...rest } = i;
  return {
    ...rest,
    differences: i.differences.join('|'),
    walletCurrency: v.currency ?? null,
    walletType: v.type ?? null,
    walletBetId: v.betId ?? null,
    walletRoundId: v.roundId ?? null,
    walletAccountId: v.accountId ?? null,
  };
}
