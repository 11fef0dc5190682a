import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { ExportManifestService } from './export-manifest.service';
import { ExportsController } from './exports.controller';
import { ExportsService } from './exports.service';

/** Exports for regulators (docs/reports.md §5): the exports, and the bundle's manifest signed with the report key (`ReportSigningKey` of the kernel). */
@Module({
  imports: [KernelModule],
  controllers: [ExportsController],
  providers: [ExportsService, ExportManifestService, QueryLogInterceptor],
})
export class ExportsModule {}
