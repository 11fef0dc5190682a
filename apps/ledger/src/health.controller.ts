import { Controller, Get, Query } from '@nestjs/common';
import { Public } from './auth/public.decorator';
import { NoQuery } from './queries/query.dto';
import { ProjectionHealthService } from './queries/projection-health.service';

/**
 * `GET /health`, the only route without a token (docs/guarantees.md §6). Always 200 while the API
 * answers (it is the liveness probe: a halted projection does not make the API dead, and
 * restarting or unrouting it would fix nothing): `{ status: 'ok', projections: { status: 'running',
 * halted: [] } }`, or `status: 'degraded'` with the halted partitions (group, topic, partition,
 * code, since) while a projection incident is open, or when the read model cannot be read
 * (`projections.status: 'unknown'`). Details: `GET /projections/status` (back office, regulator).
 */
@Controller('health')
export class HealthController {
  constructor(private readonly projections: ProjectionHealthService) {}

  @Public()
  @Get()
  async health(@Query() _q: NoQuery) {
    const projections = await this.projections.health();
    return { status: projections.status === 'running' ? 'ok' : 'degraded', projections };
  }
}
