import { Controller, Get, Query, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../kernel/auth/roles.decorator';
import { parseLimit, parseWindow } from '../kernel/pagination';
import { AccessLogQuery, EventSearchQuery } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { AccessLogPage, AuditDecisionsPage, AuditEventsPage } from './audit.responses';
import { AuditService, type EventFilters } from './audit.service';

/**
 * The audit search for regulators and back office (docs/architecture.md §7): events, decisions and
 * the access log. Read-only roles; every call is recorded in `query_log` (who looked at what). Every
 * query string is checked by its DTO (`kernel/query.dto.ts`; unknown, repeated or malformed
 * parameters: 400 `VALIDATION.FAILED`, docs/guarantees.md §11); the values reach SQL as parameters only.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class AuditController {
  constructor(private readonly read: AuditService) {}

  @Get('audit/events')
  @ApiOperation({
    summary: 'Events by table, shoe, round, type, actor and time range (occurredAt)',
    description:
      'In global order; with a time window (`from` or `to`), in order of `occurredAt`, then global position, so the page is one index range whatever the ledger holds. A `nextCursor` continues the query it came from (400 `VALIDATION.FAILED` on another: a cursor of a page without a time window on one with, or the reverse).',
  })
  @ApiOkResponse({ type: AuditEventsPage })
  events(@Query() q: EventSearchQuery) {
    return this.read.events(eventFilters(q));
  }

  @Get('audit/decisions')
  @ApiOperation({ summary: 'Voids (management and automatic), result corrections, shoe voids and commencement corrections' })
  @ApiOkResponse({ type: AuditDecisionsPage })
  decisions(@Query() q: EventSearchQuery) {
    return this.read.decisions(eventFilters(q));
  }

  @Get('audit/access-log')
  @ApiOperation({ summary: 'Who looked at what: every audit read, with its filters' })
  @ApiOkResponse({ type: AccessLogPage })
  accessLog(@Query() q: AccessLogQuery) {
    return this.read.accessLog({ actorId: q.actorId ?? null, ...parseWindow(q), limit: parseLimit(q.limit), cursor: q.cursor });
  }
}

/** The filters of an event search's query string. @throws ApiError 400 `VALIDATION.FAILED` */
function eventFilters(q: EventSearchQuery): EventFilters {
  return {
    tableId: q.tableId ?? null,
    shoeId: q.shoeId ?? null,
    roundId: q.roundId ?? null,
    type: q.type ?? null,
    actorId: q.actorId ?? null,
    ...parseWindow(q),
    limit: parseLimit(q.limit),
    cursor: q.cursor,
  };
}
