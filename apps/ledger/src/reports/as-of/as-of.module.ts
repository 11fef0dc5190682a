import { Module } from '@nestjs/common';
import { AsOfPositionService } from './as-of-position.service';
import { AsOfReadService } from './as-of-read.service';

/**
 * "As known at time T" (docs/reports.md §3): resolving `asOf` to a checked global position, and the
 * reads computed at it. Imported by the queries (recall, settlements, reconciliation) and by the
 * gaming-day close.
 */
@Module({
  providers: [AsOfPositionService, AsOfReadService],
  exports: [AsOfPositionService, AsOfReadService],
})
export class AsOfModule {}
