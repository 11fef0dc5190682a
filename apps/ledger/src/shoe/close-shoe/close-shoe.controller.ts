import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { CommandResult } from '../write-answers.dto';
import type { Principal } from '../../kernel/auth/principal';
import { CurrentPrincipal } from '../../kernel/auth/current-principal.decorator';
import { EmptyWriteDto } from '../dto/write-options.dto';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import { WriteController } from '../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../write-request';
import { CloseShoeCommand } from './close-shoe.command';

/**
 * `POST /shoes/{shoeId}/close` (role `table-device`): executes {@link CloseShoeCommand}; answers
 * 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class CloseShoeController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/close')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'Shoe finished' })
  close(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: EmptyWriteDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new CloseShoeCommand(writeRequest(req, p, shoeId, b)));
  }
}
