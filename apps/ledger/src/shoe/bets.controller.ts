import { Body, Controller, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { BetInput } from '@ledger/shoe';
import { Principal } from '../auth/principal';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Roles } from '../auth/roles.decorator';
import { BetDto, PlaceBetBatchDto, PlaceBetDto } from './dto/bets.dto';
import { ShoeCommandDispatcher } from './shoe-command.dispatcher';

/** Stake strings/integers → bigint minor units (never through floating point). */
function toInput(b: BetDto): BetInput {
  return { betId: b.betId, accountId: b.accountId, betCode: b.betCode, stake: BigInt(b.stake), currency: b.currency };
}

/** Bets from the betting platform (role `betting-platform`), single or in batches (all or none). */
@ApiTags('bets')
@ApiBearerAuth()
@ApiHeader({ name: 'Idempotency-Key', required: false })
@Roles('betting-platform')
@Controller('shoes/:shoeId/rounds/:roundId/bets')
export class BetsController {
  constructor(private readonly dispatcher: ShoeCommandDispatcher) {}

  @Post()
  @ApiOperation({ summary: 'Place one bet' })
  place(@Req() req: Request, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: PlaceBetDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'PlaceBets', roundId, bets: [toInput(b.bet)] });
  }

  @Post('batch')
  @ApiOperation({ summary: 'Place up to 10,000 bets at once; one refused bet refuses the batch' })
  placeBatch(@Req() req: Request, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: PlaceBetBatchDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'PlaceBets', roundId, bets: b.bets.map(toInput) });
  }
}
