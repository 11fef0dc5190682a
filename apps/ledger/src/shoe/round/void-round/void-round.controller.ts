import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation } from '@nestjs/swagger';
import type { Principal } from '../../../auth/principal';
import { CurrentPrincipal } from '../../../auth/current-principal.decorator';
import { DecisionDto } from '../../dto/decision.dto';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import { WriteController } from '../../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../../write-request';
import { VoidRoundCommand } from './void-round.command';

/**
 * `POST /shoes/{shoeId}/rounds/{roundId}/void` (role `pit-manager`): executes
 * {@link VoidRoundCommand}; answers 201 with the events recorded.
 */
@WriteController('management', 'pit-manager')
export class VoidRoundController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/rounds/:roundId/void')
  @ApiOperation({ summary: 'Void a round: every stake refunded' })
  voidRound(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: DecisionDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new VoidRoundCommand(writeRequest(req, p, shoeId, b), roundId, { reason: b.reason, actingManagerId: p.id, approverId: b.approverId }));
  }
}
