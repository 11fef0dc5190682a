import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../kernel/auth/roles.decorator';
import { NoQuery } from '../kernel/query.dto';
import { ProjectionHealthService } from './projection-health.service';
import { AppliedResponse, ProjectionStatus } from './projections.responses';

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
  constructor(private readonly health: ProjectionHealthService) {}

  @Get('status')
  @Roles('auditor', 'pit-manager')
  @ApiOperation({
    summary:
      'Projection status: per partition running or halted, its checkpoint (next offset, last global position, topic id, last commit), the open incidents (code, message, offset, event id, global position, projection, halted at) and the last resolved ones',
  })
  @ApiOkResponse({ type: ProjectionStatus })
  status(@Query() _q: NoQuery) {
    return this.health.status();
  }

  @Get('applied/:eventId')
  @ApiOperation({ summary: 'Whether the projections have applied an event' })
  @ApiOkResponse({ type: AppliedResponse })
  applied(@Param('eventId') eventId: string, @Query() _q: NoQuery) {
    return this.health.applied(eventId);
  }
}
