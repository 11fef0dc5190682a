import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { CommandResult } from '../write-answers.dto';
import type { Principal } from '../../kernel/auth/principal';
import { CurrentPrincipal } from '../../kernel/auth/current-principal.decorator';
import { FactWriteDto } from '../dto/evidence.dto';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import { WriteController } from '../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../write-request';
import { DrawCutCardCommand } from './draw-cut-card.command';

/**
 * `POST /shoes/{shoeId}/cut-card` (role `table-device`): executes {@link DrawCutCardCommand};
 * answers 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class DrawCutCardController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/cut-card')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'The cut card came out (§5.2)' })
  cutCard(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: FactWriteDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new DrawCutCardCommand(writeRequest(req, p, shoeId, b)));
  }
}
