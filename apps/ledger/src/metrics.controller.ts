import { Controller, Get, Query, Header } from '@nestjs/common';
import { registry } from '@ledger/metrics';
import { Public } from './kernel/auth/public.decorator';
import { NoQuery } from './kernel/query.dto';

/**
 * `GET /metrics`: the process's metrics in the Prometheus text format (docs/architecture.md §8).
 * Without a token, like `/health`: it carries counts only, never money, ids or payloads.
 */
@Controller('metrics')
export class MetricsController {
  @Public()
  @Get()
  @Header('Content-Type', registry.contentType)
  async metrics(@Query() _q: NoQuery): Promise<string> {
    return registry.metrics();
  }
}
