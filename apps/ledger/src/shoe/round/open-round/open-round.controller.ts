import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { CommandResult } from '../../write-answers.dto';
import type { Principal } from '../../../kernel/auth/principal';
import { CurrentPrincipal } from '../../../kernel/auth/current-principal.decorator';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import { WriteController } from '../../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../../write-request';
import { OpenRoundCommand } from './open-round.command';
import { OpenRoundDto } from './open-round.dto';

/**
 * `POST /shoes/{shoeId}/rounds` (role `table-device`): executes {@link OpenRoundCommand}; answers
 * 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class OpenRoundController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/rounds')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'Open the next round: bets open' })
  openRound(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: OpenRoundDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new OpenRoundCommand(writeRequest(req, p, shoeId, b), b.roundId));
  }
}
