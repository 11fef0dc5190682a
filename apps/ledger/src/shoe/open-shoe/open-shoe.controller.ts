import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { CommandResult } from '../write-answers.dto';
import type { Principal } from '../../kernel/auth/principal';
import { CurrentPrincipal } from '../../kernel/auth/current-principal.decorator';
import type { ShoeCommandResult } from '../shoe-stream.writer';
import { WriteController } from '../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../write-request';
import { OpenShoeCommand } from './open-shoe.command';
import { OpenShoeDto } from './open-shoe.dto';

/**
 * `POST /tables/{tableId}/shoes` (role `table-device`): executes {@link OpenShoeCommand}; answers
 * 201 with the events recorded.
 */
@WriteController('table facts', 'table-device')
export class OpenShoeController {
  constructor(private readonly commands: CommandBus) {}

  @Post('tables/:tableId/shoes')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'Open a new shoe on a table (snapshots the table configuration)' })
  openShoe(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('tableId') tableId: string, @Body() b: OpenShoeDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new OpenShoeCommand(writeRequest(req, p, b.shoeId, b, tableId), tableId, b.dealerId));
  }
}
