import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { ThrottlerModule } from '@nestjs/throttler';
import { LoggerModule } from 'nestjs-pino';
import type { LedgerApiEnv } from '@ledger/config';
import { AuthModule } from './kernel/auth/auth.module';
import type { TokenAuthentication } from './kernel/auth/token-authentication';
import { CorrelationMiddleware } from './common/correlation.middleware';
import { assignRequestId, requestContext, type IdentifiedRequest } from './common/http-hygiene';
import { HttpMetricsMiddleware } from './common/http-metrics.middleware';
import { LedgerExceptionFilter } from './common/ledger-exception.filter';
import { rateLimits } from './kernel/auth/rate-limit.guard';
import { REFUSAL_BUDGET, RefusalBudget } from './common/refusal-budget';
import { inProcessLimits, type LimitsBackend } from './kernel/limits/limits-backend';
import { LimitsModule } from './kernel/limits/limits.module';
import { MeController } from './kernel/auth/me.controller';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { PersistenceModule } from './persistence/persistence.module';
import { ConsoleReadsModule } from './console-reads/console-reads.module';
import { RecallModule } from './recall/recall.module';
import { AuditModule } from './audit/audit.module';
import { SettlementsModule } from './settlements/settlements.module';
import { ReconciliationModule } from './reconciliation/reconciliation.module';
import { ShoeViewsModule } from './shoe-views/shoe-views.module';
import { ChainModule } from './chain/chain.module';
import { FairnessModule } from './fairness/fairness.module';
import { ProjectionsModule } from './projections/projections.module';
import { AnchorsModule } from './anchors/anchors.module';
import { ShoeModule } from './shoe/shoe.module';
import { DecisionsModule } from './shoe/decisions/decisions.module';
import { LiveModule } from './live/live.module';
import { StaticModule } from './static/static.module';
import { StaffModule } from './staff/staff.module';
import { ExportsModule } from './exports/exports.module';
import { WalletModule } from './wallet/wallet.module';
import { GamingDayCloseModule } from './gaming-day-close/gaming-day-close.module';
import { ClockModule } from './clock/clock.module';
import { SignificantEventsModule } from './significant-events/significant-events.module';

/** The ledger's HTTP service: table facts, bets, management decisions, and the reads that drive them. */
@Module({})
export class AppModule implements NestModule {
  /**
   * The app for one configuration, validated once at start (docs/architecture.md §5): it is served
   * to every provider by `@nestjs/config`'s global `ConfigService<LedgerApiEnv, true>`, which reads
   * neither the environment nor a `.env` file itself.
   * @param config the API's validated configuration (`loadConfig(LedgerApiEnv, env)`)
   * @param auth the token verification built from it
   * @param limits where the rate budgets, heavy-read slots, live-stream places and refusal-log bytes
   *   count (`limitsBackend(config)`: in memory, or shared through `LIMITS_REDIS_URL`; docs/architecture.md §10)
   */
  static forRoot(config: LedgerApiEnv, auth: TokenAuthentication, limits: LimitsBackend = inProcessLimits()): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, validatePredefined: false, skipProcessEnv: true, load: [() => ({ ...config })] }),
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.LOG_LEVEL,
            // the request id (common/http-hygiene.ts) is pino-http's req.id and on every line: the request
            // logger's (customProps) and any other logged while the request is served (mixin)
            genReqId: (req) => assignRequestId(req as IdentifiedRequest),
            customProps: (req) => ({ correlationId: (req as { correlationId?: string }).correlationId, requestId: assignRequestId(req as IdentifiedRequest) }),
            mixin: (_fields, _level, logger) => {
              const ctx = requestContext.getStore();
              return ctx && !('requestId' in logger.bindings()) ? { requestId: ctx.requestId } : {};
            },
            autoLogging: config.HTTP_ACCESS_LOG,
            redact: ['req.headers.authorization'],
            serializers: {
              req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
              res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
            },
          },
        }),
        // the rate limits per address and per caller (docs/architecture.md §10); the guard is AuthModule's, before the token guard
        // counted in memory, or in the shared Redis when LIMITS_REDIS_URL is set
        ThrottlerModule.forRoot({ ...rateLimits(config), ...(limits.throttlerStorage ? { storage: limits.throttlerStorage } : {}) }),
        LimitsModule.forRoot(limits),
        AuthModule.forRoot(auth),
        PersistenceModule,
        ShoeModule,
        // the reads, one module per use case, in the order their routes have in docs/openapi.json
        ConsoleReadsModule,
        RecallModule,
        AuditModule,
        SettlementsModule,
        ReconciliationModule,
        ShoeViewsModule,
        ChainModule,
        // the projections' status and the anchors' verification were the reads' last controllers: here, their routes keep their place in docs/openapi.json
        ProjectionsModule,
        AnchorsModule,
        DecisionsModule,
        LiveModule,
        StaticModule,
        StaffModule,
        FairnessModule,
        ExportsModule,
        WalletModule,
        GamingDayCloseModule,
        ClockModule,
        SignificantEventsModule,
        // the probes' HealthCheckService (docs/architecture.md §8); no logger: a failing readiness answers 503 at every call, its report is the answer, not an error log
        TerminusModule.forRoot({ logger: false }),
      ],
      controllers: [HealthController, MetricsController, MeController],
      providers: [
        { provide: REFUSAL_BUDGET, useValue: new RefusalBudget({ payloadMaxBytes: config.REFUSAL_PAYLOAD_MAX_BYTES, bytesPerMinute: config.REFUSAL_LOG_BYTES_PER_MINUTE }, Date.now, limits.refusalBytes) },
        { provide: APP_FILTER, useClass: LedgerExceptionFilter },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware, CorrelationMiddleware).forRoutes('*');
  }
}
