import { Controller, Get, Header, Param, Query, Res, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { stringify } from 'csv-stringify/sync';
import type { Response } from 'express';
import { Inject } from '@nestjs/common';
import { PgEventStore } from '@ledger/event-store';
import { Roles } from '../auth/roles.decorator';
import { ApiError } from '../common/api-error';
import { EVENT_STORE } from '../persistence/persistence.module';
import { parseDay, parseId, parseLimit, parseTime } from './pagination';
import { ProjectionHealthService } from './projection-health.service';
import { QueryLogInterceptor } from './query-log.interceptor';
import { RECONCILIATION_DIMENSIONS, ReadModelService, ReconciliationDimension } from './read-model.service';

type Q = Record<string, string | undefined>;

const EVENT_QUERY = ['tableId', 'shoeId', 'roundId', 'type', 'actorId', 'from', 'to', 'limit', 'cursor'];

/**
 * The read side for regulators and back office (docs/architecture.md §7): game recall, event search,
 * decisions, settlements, reconciliation (JSON or CSV), roads, chain verification. Read-only
 * roles; every call is recorded in `query_log` (who looked at what).
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class QueriesController {
  constructor(
    private readonly read: ReadModelService,
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
  ) {}

  @Get('shoes/:shoeId/rounds/:roundId/recall')
  @ApiOperation({ summary: 'Game recall: the round, every revision with actor/approver/reason, its events in order, bets and their history, chain status' })
  recall(@Param('shoeId') shoeId: string, @Param('roundId') roundId: string) {
    return this.read.recall(shoeId, roundId);
  }

  @Get('audit/events')
  @ApiOperation({ summary: 'Events by table, shoe, round, type, actor and time range (occurredAt), in global order' })
  @ApiQuery({ name: 'tableId', required: false })
  @ApiQuery({ name: 'shoeId', required: false })
  @ApiQuery({ name: 'roundId', required: false })
  @ApiQuery({ name: 'type', required: false })
  @ApiQuery({ name: 'actorId', required: false })
  @ApiQuery({ name: 'from', required: false, description: 'ISO-8601, inclusive' })
  @ApiQuery({ name: 'to', required: false, description: 'ISO-8601, exclusive' })
  @ApiQuery({ name: 'limit', required: false, description: '1..1000, default 100' })
  @ApiQuery({ name: 'cursor', required: false })
  events(@Query() q: Q) {
    return this.read.events(this.eventFilters(q));
  }

  @Get('audit/decisions')
  @ApiOperation({ summary: 'Voids (management and automatic), result corrections, shoe voids and commencement corrections' })
  decisions(@Query() q: Q) {
    return this.read.decisions(this.eventFilters(q));
  }

  @Get('audit/access-log')
  @ApiOperation({ summary: 'Who looked at what: every audit read, with its filters' })
  accessLog(@Query() q: Q) {
    return this.read.accessLog({ actorId: parseId(q.actorId, 'actorId'), from: parseTime(q.from, 'from'), to: parseTime(q.to, 'to'), limit: parseLimit(q.limit), cursor: q.cursor });
  }

  @Get('settlements')
  @ApiOperation({ summary: 'Settlements by table, shoe, round, account or status (OPEN, SETTLED, RESETTLED, REFUNDED); amounts in minor units' })
  @ApiQuery({ name: 'shoeId', required: false })
  @ApiQuery({ name: 'roundId', required: false })
  @ApiQuery({ name: 'accountId', required: false })
  settlements(@Query() q: Q) {
    const status = q.status;
    if (status !== undefined && !['OPEN', 'SETTLED', 'RESETTLED', 'REFUNDED'].includes(status)) throw new ApiError('VALIDATION.FAILED', 'status must be OPEN, SETTLED, RESETTLED or REFUNDED', 400);
    return this.read.settlements({
      tableId: parseId(q.tableId, 'tableId'),
      shoeId: parseId(q.shoeId, 'shoeId'),
      roundId: parseId(q.roundId, 'roundId'),
      accountId: parseId(q.accountId, 'accountId'),
      status: status ?? null,
      limit: parseLimit(q.limit),
      cursor: q.cursor,
    });
  }

  @Get('settlements/:betId')
  @ApiOperation({ summary: 'One bet with its whole settlement history' })
  settlement(@Param('betId') betId: string) {
    return this.read.settlement(betId);
  }

  @Get('reports/reconciliation')
  @ApiOperation({ summary: 'Turnover, payouts, GGR, hold; voids and corrections apart; grouped by table, shoe, dealer, day, currency; JSON or CSV' })
  @ApiQuery({ name: 'groupBy', required: false, description: 'comma list of table,shoe,dealer,day,currency (default table,currency)' })
  @ApiQuery({ name: 'format', required: false, enum: ['json', 'csv'] })
  @ApiQuery({ name: 'fromDay', required: false, description: 'gaming day YYYY-MM-DD, inclusive' })
  @ApiQuery({ name: 'toDay', required: false, description: 'gaming day YYYY-MM-DD, inclusive' })
  async reconciliation(@Query() q: Q, @Res({ passthrough: true }) res: Response) {
    const groupBy = (q.groupBy ?? 'table,currency').split(',').filter(Boolean) as ReconciliationDimension[];
    for (const d of groupBy) if (!(d in RECONCILIATION_DIMENSIONS)) throw new ApiError('VALIDATION.FAILED', `groupBy: unknown dimension ${d}`, 400);
    const format = q.format ?? 'json';
    if (format !== 'json' && format !== 'csv') throw new ApiError('VALIDATION.FAILED', 'format must be json or csv', 400);
    const rows = await this.read.reconciliation({
      groupBy,
      tableId: parseId(q.tableId, 'tableId'),
      shoeId: parseId(q.shoeId, 'shoeId'),
      dealerId: parseId(q.dealerId, 'dealerId'),
      currency: q.currency && /^[A-Z]{3}$/.test(q.currency) ? q.currency : q.currency ? this.bad('currency') : null,
      fromDay: parseDay(q.fromDay, 'fromDay'),
      toDay: parseDay(q.toDay, 'toDay'),
    });
    if (format === 'csv') {
      res.setHeader('content-type', 'text/csv; charset=utf-8');
      res.setHeader('content-disposition', 'attachment; filename="reconciliation.csv"');
      const columns = rows.length ? Object.keys(rows[0]) : ['turnover', 'payouts', 'ggr', 'hold'];
      return stringify(rows, { header: true, columns });
    }
    return { groupBy, unit: 'minor units of the currency', items: rows };
  }

  @Get('shoes/:shoeId/roads')
  @ApiOperation({ summary: 'Bead plate, big road and the derived roads (big eye boy, small road, cockroach pig)' })
  roads(@Param('shoeId') shoeId: string) {
    return this.read.roads(shoeId);
  }

  @Get('shoes/:shoeId/state')
  @ApiOperation({ summary: 'Projected shoe state: status, hand number, cards dealt and remaining by rank, burns, cut card' })
  shoeState(@Param('shoeId') shoeId: string) {
    return this.read.shoeState(shoeId);
  }

  @Get('tables/:tableId/chain')
  @ApiOperation({ summary: "Verify the hash chain of every shoe of a table" })
  tableChain(@Param('tableId') tableId: string) {
    return this.store.verifyChain({ tableId });
  }

  private eventFilters(q: Q) {
    for (const k of Object.keys(q)) if (!EVENT_QUERY.includes(k)) throw new ApiError('VALIDATION.FAILED', `unknown filter ${k}`, 400);
    if (q.type !== undefined && !/^[A-Za-z]{1,40}$/.test(q.type)) this.bad('type');
    return {
      tableId: parseId(q.tableId, 'tableId'),
      shoeId: parseId(q.shoeId, 'shoeId'),
      roundId: parseId(q.roundId, 'roundId'),
      type: q.type ?? null,
      actorId: parseId(q.actorId, 'actorId'),
      from: parseTime(q.from, 'from'),
      to: parseTime(q.to, 'to'),
      limit: parseLimit(q.limit),
      cursor: q.cursor,
    };
  }

  private bad(name: string): never {
    throw new ApiError('VALIDATION.FAILED', `invalid ${name}`, 400);
  }
}

/**
 * `GET /projections/applied/{eventId}`: lets writers wait until their event is projected (all roles).
 * `GET /projections/status`: every partition (running or halted, its checkpoint) and the open
 * incidents (docs/guarantees.md §6), for back office and regulators.
 */
@ApiTags('reads')
@ApiBearerAuth()
@Roles('table-device', 'betting-platform', 'pit-manager', 'auditor')
@Controller('projections')
export class ProjectionStatusController {
  constructor(
    private readonly read: ReadModelService,
    private readonly health: ProjectionHealthService,
  ) {}

  @Get('status')
  @Roles('auditor', 'pit-manager')
  @ApiOperation({
    summary:
      'Projection status: per partition running or halted, its checkpoint (next offset, last global position, topic id, last commit), the open incidents (code, message, offset, event id, global position, projection, halted at) and the last resolved ones',
  })
  status() {
    return this.health.status();
  }

  @Get('applied/:eventId')
  @ApiOperation({ summary: 'Whether the projections have applied an event' })
  applied(@Param('eventId') eventId: string) {
    return this.read.applied(eventId);
  }
}
