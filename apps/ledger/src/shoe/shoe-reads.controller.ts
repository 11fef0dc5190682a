import { Controller, Get, Inject, Param, Query, Req, UseInterceptors } from '@nestjs/common';
import { countVerification } from '../kernel/verification-metrics';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PgEventStore } from '@ledger/event-store';
import { Roles } from '../kernel/auth/roles.decorator';
import { ApiError } from '../kernel/api-error';
import { EVENT_STORE, HEAVY_READ_STORE } from '../kernel/tokens';
import { HeavyRead, HeavyReadLimiter, type HeavyReadRequest } from '../kernel/heavy-read';
import { NoQuery, StreamQuery } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { ChainVerification } from '../kernel/chain.dto';
import { BetLimit, StreamPage, TablesResponse } from './shoe-reads.dto';
import { TablesRegistry } from '../kernel/tables/tables.registry';

/**
 * Reads needed to drive and check a shoe: its stream and its hash chain. Every role may read. A
 * shoe's raw stream shows every account and stake, so each read of a stream or of its chain is
 * recorded in the append-only `query_log` like the audit reads (who looked at what,
 * docs/architecture.md §10, docs/guarantees.md §9).
 */
@ApiTags('reads')
@ApiBearerAuth()
@ApiExtraModels(BetLimit)
@Roles('table-device', 'betting-platform', 'pit-manager', 'auditor')
@Controller()
export class ShoeReadsController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    private readonly tables: TablesRegistry,
    @Inject(HEAVY_READ_STORE) private readonly heavyStore: PgEventStore,
    private readonly heavy: HeavyReadLimiter,
  ) {}

  @Get('tables')
  @ApiOperation({ summary: 'Configured tables: variant, decks, paytable, limits (minor units)' })
  @ApiOkResponse({ type: TablesResponse })
  listTables(@Query() _q: NoQuery) {
    return { tables: this.tables.list() };
  }

  @Get('shoes/:shoeId/events')
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({ summary: "A shoe's stream, in stream order, from a version (1-based), up to `limit` events" })
  @ApiOkResponse({ type: StreamPage })
  async stream(@Param('shoeId') shoeId: string, @Query() q: StreamQuery) {
    // checked by the DTO: 1 ≤ fromVersion ≤ 2^31−1, 1 ≤ limit ≤ 10000 (400 VALIDATION.FAILED otherwise)
    const fromVersion = q.fromVersion === undefined ? 1 : Number(q.fromVersion);
    const limit = q.limit === undefined ? 1000 : Number(q.limit);
    // one more than the page tells whether there is a next one; the SQL reads no more (a long stream stays cheap)
    const events = await this.store.readStream(`shoe-${shoeId}`, fromVersion, limit + 1);
    if (events.length === 0 && fromVersion === 1) throw new ApiError('SHOE.NOT_FOUND', `no shoe ${shoeId}`);
    const page = events.slice(0, limit);
    const next = events.length > limit ? page[page.length - 1].streamVersion + 1 : null;
    return { shoeId, events: page, nextFromVersion: next };
  }

  @Get('shoes/:shoeId/chain')
  @HeavyRead()
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({ summary: "Verify a shoe's hash chain (tamper evidence)" })
  @ApiOkResponse({ type: ChainVerification })
  async chain(@Param('shoeId') shoeId: string, @Query() _q: NoQuery, @Req() req: HeavyReadRequest) {
    return this.heavy.run(req, () => countVerification('chain', () => this.heavyStore.verifyChain(`shoe-${shoeId}`)));
  }
}
