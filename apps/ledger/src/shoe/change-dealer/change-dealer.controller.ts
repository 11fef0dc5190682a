import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { CommandResult } from '../write-answers.dto';
import type { Principal } from '../../kernel/auth/principal';
import { CurrentPrincipal } from '../../kernel/auth/current-principal.decorator';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import { WriteController } from '../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../write-request';
import { ChangeDealerCommand } from './change-dealer.command';
import { ChangeDealerDto } from './change-dealer.dto';

/**
 * `POST /shoes/{shoeId}/dealer` (role `table-device`): executes {@link ChangeDealerCommand};
 * answers 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class ChangeDealerController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/dealer')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'Dealer change' })
  changeDealer(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: ChangeDealerDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new ChangeDealerCommand(writeRequest(req, p, shoeId, b), b.dealerId));
  }
}
