import { Module } from '@nestjs/common';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { ChainController } from './chain.controller';

/** The chain verification of a table: `GET /tables/{tableId}/chain` (no service: the event store verifies). */
@Module({
  controllers: [ChainController],
  providers: [QueryLogInterceptor],
})
export class ChainModule {}
