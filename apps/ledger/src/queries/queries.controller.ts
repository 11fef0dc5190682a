import { Controller, Get, Param, Query, Req, Res, UseInterceptors } from '@nestjs/common';
import { countVerification } from '../kernel/verification-metrics';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { stringify } from 'csv-stringify/sync';
import type { Response } from 'express';
import { Inject } from '@nestjs/common';
import { PgEventStore } from '@ledger/event-store';
import { Roles } from '../kernel/auth/roles.decorator';
import { HEAVY_READ_STORE } from '../kernel/tokens';
import { HeavyRead, HeavyReadLimiter, type HeavyReadRequest } from '../kernel/heavy-read';
import { parseLimit, parseTime } from '../kernel/pagination';
import { AccessLogQuery, EventSearchQuery, NoQuery, ReconciliationQuery, SettlementsQuery } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { ChainVerification } from '../kernel/chain.dto';
import { AccessLogPage, AuditDecisionsPage, AuditEventsPage } from './audit.responses';
import { RoadsResponse, ShoeStateResponse } from './console.responses';
import { RecallResponse } from './recall.responses';
import { ReconciliationReport } from './reconciliation.responses';
import { SettlementsPage, SettlementWithHistory } from './settlements.responses';
import { headerValue, REPORT_HEADER_HTTP, reportHeader } from '../kernel/report-header';

/** Layout version of the reconciliation report (`ReportHeader.reportVersion`, docs/reports.md §1). */
export const RECONCILIATION_REPORT_VERSION = 1;
import { isReconciliationDimension, ReadModelService, type ReconciliationDimension } from './read-model.service';
import { decisionChains } from './recall-chains';
import { ApiError } from '../kernel/api-error';
import { parseAsOf } from '../kernel/as-of/as-of';
import { AsOfQuery } from '../kernel/as-of/as-of.dto';
import { AsOfPositionService } from '../kernel/as-of/as-of-position.service';
import { AsOfReadService } from '../kernel/as-of/as-of-read.service';
import { recallAsOf } from '../kernel/as-of/recall-as-of';
import { AdjustmentsService } from '../kernel/closes/adjustments.service';

