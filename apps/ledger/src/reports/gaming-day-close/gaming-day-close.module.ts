import { Module } from '@nestjs/common';
import { QueryLogInterceptor } from '../../queries/query-log.interceptor';
import { ShoeModule } from '../../shoe/shoe.module';
import { AsOfModule } from '../as-of/as-of.module';
import { AdjustmentsService } from './adjustments.service';
import { CloseComputation } from './close-computation.service';
import { CloseEntriesCheck } from './close-entries-check';
import { CLOSE_REPORT_COMPUTATION, CloseRecords } from './close-records';
import { GamingDayCloseSweeper } from './close-sweeper';
import { GamingDayCloseController } from './gaming-day-close.controller';
import { GamingDayCloseService } from './gaming-day-close.service';
import { ReportSigningKey } from './report-signing-key';

/**
 * Gaming-day close and adjustments (docs/reports.md §2): the close routes, the automatic sweeper,
 * and the adjustments the reconciliation report shows (exported for the queries).
 */
@Module({
  imports: [AsOfModule, ShoeModule],
  controllers: [GamingDayCloseController],
  providers: [AdjustmentsService, CloseComputation, CloseEntriesCheck, CloseRecords, { provide: CLOSE_REPORT_COMPUTATION, useExisting: CloseComputation }, GamingDayCloseService, GamingDayCloseSweeper, ReportSigningKey, QueryLogInterceptor],
  exports: [AdjustmentsService, GamingDayCloseService],
})
export class GamingDayCloseModule {}
