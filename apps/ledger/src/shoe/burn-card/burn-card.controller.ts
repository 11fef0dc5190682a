import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { CommandResult } from '../write-answers.dto';
import { parseCard } from '@ledger/rules';
import type { Principal } from '../../kernel/auth/principal';
import { CurrentPrincipal } from '../../kernel/auth/current-principal.decorator';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import { WriteController } from '../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../write-request';
import { BurnCardCommand } from './burn-card.command';
import { BurnCardDto } from './burn-card.dto';

/**
 * `POST /shoes/{shoeId}/burns` (role `table-device`): executes {@link BurnCardCommand}; answers 201
 * with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class BurnCardController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/burns')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'One card burned (card null when face down)' })
  burn(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: BurnCardDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new BurnCardCommand(writeRequest(req, p, shoeId, b), b.card === null ? null : parseCard(b.card)));
  }
}
