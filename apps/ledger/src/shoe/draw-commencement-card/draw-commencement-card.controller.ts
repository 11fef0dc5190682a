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
import { DrawCommencementCardCommand } from './draw-commencement-card.command';
import { DrawCommencementCardDto } from './draw-commencement-card.dto';

/**
 * `POST /shoes/{shoeId}/commencement` (role `table-device`): executes
 * {@link DrawCommencementCardCommand}; answers 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class DrawCommencementCardController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/commencement')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'Commencement card opened (§5.1); that many burns follow' })
  commence(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: DrawCommencementCardDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new DrawCommencementCardCommand(writeRequest(req, p, shoeId, b), parseCard(b.card)));
  }
}
