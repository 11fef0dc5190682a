import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation } from '@nestjs/swagger';
import { parseCard } from '@ledger/rules';
import type { Principal } from '../../auth/principal';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import { WriteController } from '../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../write-request';
import { CorrectCommencementCommand } from './correct-commencement.command';
import { CorrectCommencementDto } from './correct-commencement.dto';

/**
 * `POST /shoes/{shoeId}/commencement/corrections` (role `pit-manager`): executes
 * {@link CorrectCommencementCommand}; answers 201 with the events recorded.
 */
@WriteController('management', 'pit-manager')
export class CorrectCommencementController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/commencement/corrections')
  @ApiOperation({ summary: 'Correct the commencement before the first hand is dealt (§5.1)' })
  correctCommencement(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: CorrectCommencementDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new CorrectCommencementCommand(writeRequest(req, p, shoeId, b), parseCard(b.card), b.reason));
  }
}
