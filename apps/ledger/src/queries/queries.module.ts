import { Module } from '@nestjs/common';
import { AnchorsController } from './anchors.controller';
import { ProjectionStatusController, QueriesController } from './queries.controller';
import { ProjectionHealthService } from './projection-health.service';
import { QueryLogInterceptor } from './query-log.interceptor';
import { ReadModelService } from './read-model.service';
import { VerifiedHeads } from './verified-heads';

/** Read side for regulators, back office and analytics (over the `read` projections). */
@Module({
  controllers: [QueriesController, ProjectionStatusController, AnchorsController],
  providers: [ReadModelService, QueryLogInterceptor, ProjectionHealthService, VerifiedHeads],
  exports: [ProjectionHealthService],
})
export class QueriesModule {}
