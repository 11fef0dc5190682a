import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { AnchorsController } from './anchors.controller';
import { ConsoleReadsController } from './console-reads.controller';
import { ProjectionStatusController, QueriesController } from './queries.controller';
import { ProjectionHealthService } from './projection-health.service';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { ReadModelService } from './read-model.service';
import { VerifiedHeads } from './verified-heads';

/** Read side for regulators, back office and analytics (over the `read` projections). */
@Module({
  imports: [KernelModule],
  controllers: [ConsoleReadsController, QueriesController, ProjectionStatusController, AnchorsController],
  providers: [ReadModelService, QueryLogInterceptor, ProjectionHealthService, VerifiedHeads],
  exports: [ProjectionHealthService],
})
export class QueriesModule {}
