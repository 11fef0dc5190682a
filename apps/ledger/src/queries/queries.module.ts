import { Module } from '@nestjs/common';
import { ShoeModule } from '../shoe/shoe.module';
import { AsOfModule } from '../reports/as-of/as-of.module';
import { GamingDayCloseModule } from '../reports/gaming-day-close/gaming-day-close.module';
import { AnchorsController } from './anchors.controller';
import { ConsoleReadsController } from './console-reads.controller';
import { ProjectionStatusController, QueriesController } from './queries.controller';
import { ProjectionHealthService } from './projection-health.service';
import { QueryLogInterceptor } from './query-log.interceptor';
import { ReadModelService } from './read-model.service';
import { VerifiedHeads } from './verified-heads';

/** Read side for regulators, back office and analytics (over the `read` projections). */
@Module({
  imports: [ShoeModule, AsOfModule, GamingDayCloseModule],
  controllers: [ConsoleReadsController, QueriesController, ProjectionStatusController, AnchorsController],
  providers: [ReadModelService, QueryLogInterceptor, ProjectionHealthService, VerifiedHeads],
  exports: [ProjectionHealthService],
})
export class QueriesModule {}
