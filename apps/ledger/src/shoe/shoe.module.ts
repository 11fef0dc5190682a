import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { TablesRegistry } from '../tables/tables.registry';
import { BetsController } from './bets.controller';
import { ExecuteShoeCommandHandler } from './execute-shoe-command.handler';
import { ManagementController } from './management.controller';
import { ShoeCommandDispatcher } from './shoe-command.dispatcher';
import { ShoeReadsController } from './shoe-reads.controller';
import { ShoeStateCache } from './shoe-state.cache';
import { StreamLock } from './stream-lock';
import { TableFactsController } from './table-facts.controller';

/** The shoe stream's write side and the reads that drive it. */
@Module({
  imports: [CqrsModule],
  controllers: [TableFactsController, BetsController, ManagementController, ShoeReadsController],
  providers: [ExecuteShoeCommandHandler, ShoeCommandDispatcher, ShoeStateCache, StreamLock, TablesRegistry],
  exports: [TablesRegistry],
})
export class ShoeModule {}
