import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { SettlementsController } from './settlements.controller';
import { SettlementsService } from './settlements.service';

/** The settlements: `GET /settlements`, `GET /settlements/{betId}`. */
@Module({
  imports: [KernelModule],
  controllers: [SettlementsController],
  providers: [SettlementsService, QueryLogInterceptor],
})
export class SettlementsModule {}