/**
 * The read side for regulators and back office (docs/architecture.md §7): game recall, event search,
 * decisions, settlements, reconciliation (JSON or CSV), roads, chain verification. Read-only
 * roles; every call is recorded in `query_log` (who looked at what). Every query string is checked
 * by its DTO (`query.dto.ts`; unknown, repeated or malformed parameters: 400 `VALIDATION.FAILED`,
 * docs/guarantees.md §11); the values reach SQL as parameters only.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@ApiExtraModels(ReconciliationReport)
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class QueriesController {
  constructor(
    private readonly read: ReadModelService,
    @Inject(HEAVY_READ_STORE) private readonly store: PgEventStore,
    private readonly heavy: HeavyReadLimiter,
    private readonly asOf: AsOfReadService,
    private readonly positions: AsOfPositionService,
    private readonly adjustments: AdjustmentsService,
  ) {}

  @Get('shoes/:shoeId/rounds/:roundId/recall')
  @HeavyRead()
  @ApiOperation({ summary: 'Game recall: the round, every revision with actor/approver/reason, its events in order, bets and their history, chain status' })
  @ApiOkResponse({ type: RecallResponse })
  recall(@Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Query() q: AsOfQuery, @Req() req: HeavyReadRequest) {
    const asOf = parseAsOf(q.asOf);
    return this.heavy.run(req, async () => {
      // asOf (docs/reports.md §3): the position first, so the recall read after it holds everything up to it
      const position = asOf ? await this.positions.resolve(asOf) : null;
      const recall = await this.read.recall(shoeId, roundId);
      if (position === null) return recall;
      const cut = recallAsOf(recall, position, decisionChains);
      if (!cut) throw new ApiError('ROUND.NOT_FOUND', `no round ${roundId} in shoe ${shoeId} at global position ${position}`, { roundId });
      return cut;
    });
  }

  @Get('audit/events')
  @ApiOperation({ summary: 'Events by table, shoe, round, type, actor and time range (occurredAt), in global order' })
  @ApiOkResponse({ type: AuditEventsPage })
  events(@Query() q: EventSearchQuery) {
    return this.read.events(this.eventFilters(q));
  }

  @Get('audit/decisions')
  @ApiOperation({ summary: 'Voids (management and automatic), result corrections, shoe voids and commencement corrections' })
  @ApiOkResponse({ type: AuditDecisionsPage })
  decisions(@Query() q: EventSearchQuery) {
    return this.read.decisions(this.eventFilters(q));
  }

  @Get('audit/access-log')
  @ApiOperation({ summary: 'Who looked at what: every audit read, with its filters' })
  @ApiOkResponse({ type: AccessLogPage })
  accessLog(@Query() q: AccessLogQuery) {
    return this.read.accessLog({ actorId: q.actorId ?? null, from: parseTime(q.from, 'from'), to: parseTime(q.to, 'to'), limit: parseLimit(q.limit), cursor: q.cursor });
  }

  @Get('settlements')
  @ApiOperation({ summary: 'Settlements by table, shoe, round, account or status (OPEN, SETTLED, RESETTLED, REFUNDED); amounts in minor units' })
  @ApiOkResponse({ type: SettlementsPage })
  settlements(@Query() q: SettlementsQuery) {
    const asOf = parseAsOf(q.asOf);
    const filters = {
      tableId: q.tableId ?? null,
      shoeId: q.shoeId ?? null,
      roundId: q.roundId ?? null,
      accountId: q.accountId ?? null,
      status: q.status ?? null,
      limit: parseLimit(q.limit),
      cursor: q.cursor,
    };
    if (asOf) return this.asOf.settlements(filters, asOf);
    return this.read.settlements({
      tableId: q.tableId ?? null,
      shoeId: q.shoeId ?? null,
      roundId: q.roundId ?? null,
      accountId: q.accountId ?? null,
      status: q.status ?? null,
      limit: parseLimit(q.limit),
      cursor: q.cursor,
    });
  }

  @Get('settlements/:betId')
  @ApiOperation({ summary: 'One bet with its whole settlement history' })
  @ApiOkResponse({ type: SettlementWithHistory })
  settlement(@Param('betId') betId: string, @Query() q: AsOfQuery) {
    const asOf = parseAsOf(q.asOf);
    return asOf ? this.asOf.settlement(betId, asOf) : this.read.settlement(betId);
  }

  @Get('reports/reconciliation')
  @ApiOperation({ summary: 'Turnover, payouts, GGR, hold; voids and corrections apart; grouped by table, shoe, dealer, day, currency; JSON or CSV' })
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({
    description: '`format=json` (default): the report; `format=csv`: the same rows as CSV with a header line (attachment reconciliation.csv)',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ReconciliationReport) } },
      'text/csv': { schema: { type: 'string', description: 'one line per row, the columns of ReconciliationRow' } },
    },
  })
  async reconciliation(@Query() q: ReconciliationQuery, @Res({ passthrough: true }) res: Response) {
    // the DTO checked every name against the Set of dimensions; the guard narrows the type
    const groupBy: ReconciliationDimension[] = (q.groupBy ?? 'table,currency').split(',').filter((d): d is ReconciliationDimension => d !== '' && isReconciliationDimension(d));
    const format = q.format ?? 'json';
    const scope = {
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
    if (format === 'csv') {
      res.setHeader('content-type', 'text/csv; charset=utf-8');
      res.setHeader('content-disposition', 'attachment; filename="reconciliation.csv"');
      const columns = rows.length ? Object.keys(rows[0]) : ['turnover', 'payouts', 'ggr', 'hold'];
      return stringify(rows, { header: true, columns });
    }
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

  @Get('shoes/:shoeId/roads')
  @ApiOperation({ summary: 'Bead plate, big road and the derived roads (big eye boy, small road, cockroach pig)' })
  @ApiOkResponse({ type: RoadsResponse })
  roads(@Param('shoeId') shoeId: string, @Query() _q: NoQuery) {
    return this.read.roads(shoeId);
  }

  @Get('shoes/:shoeId/state')
  @ApiOperation({ summary: 'Projected shoe state: status, hand number, cards dealt and remaining by rank, burns, cut card' })
  @ApiOkResponse({ type: ShoeStateResponse })
  shoeState(@Param('shoeId') shoeId: string, @Query() _q: NoQuery) {
    return this.read.shoeState(shoeId);
  }

  @Get('tables/:tableId/chain')
  @HeavyRead()
  @ApiOperation({ summary: 'Verify the hash chain of every shoe of a table' })
  @ApiOkResponse({ type: ChainVerification })
  tableChain(@Param('tableId') tableId: string, @Query() _q: NoQuery, @Req() req: HeavyReadRequest) {
    return this.heavy.run(req, () => countVerification('chain', () => this.store.verifyChain({ tableId })));
  }

  private eventFilters(q: EventSearchQuery) {
    return {
      tableId: q.tableId ?? null,
      shoeId: q.shoeId ?? null,
      roundId: q.roundId ?? null,
      type: q.type ?? null,
      actorId: q.actorId ?? null,
      from: parseTime(q.from, 'from'),
      to: parseTime(q.to, 'to'),
      limit: parseLimit(q.limit),
      cursor: q.cursor,
    };
  }
}
