import { Body, Controller, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Principal } from '../auth/principal';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Roles } from '../auth/roles.decorator';
import { CorrectCommencementDto } from './dto/table-facts.dto';
import { CorrectResultDto, DecisionDto } from './dto/management.dto';
import { ShoeCommandDispatcher } from './shoe-command.dispatcher';

/**
 * Management decisions (role `pit-manager`): compensating events, never updates (§5). The acting
 * manager is the token's subject; `approverId` is the second manager; neither may be the dealer
 * of the round concerned.
 */
@ApiTags('management')
@ApiBearerAuth()
@ApiHeader({ name: 'Idempotency-Key', required: false })
@Roles('pit-manager')
@Controller('shoes/:shoeId')
export class ManagementController {
  constructor(private readonly dispatcher: ShoeCommandDispatcher) {}

  @Post('rounds/:roundId/void')
  @ApiOperation({ summary: 'Void a round: every stake refunded' })
  voidRound(@Req() req: Request, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: DecisionDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, {
      type: 'VoidRound',
      roundId,
      decision: { reason: b.reason, actingManagerId: p.id, approverId: b.approverId },
    });
  }

  @Post('rounds/:roundId/result-corrections')
  @ApiOperation({ summary: 'Edit a round result from corrected cards: every bet re-settled' })
  correctResult(@Req() req: Request, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: CorrectResultDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, {
      type: 'CorrectResult',
      roundId,
      cards: b.cards,
      decision: { reason: b.reason, actingManagerId: p.id, approverId: b.approverId },
    });
  }

  @Post('void')
  @ApiOperation({ summary: 'Void the whole shoe: every round not yet voided is voided and refunded' })
  voidShoe(@Req() req: Request, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: DecisionDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, {
      type: 'VoidShoe',
      decision: { reason: b.reason, actingManagerId: p.id, approverId: b.approverId },
    });
  }

  @Post('commencement/corrections')
  @ApiOperation({ summary: 'Correct the commencement before the first hand is dealt (§5.1)' })
  correctCommencement(@Req() req: Request, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: CorrectCommencementDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'CorrectCommencement', card: b.card, reason: b.reason });
  }
}
