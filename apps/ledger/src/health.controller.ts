import { Controller, Get, Query } from '@nestjs/common';
import { Public } from './auth/public.decorator';
import { NoQuery } from './queries/query.dto';

/** Liveness probe, the only route without a token. */
@Controller('health')
export class HealthController {
  @Public()
  @Get()
  health(@Query() _q: NoQuery) {
    return { status: 'ok' };
  }
}
