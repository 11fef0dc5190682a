import { Module } from '@nestjs/common';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { StaffStatisticsController } from './staff-statistics.controller';
import { StaffStatisticsService } from './staff-statistics.service';

/** Staff and table statistics (docs/reports.md §6): `GET /statistics/staff`. */
@Module({
  controllers: [StaffStatisticsController],
  providers: [StaffStatisticsService, QueryLogInterceptor],
})
export class StaffModule {}
