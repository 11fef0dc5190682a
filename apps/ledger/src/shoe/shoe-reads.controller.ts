import { Controller, Get, Inject, Param, ParseIntPipe, Query, DefaultValuePipe } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { PgEventStore } from '@ledger/event-store';
import { Roles } from '../auth/roles.decorator';
import { ApiError } from '../common/api-error';
import { EVENT_STORE } from '../persistence/persistence.module';
import { TablesRegistry } from '../tables/tables.registry';

/** Reads needed to drive and check a shoe: its stream and its hash chain. Every role may read. */
@ApiTags('reads')
@ApiBearerAuth()
@Roles('table-device', 'betting-platform', 'pit-manager', 'auditor')
@Controller()
export class ShoeReadsController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    private readonly tables: TablesRegistry,
  ) {}

  @Get('tables')
  @ApiOperation({ summary: 'Configured tables: variant, decks, paytable, limits (minor units)' })
  listTables() {
    return { tables: this.tables.list() };
  }

  @Get('shoes/:shoeId/events')
  @ApiOperation({ summary: "A shoe's stream, in stream order, from a version (1-based), up to `limit` events" })
  @ApiQuery({ name: 'fromVersion', required: false })
  @ApiQuery({ name: 'limit', required: false })
  async stream(
    @Param('shoeId') shoeId: string,
    @Query('fromVersion', new DefaultValuePipe(1), ParseIntPipe) fromVersion: number,
    @Query('limit', new DefaultValuePipe(1000), ParseIntPipe) limit: number,
  ) {
    if (fromVersion < 1 || limit < 1 || limit > 10000) throw new ApiError('VALIDATION.FAILED', 'fromVersion ≥ 1 and 1 ≤ limit ≤ 10000', 400);
    const events = await this.store.readStream(`shoe-${shoeId}`, fromVersion);
    if (events.length === 0 && fromVersion === 1) throw new ApiError('SHOE.NOT_FOUND', `no shoe ${shoeId}`, 404);
    const page = events.slice(0, limit);
    const next = events.length > limit ? page[page.length - 1].streamVersion + 1 : null;
    return { shoeId, events: page, nextFromVersion: next };
  }

  @Get('shoes/:shoeId/chain')
  @ApiOperation({ summary: "Verify a shoe's hash chain (tamper evidence)" })
  async chain(@Param('shoeId') shoeId: string) {
    return this.store.verifyChain(`shoe-${shoeId}`);
  }
}
