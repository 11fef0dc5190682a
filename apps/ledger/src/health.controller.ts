import { Controller, Get } from '@nestjs/common';
import { Public } from './auth/public.decorator';

/** Liveness probe, the only route without a token. */
@Controller('health')
export class HealthController {
  @Public()
  @Get()
  health() {
    return { status: 'ok' };
  }
}
