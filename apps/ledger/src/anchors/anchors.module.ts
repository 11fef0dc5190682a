import { Module } from '@nestjs/common';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { KernelModule } from '../kernel/kernel.module';
import { AnchorsController } from './anchors.controller';

/** `GET /anchors/verify`: the anchors' verification over the API (docs/anchors.md). */
@Module({
  imports: [KernelModule],
  controllers: [AnchorsController],
  providers: [QueryLogInterceptor],
})
export class AnchorsModule {}
