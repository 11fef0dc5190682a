import { Controller, Get, Query, Req, Res, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { answerFormat } from '../kernel/answer-format';
import { Roles } from '../kernel/auth/roles.decorator';
import { csvAnswer } from '../kernel/csv';
import { ReconciliationQuery } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { headerValue, REPORT_HEADER_HTTP, reportHeader } from '../kernel/report-header';
import { parseAsOf } from '../kernel/as-of/as-of';
import { AsOfPositionService } from '../kernel/as-of/as-of-position.service';
import { AsOfReadService } from '../kernel/as-of/as-of-read.service';
import { AdjustmentsService } from '../kernel/closes/adjustments.service';
import { ReconciliationReport } from './reconciliation.responses';
import { isReconciliationDimension, ReconciliationService, type ReconciliationDimension, type ReconciliationFilters } from './reconciliation.service';

/** Layout version of the reconciliation report (`ReportHeader.reportVersion`, docs/reports.md §1). */
export const RECONCILIATION_REPORT_VERSION = 1;

/**
 * The reconciliation report for regulators and back office (docs/architecture.md §7, docs/reports.md):
 * turnover, payouts, GGR and hold by any grouping, live or as known at a position, as JSON (with the
 * adjustments of closed days) or CSV. Read-only roles; every call recorded in `query_log`.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@ApiExtraModels(ReconciliationReport)
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class ReconciliationController {
  constructor(
    private readonly read: ReconciliationService,
    private readonly asOf: AsOfReadService,
    private readonly positions: AsOfPositionService,
    private readonly adjustments: AdjustmentsService,
  ) {}

  @Get('reports/reconciliation')
  @ApiOperation({ summary: 'Turnover, payouts, GGR, hold; voids and corrections apart; grouped by table, shoe, dealer, day, currency; JSON or CSV' })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({
    description: '`format=json` (default) or `Accept: application/json`: the report; `format=csv` or `Accept: text/csv`: the same rows as CSV with a header line (attachment reconciliation.csv)',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ReconciliationReport) } },
      'text/csv': { schema: { type: 'string', description: 'one line per row, the columns of ReconciliationRow' } },
    },
  })
  async reconciliation(@Query() q: ReconciliationQuery, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    // the DTO checked every name against the Set of dimensions; the guard narrows the type
    const groupBy: ReconciliationDimension[] = (q.groupBy ?? 'table,currency').split(',').filter((d): d is ReconciliationDimension => d !== '' && isReconciliationDimension(d));
    const format = answerFormat(req, q.format, { 'application/json': 'json', 'text/csv': 'csv' });
    const scope: ReconciliationFilters = {
      groupBy,
      tableId: q.tableId ?? null,
      shoeId: q.shoeId ?? null,
      dealerId: q.dealerId ?? null,
      currency: q.currency ?? null,
      fromDay: q.fromDay ?? null,
      toDay: q.toDay ?? null,
    };
    const asOf = parseAsOf(q.asOf);
    const at = asOf ? await this.asOf.reconciliation(scope, asOf) : null;
    const rows = at ? at.rows : await this.read.reconciliation(scope);
    // the report header (docs/reports.md §1): in the JSON body as `header`, and for both formats as the response header Ledger-Report-Header
    const header = reportHeader(
      'Reconciliation report',
      'reconciliation',
      RECONCILIATION_REPORT_VERSION,
      { from: q.fromDay ?? null, to: q.toDay ?? null },
      { groupBy: groupBy.join(','), tableId: q.tableId, shoeId: q.shoeId, dealerId: q.dealerId, currency: q.currency, asOf: q.asOf, format },
      rows.length === 0,
    );
    res.setHeader(REPORT_HEADER_HTTP, headerValue(header));
    if (format === 'csv') return csvAnswer(res, 'reconciliation.csv', rows, rows.length ? Object.keys(rows[0]) : ['turnover', 'payouts', 'ggr', 'hold']);
    // the changes to rounds of closed days carried by the days asked for (docs/reports.md §2), as known at the same position
    const adjustments = (
      await this.adjustments.at(at ? at.position : await this.positions.latestProjected(), {
        fromDay: scope.fromDay,
        toDay: scope.toDay,
        tableIds: scope.tableId ? [scope.tableId] : null,
        currency: scope.currency,
      })
    ).filter((a) => (!scope.shoeId || a.shoeId === scope.shoeId) && (!scope.dealerId || a.dealerId === scope.dealerId));
    return { groupBy, unit: 'minor units of the currency', ...(at ? { asOfPosition: at.position.toString() } : {}), items: rows, adjustments, header };
  }
}
