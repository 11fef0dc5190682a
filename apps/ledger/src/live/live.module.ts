import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { LiveTablesController } from './live-tables.controller';
import { ProjectionChanges } from './projection-changes';

/** Live updates of the tables for the console (`GET /live/tables`), fed by the projector's notices. */
@Module({
  imports: [KernelModule],
  controllers: [LiveTablesController],
  providers: [ProjectionChanges],
})
export class LiveModule {}
