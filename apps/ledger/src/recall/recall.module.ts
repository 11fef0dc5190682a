import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { RecallController } from './recall.controller';
import { RecallService } from './recall.service';
import { VerifiedHeads } from './verified-heads';

/** The game recall of a round: `GET /shoes/{shoeId}/rounds/{roundId}/recall`. */
@Module({
  imports: [KernelModule],
  controllers: [RecallController],
  providers: [RecallService, VerifiedHeads, QueryLogInterceptor],
})
export class RecallModule {}
