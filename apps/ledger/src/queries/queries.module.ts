import { Module } from '@nestjs/common';
import { ProjectionStatusController, QueriesController } from './queries.controller';
import { QueryLogInterceptor } from './query-log.interceptor';
import { ReadModelService } from './read-model.service';

/** Read side for regulators, back office and analytics (over the `read` projections). */
@Module({
  controllers: [QueriesController, ProjectionStatusController],
  providers: [ReadModelService, QueryLogInterceptor],
})
export class QueriesModule {}
