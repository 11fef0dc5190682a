import { Module } from '@nestjs/common';
import { KernelModule } from '../kernel/kernel.module';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { ConsoleReadsController } from './console-reads.controller';
import { ConsoleReadsService } from './console-reads.service';

/** The console's reads: `GET /tables/overview`, `GET /shoes`, `GET /shoes/{shoeId}/rounds`. */
@Module({
  imports: [KernelModule],
  controllers: [ConsoleReadsController],
  providers: [ConsoleReadsService, QueryLogInterceptor],
})
export class ConsoleReadsModule {}
