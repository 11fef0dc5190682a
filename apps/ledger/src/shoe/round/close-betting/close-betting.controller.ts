import { Body, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { CommandResult } from '../../write-answers.dto';
import type { Principal } from '../../../kernel/auth/principal';
import { CurrentPrincipal } from '../../../kernel/auth/current-principal.decorator';
import { EmptyWriteDto } from '../../dto/write-options.dto';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import { WriteController } from '../../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../../write-request';
import { CloseBettingCommand } from './close-betting.command';

/**
 * `POST /shoes/{shoeId}/rounds/{roundId}/close-betting` (role `table-device`): executes
 * {@link CloseBettingCommand}; answers 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class CloseBettingController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/rounds/:roundId/close-betting')
  @HttpCode(201)
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'No more bets' })
  closeBetting(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: EmptyWriteDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new CloseBettingCommand(writeRequest(req, p, shoeId, b), roundId));
  }
}
