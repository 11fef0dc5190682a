import { Body, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { CommandResult } from '../../write-answers.dto';
import type { BetInput } from '@ledger/shoe';
import type { Principal } from '../../../kernel/auth/principal';
import { CurrentPrincipal } from '../../../kernel/auth/current-principal.decorator';
import type { ShoeCommandResult } from '../../shoe-stream.writer';
import { WriteController } from '../../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../../write-request';
import { PlaceBetsCommand } from './place-bets.command';
import { BetDto, PlaceBetBatchDto, PlaceBetDto } from './place-bets.dto';

/** Stake strings/integers → bigint minor units (never through floating point). */
function toInput(b: BetDto): BetInput {
  return { betId: b.betId, accountId: b.accountId, betCode: b.betCode, stake: BigInt(b.stake), currency: b.currency };
}

/**
 * `POST /shoes/{shoeId}/rounds/{roundId}/bets` and `.../bets/batch` (role `betting-platform`):
 * execute {@link PlaceBetsCommand}; answer 201 with the BetPlaced events recorded.
 */
@WriteController('bets', 'betting-platform')
export class PlaceBetsController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/rounds/:roundId/bets')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'Place one bet' })
  place(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: PlaceBetDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new PlaceBetsCommand(writeRequest(req, p, shoeId, b), roundId, [toInput(b.bet)]));
  }

  @Post('shoes/:shoeId/rounds/:roundId/bets/batch')
  @ApiCreatedResponse({ type: CommandResult, description: 'the events recorded' })
  @ApiOperation({ summary: 'Place up to 10,000 bets at once; one refused bet refuses the batch' })
  placeBatch(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: PlaceBetBatchDto): Promise<ShoeCommandResult> {
    return this.commands.execute(new PlaceBetsCommand(writeRequest(req, p, shoeId, b), roundId, b.bets.map(toInput)));
  }
}
