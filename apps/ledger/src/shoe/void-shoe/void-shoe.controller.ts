import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation } from '@nestjs/swagger';
import type { Principal } from '../../auth/principal';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { DecisionDto } from '../dto/decision.dto';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import { WriteController } from '../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../write-request';
import { VoidShoeCommand } from './void-shoe.command';

/**
 * `POST /shoes/{shoeId}/void` (role `pit-manager`): executes {@link VoidShoeCommand}; answers 201
 * with the events recorded.
 */
@WriteController('management', 'pit-manager')
export class VoidShoeController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/void')
  @ApiOperation({ summary: 'Void the whole shoe: every round not yet voided is voided and refunded' })
  voidShoe(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: DecisionDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new VoidShoeCommand(writeRequest(req, p, shoeId, b), { reason: b.reason, actingManagerId: p.id, approverId: b.approverId }));
  }
}
