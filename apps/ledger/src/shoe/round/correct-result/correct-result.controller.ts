import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation } from '@nestjs/swagger';
import { parseCard } from '@ledger/rules';
import type { Principal } from '../../../auth/principal';
import { CurrentPrincipal } from '../../../auth/current-principal.decorator';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import { WriteController } from '../../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../../write-request';
import { CorrectResultCommand } from './correct-result.command';
import { CorrectResultDto } from './correct-result.dto';

/**
 * `POST /shoes/{shoeId}/rounds/{roundId}/result-corrections` (role `pit-manager`): executes
 * {@link CorrectResultCommand}; answers 201 with the events recorded.
 */
@WriteController('management', 'pit-manager')
export class CorrectResultController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/rounds/:roundId/result-corrections')
  @ApiOperation({ summary: 'Edit a round result from corrected cards: every bet re-settled' })
  correctResult(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: CorrectResultDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new CorrectResultCommand(writeRequest(req, p, shoeId, b), roundId, b.cards.map((c) => parseCard(c)), { reason: b.reason, actingManagerId: p.id, approverId: b.approverId }));
  }
}
