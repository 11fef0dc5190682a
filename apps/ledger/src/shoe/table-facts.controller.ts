import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Principal } from '../auth/principal';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Roles } from '../auth/roles.decorator';
import { TablesRegistry } from '../tables/tables.registry';
import {
  BurnCardDto,
  ChangeDealerDto,
  CommencementDto,
  DealCardDto,
  DropCardDto,
  EmptyWriteDto,
  ExposeCardDto,
  OpenRoundDto,
  OpenShoeDto,
  UnneededCardDto,
} from './dto/table-facts.dto';
import { ShoeCommandDispatcher } from './shoe-command.dispatcher';
import type { ShoeCommandResult } from './execute-shoe-command';

type Req = Request & { correlationId?: string };

/**
 * Facts a live table reports (role `table-device`): shoe, commencement, burns, rounds, cards,
 * exposed/dropped/unneeded cards, cut card, dealer changes. Each answers 201 with the events
 * recorded, or 4xx with a stable error code (and the refusal is logged).
 */
@ApiTags('table facts')
@ApiBearerAuth()
@ApiHeader({ name: 'Idempotency-Key', required: false, description: 'a retry with the same key gets the first answer' })
@Roles('table-device')
@Controller()
export class TableFactsController {
  constructor(
    private readonly dispatcher: ShoeCommandDispatcher,
    private readonly tables: TablesRegistry,
  ) {}

  @Post('tables/:tableId/shoes')
  @ApiOperation({ summary: 'Open a new shoe on a table (snapshots the table configuration)' })
  openShoe(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('tableId') tableId: string, @Body() b: OpenShoeDto): Promise<ShoeCommandResult> {
    const settings = this.tables.settingsOf(tableId);
    return this.dispatcher.dispatch(req, p, b.shoeId, tableId, b, { type: 'OpenShoe', shoeId: b.shoeId, tableId, dealerId: b.dealerId, settings });
  }

  @Post('shoes/:shoeId/commencement')
  @ApiOperation({ summary: 'Commencement card opened (§5.1); that many burns follow' })
  commence(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: CommencementDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'DrawCommencementCard', card: b.card });
  }

  @Post('shoes/:shoeId/burns')
  @ApiOperation({ summary: 'One card burned (card null when face down)' })
  burn(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: BurnCardDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'BurnCard', card: b.card });
  }

  @Post('shoes/:shoeId/rounds')
  @ApiOperation({ summary: 'Open the next round: bets open' })
  openRound(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: OpenRoundDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'OpenRound', roundId: b.roundId });
  }

  @Post('shoes/:shoeId/rounds/:roundId/close-betting')
  @HttpCode(201)
  @ApiOperation({ summary: 'No more bets' })
  closeBetting(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: EmptyWriteDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'CloseBetting', roundId });
  }

  @Post('shoes/:shoeId/rounds/:roundId/cards')
  @ApiOperation({ summary: 'A card dealt to P1 B1 P2 B2 P3 B3; the last card results and settles the round' })
  deal(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: DealCardDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'DealCard', roundId, position: b.position, card: b.card });
  }

  @Post('shoes/:shoeId/rounds/:roundId/unneeded-cards')
  @ApiOperation({ summary: 'A card drawn that the tableau did not call for (§5.3)' })
  unneeded(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: UnneededCardDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'DrawUnneededCard', roundId, card: b.card });
  }

  @Post('shoes/:shoeId/exposed-cards')
  @ApiOperation({ summary: 'A card exposed (§5.3): while bets are open it voids the hand' })
  expose(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: ExposeCardDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'ExposeCard', card: b.card, phase: b.phase });
  }

  @Post('shoes/:shoeId/dropped-cards')
  @ApiOperation({ summary: 'A card dropped out of view (§5.5)' })
  drop(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: DropCardDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, {
      type: 'DropCard',
      card: b.card,
      exposedBeforeLeavingView: b.exposedBeforeLeavingView,
      phase: b.phase,
    });
  }

  @Post('shoes/:shoeId/cut-card')
  @ApiOperation({ summary: 'The cut card came out (§5.2)' })
  cutCard(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: EmptyWriteDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'DrawCutCard' });
  }

  @Post('shoes/:shoeId/dealer')
  @ApiOperation({ summary: 'Dealer change' })
  changeDealer(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: ChangeDealerDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'ChangeDealer', dealerId: b.dealerId });
  }

  @Post('shoes/:shoeId/close')
  @ApiOperation({ summary: 'Shoe finished' })
  close(@Req() req: Req, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: EmptyWriteDto) {
    return this.dispatcher.dispatch(req, p, shoeId, null, b, { type: 'CloseShoe' });
  }
}
