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
import { DropCardCommand } from './drop-card.command';
import { DropCardDto } from './drop-card.dto';

/**
 * `POST /shoes/{shoeId}/dropped-cards` (role `table-device`): executes {@link DropCardCommand};
 * answers 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class DropCardController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/dropped-cards')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'A card dropped out of view (§5.5)' })
  drop(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: DropCardDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new DropCardCommand(writeRequest(req, p, shoeId, b), b.card === null ? null : parseCard(b.card), b.exposedBeforeLeavingView, b.phase));
  }
}
