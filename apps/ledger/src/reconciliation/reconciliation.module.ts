import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { ReconciliationController } from './reconciliation.controller';
import { ReconciliationService } from './reconciliation.service';

/** The reconciliation report: `GET /reports/reconciliation` (JSON or CSV). */
@Module({
  imports: [KernelModule],
  controllers: [ReconciliationController],
  providers: [ReconciliationService, QueryLogInterceptor],
})
export class ReconciliationModule {}
