import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { ProjectionHealthService } from './projection-health.service';
import { ProjectionStatusController } from './projections.controller';

/** The projections' state: `GET /projections/status`, `GET /projections/applied/{eventId}`, and what `/health` says of them. */
@Module({
  imports: [KernelModule],
  controllers: [ProjectionStatusController],
  providers: [ProjectionHealthService],
  exports: [ProjectionHealthService],
})
export class ProjectionsModule {}
