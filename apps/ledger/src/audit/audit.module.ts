import { Module } from '@nestjs/common';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';

/** The audit search: `GET /audit/events`, `/audit/decisions`, `/audit/access-log`. */
@Module({
  controllers: [AuditController],
  providers: [AuditService, QueryLogInterceptor],
})
export class AuditModule {}
