import { Module } from '@nestjs/common';
import { AsOfPositionService } from './as-of/as-of-position.service';
import { AsOfReadService } from './as-of/as-of-read.service';
import { AdjustmentsService } from './closes/adjustments.service';
import { CloseRecords } from './closes/close-records';
import { ReportSigningKey } from './closes/report-signing-key';
import { TablesRegistry } from './tables/tables.registry';

/**
 * The kernel's providers, the one module a feature module imports (docs/architecture.md §1): the
 * configured tables; "as known at time T" (docs/reports.md §3: resolving `asOf` to a checked global
 * position, and the reads computed at it), read by the recall, settlements and reconciliation
 * (`recall/`, `settlements/`, `reconciliation/`) and by the gaming-day close; and the closes' records and adjustments
 * (docs/reports.md §2), written by the close (`gaming-day-close/`, which provides
 * `CLOSE_REPORT_COMPUTATION`) and shown by the reconciliation report (`reconciliation/`). The last two are
 * here, not in a feature, because two features read them; they leave for a read-model library with
 * their SQL.
 */
@Module({
  providers: [TablesRegistry, AsOfPositionService, AsOfReadService, AdjustmentsService, CloseRecords, ReportSigningKey],
  exports: [TablesRegistry, AsOfPositionService, AsOfReadService, AdjustmentsService, CloseRecords, ReportSigningKey],
})
export class KernelModule {}
