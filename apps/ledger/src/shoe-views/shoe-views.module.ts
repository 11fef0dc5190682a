import { Module } from '@nestjs/common';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { ShoeViewsController } from './shoe-views.controller';
import { ShoeViewsService } from './shoe-views.service';

/** A shoe's views: `GET /shoes/{shoeId}/roads`, `GET /shoes/{shoeId}/state`. */
@Module({
  controllers: [ShoeViewsController],
  providers: [ShoeViewsService, QueryLogInterceptor],
})
export class ShoeViewsModule {}
