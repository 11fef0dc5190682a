import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { ConsoleReadsController } from './console-reads.controller';
import { QueriesController } from './queries.controller';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { ReadModelService } from './read-model.service';
import { VerifiedHeads } from './verified-heads';

/** Read side for regulators, back office and analytics (over the `read` projections). */
@Module({
  imports: [KernelModule],
  controllers: [ConsoleReadsController, QueriesController],
  providers: [ReadModelService, QueryLogInterceptor, VerifiedHeads],
})
export class QueriesModule {}
