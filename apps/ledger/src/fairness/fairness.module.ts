import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { FairnessController } from './fairness.controller';
import { FairnessService } from './fairness.service';

/** Fairness statistics against the exact PAR sheet (docs/fairness.md): `GET /statistics/fairness`. */
@Module({
  imports: [KernelModule],
  controllers: [FairnessController],
  providers: [FairnessService, QueryLogInterceptor],
})
export class FairnessModule {}
