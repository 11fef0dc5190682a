import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AuthModule } from './auth/auth.module';
import { CorrelationMiddleware } from './common/correlation.middleware';
import { LedgerExceptionFilter } from './common/ledger-exception.filter';
import { HealthController } from './health.controller';
import { PersistenceModule } from './persistence/persistence.module';
import { QueriesModule } from './queries/queries.module';
import { ShoeModule } from './shoe/shoe.module';

/** The ledger's HTTP service: table facts, bets, management decisions, and the reads that drive them. */
@Module({
  imports: [
    LoggerModule.forRoot({
      pinoHttp: {
        level: process.env.LOG_LEVEL ?? 'info',
        customProps: (req) => ({ correlationId: (req as { correlationId?: string }).correlationId }),
        autoLogging: process.env.HTTP_ACCESS_LOG === 'true',
        redact: ['req.headers.authorization'],
        serializers: {
          req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
          res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        },
      },
    }),
    AuthModule,
    PersistenceModule,
    ShoeModule,
    QueriesModule,
  ],
  controllers: [HealthController],
  providers: [{ provide: APP_FILTER, useClass: LedgerExceptionFilter }],
})
export class AppModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(CorrelationMiddleware).forRoutes('*');
  }
}
