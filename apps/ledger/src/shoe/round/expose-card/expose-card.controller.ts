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
import { ExposeCardCommand } from './expose-card.command';
import { ExposeCardDto } from './expose-card.dto';

/**
 * `POST /shoes/{shoeId}/exposed-cards` (role `table-device`): executes {@link ExposeCardCommand};
 * answers 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class ExposeCardController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/exposed-cards')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'A card exposed (§5.3): while bets are open it voids the hand' })
  expose(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: ExposeCardDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new ExposeCardCommand(writeRequest(req, p, shoeId, b), parseCard(b.card), b.phase));
  }
}
