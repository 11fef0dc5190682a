import { Controller, Get, Param, Query, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../kernel/auth/roles.decorator';
import { parseLimit } from '../kernel/pagination';
import { SettlementsQuery } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { parseAsOf } from '../kernel/as-of/as-of';
import { AsOfQuery } from '../kernel/as-of/as-of.dto';
import { AsOfReadService } from '../kernel/as-of/as-of-read.service';
import { SettlementsPage, SettlementWithHistory } from './settlements.responses';
import { SettlementsService } from './settlements.service';

/**
 * The settlements for regulators and back office (docs/architecture.md §7): the list and one bet
 * with its history, live or as known at a position (`asOf`, docs/reports.md §3). Read-only roles;
 * every call recorded in `query_log`.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class SettlementsController {
  constructor(
    private readonly read: SettlementsService,
    private readonly asOf: AsOfReadService,
  ) {}

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
    return asOf ? this.asOf.settlements(filters, asOf) : this.read.settlements(filters);
  }

  @Get('settlements/:betId')
  @ApiOperation({ summary: 'One bet with its whole settlement history' })
  @ApiOkResponse({ type: SettlementWithHistory })
  settlement(@Param('betId') betId: string, @Query() q: AsOfQuery) {
    const asOf = parseAsOf(q.asOf);
    return asOf ? this.asOf.settlement(betId, asOf) : this.read.settlement(betId);
  }
}
