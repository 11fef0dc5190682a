import { Controller, Get, Inject, Param, Query, Req, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PgEventStore } from '@ledger/event-store';
import { Roles } from '../kernel/auth/roles.decorator';
import { ChainVerification } from '../kernel/chain.dto';
import { HeavyRead, HeavyReadLimiter, type HeavyReadRequest } from '../kernel/heavy-read';
import { NoQuery } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { HEAVY_READ_STORE } from '../kernel/tokens';
import { countVerification } from '../kernel/verification-metrics';

/**
 * The hash-chain verification of a table's shoes (docs/guarantees.md §8), straight from the event
 * store on the heavy reads' pool (`HEAVY_READ_STORE`). Read-only roles; a heavy read (its own
 * slots); every call recorded in `query_log`.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class ChainController {
  constructor(
    @Inject(HEAVY_READ_STORE) private readonly store: PgEventStore,
    private readonly heavy: HeavyReadLimiter,
  ) {}

  @Get('tables/:tableId/chain')
  @HeavyRead()
  @ApiOperation({ summary: 'Verify the hash chain of every shoe of a table' })
  @ApiOkResponse({ type: ChainVerification })
  tableChain(@Param('tableId') tableId: string, @Query() _q: NoQuery, @Req() req: HeavyReadRequest) {
    return this.heavy.run(req, () => countVerification('chain', () => this.store.verifyChain({ tableId })));
  }
}
