import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { KernelModule } from '../kernel/kernel.module';
import { OpenShoeController } from './open-shoe/open-shoe.controller';
import { OpenShoeHandler } from './open-shoe/open-shoe.handler';
import { DrawCommencementCardController } from './draw-commencement-card/draw-commencement-card.controller';
import { DrawCommencementCardHandler } from './draw-commencement-card/draw-commencement-card.handler';
import { BurnCardController } from './burn-card/burn-card.controller';
import { BurnCardHandler } from './burn-card/burn-card.handler';
import { CorrectCommencementController } from './correct-commencement/correct-commencement.controller';
import { DrawCutCardController } from './draw-cut-card/draw-cut-card.controller';
import { DrawCutCardHandler } from './draw-cut-card/draw-cut-card.handler';
import { ChangeDealerController } from './change-dealer/change-dealer.controller';
import { ChangeDealerHandler } from './change-dealer/change-dealer.handler';
import { CloseShoeController } from './close-shoe/close-shoe.controller';
import { CloseShoeHandler } from './close-shoe/close-shoe.handler';
import { VoidShoeController } from './void-shoe/void-shoe.controller';
import { OpenRoundController } from './round/open-round/open-round.controller';
import { OpenRoundHandler } from './round/open-round/open-round.handler';
import { PlaceBetsController } from './round/place-bets/place-bets.controller';
import { PlaceBetsHandler } from './round/place-bets/place-bets.handler';
import { CloseBettingController } from './round/close-betting/close-betting.controller';
import { CloseBettingHandler } from './round/close-betting/close-betting.handler';
import { DealCardController } from './round/deal-card/deal-card.controller';
import { DealCardHandler } from './round/deal-card/deal-card.handler';
import { DrawUnneededCardController } from './round/draw-unneeded-card/draw-unneeded-card.controller';
import { DrawUnneededCardHandler } from './round/draw-unneeded-card/draw-unneeded-card.handler';
import { ExposeCardController } from './round/expose-card/expose-card.controller';
import { ExposeCardHandler } from './round/expose-card/expose-card.handler';
import { DropCardController } from './round/drop-card/drop-card.controller';
import { DropCardHandler } from './round/drop-card/drop-card.handler';
import { VoidRoundController } from './round/void-round/void-round.controller';
import { CorrectResultController } from './round/correct-result/correct-result.controller';
import { ShoeReadsController } from './shoe-reads.controller';
import { ShoeStateCache } from './shoe-state.cache';
import { ShoeSnapshots } from './shoe-snapshots';
import { ShoeStreamWriter } from './shoe-stream.writer';
import { StreamLock } from './stream-lock';

/** One controller per write use case, in the order of a shoe's life (docs/architecture.md §3). */
const WRITE_CONTROLLERS = [
  OpenShoeController,
  DrawCommencementCardController,
  BurnCardController,
  CorrectCommencementController,
  DrawCutCardController,
  ChangeDealerController,
  CloseShoeController,
  VoidShoeController,
  OpenRoundController,
  PlaceBetsController,
  CloseBettingController,
  DealCardController,
  DrawUnneededCardController,
  ExposeCardController,
  DropCardController,
  VoidRoundController,
  CorrectResultController,
];

/**
 * One thin `@CommandHandler` per write use case, each beside its command and controller. The
 * management routes' use case is the four-eyes request, handled in `../decisions/`.
 */
const WRITE_HANDLERS = [
  OpenShoeHandler,
  DrawCommencementCardHandler,
  BurnCardHandler,
  DrawCutCardHandler,
  ChangeDealerHandler,
  CloseShoeHandler,
  OpenRoundHandler,
  PlaceBetsHandler,
  CloseBettingHandler,
  DealCardHandler,
  DrawUnneededCardHandler,
  ExposeCardHandler,
  DropCardHandler,
];

/**
 * The shoe stream's write side (docs/architecture.md §3): a folder per use case under `shoe/`
 * (shoe life, commencement, cut card, dealer) and `shoe/round/` (betting, dealing, exposed and
 * dropped cards, round decisions), each with its DTO, command, thin handler and controller; the
 * mechanics they share in {@link ShoeStreamWriter}; and the reads that drive a shoe.
 */
@Module({
  imports: [CqrsModule, KernelModule],
  controllers: [...WRITE_CONTROLLERS, ShoeReadsController],
  providers: [...WRITE_HANDLERS, ShoeStreamWriter, ShoeStateCache, ShoeSnapshots, StreamLock],
  exports: [ShoeStreamWriter],
})
export class ShoeModule {}
