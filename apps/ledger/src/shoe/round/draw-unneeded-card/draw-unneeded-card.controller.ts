import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { CommandResult } from '../../write-answers.dto';
import { parseCard } from '@ledger/rules';
import type { Principal } from '../../../kernel/auth/principal';
import { CurrentPrincipal } from '../../../kernel/auth/current-principal.decorator';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import { WriteController } from '../../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../../write-request';
import { DrawUnneededCardCommand } from './draw-unneeded-card.command';
import { DrawUnneededCardDto } from './draw-unneeded-card.dto';

/**
 * `POST /shoes/{shoeId}/rounds/{roundId}/unneeded-cards` (role `table-device`): executes
 * {@link DrawUnneededCardCommand}; answers 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class DrawUnneededCardController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/rounds/:roundId/unneeded-cards')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'A card drawn that the tableau did not call for (§5.3)' })
  unneeded(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: DrawUnneededCardDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new DrawUnneededCardCommand(writeRequest(req, p, shoeId, b), roundId, parseCard(b.card)));
  }
}
