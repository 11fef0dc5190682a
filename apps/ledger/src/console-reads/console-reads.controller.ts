import { Controller, Get, Param, Query, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../kernel/auth/roles.decorator';
import { TablesRegistry } from '../kernel/tables/tables.registry';
import { parseLimit } from '../kernel/pagination';
import { NoQuery, RoundsQuery, ShoesQuery } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { BigRoadCell } from '../kernel/roads.dto';
import { RoundsPage, ShoesPage, TablesOverviewResponse } from './console.responses';
import { ConsoleReadsService } from './console-reads.service';

/**
 * The reads the back-office console's pages are built on (apps/console; docs/architecture.md §7):
 * the tables page in one call, shoes newest first, a shoe's rounds with their cards. Small SQL reads
 * over `shoe_state`, `hand_outcomes` and `roads`; pit managers and auditors only, each call
 * recorded in `query_log` like every audit read (who looked at what).
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@ApiExtraModels(BigRoadCell)
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class ConsoleReadsController {
  constructor(
    private readonly read: ConsoleReadsService,
    private readonly tables: TablesRegistry,
  ) {}

  @Get('tables/overview')
  @ApiOperation({ summary: 'Every configured table with its latest shoe, its last 12 results (newest first), bead plate and big road' })
  @ApiOkResponse({ type: TablesOverviewResponse })
  overview(@Query() _q: NoQuery) {
    return this.read.tablesOverview(this.tables.list());
  }

  @Get('shoes')
  @ApiOperation({ summary: 'Shoes newest first (by openedAt), by table and status; keyset pages' })
  @ApiOkResponse({ type: ShoesPage })
  shoes(@Query() q: ShoesQuery) {
    return this.read.shoes({ tableId: q.tableId ?? null, status: q.status ?? null, limit: parseLimit(q.limit), cursor: q.cursor });
  }

  @Get('shoes/:shoeId/rounds')
  @ApiOperation({ summary: "A shoe's rounds by hand number: outcome in force, cards with their positions, revision, void and correction times" })
  @ApiOkResponse({ type: RoundsPage })
  rounds(@Param('shoeId') shoeId: string, @Query() q: RoundsQuery) {
    return this.read.rounds(shoeId, { limit: parseLimit(q.limit), cursor: q.cursor });
  }
}
