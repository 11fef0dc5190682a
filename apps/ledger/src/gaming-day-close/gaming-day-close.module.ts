import { Module } from '@nestjs/common';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { KernelModule } from '../kernel/kernel.module';
import { CloseComputation } from './close-computation.service';
import { CloseEntriesCheck } from './close-entries-check';
import { CLOSE_REPORT_COMPUTATION } from '../kernel/closes/close-records';
import { GamingDayCloseSweeper } from './close-sweeper';
import { GamingDayCloseController } from './gaming-day-close.controller';
import { GamingDayCloseService } from './gaming-day-close.service';

/**
 * Gaming-day close and adjustments (docs/reports.md §2): the close routes, the automatic sweeper,
 * and the close's computation (`CLOSE_REPORT_COMPUTATION`) the kernel's `CloseRecords` asks for; the
 * adjustments the reconciliation report shows are the kernel's (`KernelModule`).
 */
@Module({
  imports: [KernelModule],
  controllers: [GamingDayCloseController],
  providers: [CloseComputation, CloseEntriesCheck, { provide: CLOSE_REPORT_COMPUTATION, useExisting: CloseComputation }, GamingDayCloseService, GamingDayCloseSweeper, QueryLogInterceptor],
  exports: [GamingDayCloseService],
})
export class GamingDayCloseModule {}
