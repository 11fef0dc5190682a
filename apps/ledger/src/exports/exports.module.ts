import { Module } from '@nestjs/common';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { ExportsController } from './exports.controller';
import { ExportsService } from './exports.service';

/** Exports for regulators (docs/reports.md §5). */
@Module({
  controllers: [ExportsController],
  providers: [ExportsService, QueryLogInterceptor],
})
export class ExportsModule {}
