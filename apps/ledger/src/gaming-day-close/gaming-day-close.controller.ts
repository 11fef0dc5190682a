import { Body, Controller, Get, Param, Post, Query, Req, Res, UseInterceptors } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { answerFormat } from '../kernel/answer-format';
import { CurrentPrincipal } from '../kernel/auth/current-principal.decorator';
import type { Principal } from '../kernel/auth/principal';
import { Roles } from '../kernel/auth/roles.decorator';
import { ApiError } from '../kernel/api-error';
import { csvAnswer } from '../kernel/csv';
import { FILTER_ID, isGamingDay, NoQuery } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { CLOSE_CSV_COLUMNS, closeCsvRecords, type CloseReportBody } from '../kernel/closes/close-report';
import { CloseDayBody, CloseDayQuery, CloseReportBodyDto, EarlyCloseRequestDto, EarlyCloseRequestList, GamingDayCloses, GamingDayClosesList, GamingDayCloseWithReport } from './gaming-day-close.dto';
import { GamingDayCloseService } from './gaming-day-close.service';

/** The media type of a close's exact signed bytes (`format=raw`): JSON, but not the list of closes `application/json` answers (docs/reports.md §2). */
export const CLOSE_REPORT_TYPE = 'application/vnd.ledger.close-report+json';

function checkDay(day: string): string {
  if (!isGamingDay(day)) throw new ApiError('VALIDATION.FAILED', 'day must be a gaming day YYYY-MM-DD that exists', { problems: ['day must be a date YYYY-MM-DD that exists'] });
  return day;
}

/**
 * Gaming-day closes (docs/reports.md §2): a pit manager closes a day for a table set (the API also
 * does at the cut-off plus `GAMING_DAY_CLOSE_GRACE_MINUTES`); back office and regulators list them
 * and fetch each frozen report with its signature and exact signed bytes, as JSON, CSV or the raw
 * bytes. Reads are recorded in `query_log` like the other audit reads.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@ApiExtraModels(GamingDayCloses, CloseReportBodyDto)
@Roles('auditor', 'pit-manager')
@Controller('gaming-days')
export class GamingDayCloseController {
  constructor(private readonly closes: GamingDayCloseService) {}

  @Post(':day/close')
  @Roles('pit-manager')
  @ApiOperation({
    summary:
      'Close a gaming day that has ended for a table set (default: every table not closed yet): freeze and sign its report, record it as a GamingDayClosed event. The current day: early=true and a reason record a request (202) for a second pit manager',
  })
  @ApiCreatedResponse({ type: GamingDayCloseWithReport })
  @ApiAcceptedResponse({ type: EarlyCloseRequestDto, description: 'early=true: the request, awaiting a second pit manager' })
  async close(@Param('day') day: string, @Body() body: CloseDayBody, @CurrentPrincipal() p: Principal, @Res({ passthrough: true }) res: Response) {
    if (body.early) {
      res.status(202);
      return this.closes.requestEarlyClose(checkDay(day), body.tableIds ?? null, body.reason ?? '', { id: p.id });
    }
    if (body.reason !== undefined) throw new ApiError('VALIDATION.FAILED', 'reason goes with early=true', { problems: ['reason: only with early=true'] });
    return this.closes.close(checkDay(day), body.tableIds ?? null, { id: p.id, role: p.role, trigger: 'MANAGER' });
  }

  @Post(':day/close-requests/:requestId/approve')
  @Roles('pit-manager')
  @ApiOperation({ summary: "A second pit manager approves an early close of the current gaming day (four eyes): the day is closed for the request's table set" })
  @ApiCreatedResponse({ type: GamingDayCloseWithReport })
  async approve(@Param('day') day: string, @Param('requestId') requestId: string, @CurrentPrincipal() p: Principal) {
    if (!FILTER_ID.test(requestId)) throw new ApiError('VALIDATION.FAILED', 'requestId must be an id', { problems: ['requestId: 1..64 characters of A-Z a-z 0-9 _ . : -'] });
    return this.closes.approveEarlyClose(checkDay(day), requestId, { id: p.id, role: p.role, trigger: 'MANAGER' });
  }

  @Get(':day/close-requests')
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({ summary: "The day's early-close requests (four eyes) with their status: pending approval, approved (by whom, which close) or expired" })
  @ApiOkResponse({ type: EarlyCloseRequestList })
  async requests(@Param('day') day: string, @Query() _q: NoQuery) {
    return { gamingDay: checkDay(day), items: await this.closes.requests(checkDay(day)) };
  }

  @Get('closes')
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({ summary: 'Every gaming-day close: day, table set, global position covered, who, when, key id, signature and SHA-256' })
  @ApiOkResponse({ type: GamingDayClosesList })
  async list(@Query() _q: NoQuery) {
    const { closes, refused } = await this.closes.list();
    return { items: closes, refused };
  }

  @Get(':day/close')
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({ summary: "A day's frozen close report(s) with signature, key id and exact signed bytes; JSON, CSV or the raw bytes" })
  @ApiProduces('application/json', 'text/csv', CLOSE_REPORT_TYPE)
  @ApiOkResponse({
    description: `\`format=json\` (default) or \`Accept: application/json\`: the closes of the day; \`format=csv\` or \`Accept: text/csv\`: their rows, totals and adjustments (attachment); \`format=raw\` or \`Accept: ${CLOSE_REPORT_TYPE}\`: the exact signed bytes of the one close, as \`${CLOSE_REPORT_TYPE}\` (headers x-report-signature, x-report-key-id, x-report-sha256)`,
    content: {
      'application/json': { schema: { $ref: getSchemaPath(GamingDayCloses) } },
      'text/csv': { schema: { type: 'string' } },
      [CLOSE_REPORT_TYPE]: { schema: { $ref: getSchemaPath(CloseReportBodyDto), description: 'the signed CloseReportBodyDto, byte for byte' } },
    },
  })
  async get(@Param('day') day: string, @Query() q: CloseDayQuery, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    // 404 only for a day without any close; the tableId filter narrows the list (possibly to none), like the other list filters
    const { closes: all, refused } = await this.closes.ofDay(checkDay(day), null);
    const closes = all.filter((c) => !q.tableId || c.tableIds.includes(q.tableId));
    const format = answerFormat(req, q.format, { 'application/json': 'json', 'text/csv': 'csv', [CLOSE_REPORT_TYPE]: 'raw' });
    if (format === 'raw') {
      if (closes.length !== 1) {
        throw new ApiError('VALIDATION.FAILED', `format=raw needs exactly one close; ${closes.length} match: give the tableId of one`, { problems: ['format=raw: tableId must select exactly one close'] });
      }
      const c = closes[0];
      res.setHeader('content-type', CLOSE_REPORT_TYPE);
      res.setHeader('x-report-signature', c.signature);
      res.setHeader('x-report-key-id', c.keyId);
      res.setHeader('x-report-sha256', c.sha256);
      res.send(Buffer.from(c.bytes, 'utf8'));
      return undefined;
    }
    if (format === 'csv') {
      const records = closes.flatMap((c) => closeCsvRecords(JSON.parse(c.bytes) as CloseReportBody).map((r) => ({ closeId: c.closeId, ...r })));
      return csvAnswer(res, `gaming-day-close-${day}.csv`, records, ['closeId', ...CLOSE_CSV_COLUMNS]);
    }
    return { gamingDay: day, closes: closes.map((c) => ({ ...c, report: JSON.parse(c.bytes) })), refused };
  }
}
