import { Controller, Get, Query, Req } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { LedgerApiEnv } from '@ledger/config';
import { NoQuery } from '../query.dto';
import { MeResponse } from './me.dto';
import type { Principal } from './principal';
import { Roles } from './roles.decorator';

/**
 * `GET /me` (every role): who the bearer token says the caller is (subject, role, tables, expiry)
 * and the gaming day's time zone and cut-off (`GAMING_DAY_TZ`, `GAMING_DAY_CUTOFF_HOUR`, the same
 * settings the projector files rounds under), so the console shows what the role may do and times
 * in the gaming day's zone. Reads nothing but the verified token and the configuration.
 */
@ApiTags('reads')
@ApiBearerAuth()
@Roles('table-device', 'betting-platform', 'pit-manager', 'auditor')
@Controller('me')
export class MeController {
  private readonly gamingDay: { timeZone: string; cutoffHour: number };

  constructor(config: ConfigService<LedgerApiEnv, true>) {
    this.gamingDay = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
  }

  @Get()
  @ApiOperation({ summary: 'The caller: token subject, role, tables, expiry, and the gaming day settings' })
  @ApiOkResponse({ type: MeResponse })
  me(@Req() req: { principal: Principal; tokenExpiresAt?: string }, @Query() _q: NoQuery): MeResponse {
    const p = req.principal;
    return { sub: p.id, role: p.role as MeResponse['role'], tables: p.tables ? [...p.tables] : null, expiresAt: req.tokenExpiresAt ?? '', gamingDay: { ...this.gamingDay } };
  }
}
