import { Controller, Get, Query, Req, Res, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { answerFormat } from '../kernel/answer-format';
import { Roles } from '../kernel/auth/roles.decorator';
import { ApiError } from '../kernel/api-error';
import { csvAnswer, type HeaderSink } from '../kernel/csv';
import { HeavyRead, HeavyReadLimiter, type HeavyReadRequest } from '../kernel/heavy-read';
import { parseWindow } from '../kernel/pagination';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { headerValue, REPORT_HEADER_HTTP, reportHeader, type ReportHeader } from '../kernel/report-header';
import { DEFAULT_MIN_ROUNDS, Z_THRESHOLD } from './staff-flags';
import { StaffStatisticsQuery } from './staff-statistics.dto';
import { StaffStatisticsReport } from './staff-statistics.responses';
import { StaffStatisticsService, type PitManagerRow, type StaffFilters, type StaffRow } from './staff-statistics.service';

/** Version of the staff statistics layout (docs/reports.md §6); bumped when a field's meaning changes. */
export const STAFF_REPORT_VERSION = 1;

/** The answer of `GET /statistics/staff` as JSON. */
export interface StaffStatisticsAnswer {
  header: ReportHeader;
  groupBy: StaffFilters['groupBy'];
  flagRule: { test: string; zThreshold: string; minRounds: number };
  items: StaffRow[];
  pitManagers: PitManagerRow[];
}

/**
 * Staff and table statistics (docs/reports.md §6; UKGC RTS 17: game events collated by game,
 * staff and location): per dealer, pit manager, table or shift, for a period; dealers whose void
 * or refusal rate stands far out from their peers' are flagged. Read roles like the
 * reconciliation; every call in `query_log`; JSON or CSV.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@ApiExtraModels(StaffStatisticsReport)
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class StaffStatisticsController {
  constructor(
    private readonly stats: StaffStatisticsService,
    private readonly heavy: HeavyReadLimiter,
  ) {}

  @Get('statistics/staff')
  @HeavyRead()
  @ApiOperation({ summary: 'Staff and table statistics: rounds, voids, corrections, exposed/dropped/unneeded cards, tableau refusals, time per round, per dealer, pit manager, table or shift; outlier flags' })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({
    description:
      '`format=json` (default) or `Accept: application/json`: the report with its header; `format=csv` or `Accept: text/csv`: the rows (items or pitManagers) as CSV with a header line, the report header in the `Ledger-Report-Header` response header (docs/reports.md §1)',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(StaffStatisticsReport) } },
      'text/csv': { schema: { type: 'string', description: 'one line per row' } },
    },
  })
  async staff(@Query() q: StaffStatisticsQuery, @Req() req: HeavyReadRequest & Request, @Res({ passthrough: true }) res: Response): Promise<StaffStatisticsAnswer | string> {
    const { from, to } = parseWindow(q);
    if (q.fromDay && q.toDay && q.fromDay > q.toDay) throw new ApiError('VALIDATION.FAILED', 'fromDay must not be after toDay', { fromDay: q.fromDay, toDay: q.toDay });
    const f: StaffFilters = {
      groupBy: q.groupBy ?? 'dealer',
      from,
      to,
      fromDay: q.fromDay ?? null,
      toDay: q.toDay ?? null,
      tableId: q.tableId ?? null,
      variant: q.variant ?? null,
      minRounds: q.minRounds ? Number(q.minRounds) : DEFAULT_MIN_ROUNDS,
    };
    const answer = await this.heavy.run(req, async () => {
      const items = f.groupBy === 'pitManager' ? [] : await this.stats.staff(f);
      const pitManagers = f.groupBy === 'pitManager' ? await this.stats.pitManagers(f) : [];
      const header = reportHeader(
        'Staff and table statistics',
        'statistics.staff',
        STAFF_REPORT_VERSION,
        { from: f.fromDay ?? f.from, to: f.toDay ?? f.to },
        { groupBy: f.groupBy, from: q.from, to: q.to, fromDay: q.fromDay, toDay: q.toDay, tableId: q.tableId, variant: q.variant, minRounds: q.minRounds },
        items.length === 0 && pitManagers.length === 0,
      );
      return { header, groupBy: f.groupBy, flagRule: { test: 'two-proportion z-test against the pool of the other dealers', zThreshold: Z_THRESHOLD.toString(), minRounds: f.minRounds }, items, pitManagers };
    });
    if (answerFormat(req, q.format, { 'application/json': 'json', 'text/csv': 'csv' }) === 'csv') {
      // the header as every CSV report carries it (docs/reports.md §1): a response header, no preamble line in the body
      res.setHeader(REPORT_HEADER_HTTP, headerValue(answer.header));
      return staffCsv(res, answer);
    }
    return answer;
  }
}

/** Booleans as `true`/`false` (csv-stringify's default is `1` and empty). */
const CAST = { boolean: (v: boolean) => String(v) };

/**
 * The report as CSV, answered as the attachment `staff-statistics-<groupBy>.csv` ({@link csvAnswer}):
 * one line of column names, then one line per row (the report header travels in the
 * `Ledger-Report-Header` response header, docs/reports.md §1) (dealer/table/shift rows flattened:
 * `roundTimeMedianMs`, `roundTimeMeanMs`, and for dealers `voidZ`, `refusalZ`; pit managers as they are).
 */
export function staffCsv(res: HeaderSink, a: StaffStatisticsAnswer): string {
  const filename = `staff-statistics-${a.groupBy}.csv`;
  if (a.groupBy === 'pitManager') {
    const columns = [
      'managerId',
      'decisionsRequested',
      'decisionsApproved',
      'decisionsRejected',
      'decisionsExpired',
      'voidsRequested',
      'voidsApproved',
      'correctionsRequested',
      'correctionsApproved',
      'shoeVoidsRequested',
      'shoeVoidsApproved',
    ];
    return csvAnswer(res, filename, a.pitManagers, columns, CAST);
  }
  const rows = a.items.map((r) => {
    const { roundTimeMs, tests, ...rest } = r;
    const voidTest = tests.find((t) => t.metric === 'VOID_RATE');
    const refusalTest = tests.find((t) => t.metric === 'REFUSAL_RATE');
    return { ...rest, roundTimeMedianMs: roundTimeMs.median, roundTimeMeanMs: roundTimeMs.mean, voidZ: voidTest?.z ?? null, refusalZ: refusalTest?.z ?? null };
  });
  const columns = [
    'dealerId',
    'tableId',
    'shoeId',
    'shiftStartVersion',
    'shiftStartedAt',
    'shiftEndedAt',
    'rounds',
    'roundsResulted',
    'voids',
    'corrections',
    'exposedCards',
    'droppedCards',
    'unneededCards',
    'refusals',
    'roundsWithRefusal',
    'roundTimeMedianMs',
    'roundTimeMeanMs',
    'voidRate',
    'refusalRate',
    'voidZ',
    'refusalZ',
    'flagged',
  ];
  return csvAnswer(res, filename, rows, columns, CAST);
}
