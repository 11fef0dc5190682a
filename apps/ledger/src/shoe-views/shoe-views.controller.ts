import { Controller, Get, Param, Query, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../kernel/auth/roles.decorator';
import { NoQuery } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { RoadsResponse, ShoeStateResponse } from './shoe-views.responses';
import { ShoeViewsService } from './shoe-views.service';

/**
 * A shoe as the projections show it (docs/architecture.md §7): its roads (bead plate, big road, the
 * derived roads) and its state. Read-only roles; every call recorded in `query_log`.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class ShoeViewsController {
  constructor(private readonly read: ShoeViewsService) {}

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
}
