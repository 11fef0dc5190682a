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
import { DealCardCommand } from './deal-card.command';
import { DealCardDto } from './deal-card.dto';

/**
 * `POST /shoes/{shoeId}/rounds/{roundId}/cards` (role `table-device`): executes
 * {@link DealCardCommand}; answers 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class DealCardController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/rounds/:roundId/cards')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'A card dealt to P1 B1 P2 B2 P3 B3; the last card results and settles the round' })
  deal(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: DealCardDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new DealCardCommand(writeRequest(req, p, shoeId, b), roundId, b.position, parseCard(b.card)));
  }
}
