import type { NestExpressApplication } from '@nestjs/platform-express';
import { NestFactory } from '@nestjs/core';
import { Logger as NestLogger, type INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { getStorageToken, type ThrottlerStorage } from '@nestjs/throttler';
import { LedgerApiEnv, loadConfig, trustProxyValue, type EnvSource } from '@ledger/config';
import { collectProcessMetrics } from '@ledger/metrics';
import { AppModule } from './app.module';
import { limitsBackend, type LimitsBackend } from './kernel/limits/limits-backend';
import { tokenAuthentication } from './kernel/auth/token-authentication';
import { applyHttpWiring } from './common/http-wiring';
import { ByteBudget } from './common/batch-admission';
import { installGracefulShutdown } from './common/graceful-shutdown';
import { httpHygiene, InFlightRequests, securityHeaders } from './common/http-hygiene';
import { withErrorTable } from './common/openapi-errors';
import { withOperationalAnswers } from './common/openapi-operational';
import { toOpenApi31 } from './common/openapi-31';
import { withOperationNames } from './common/openapi-operations';
import { ASYNCAPI_SCHEMA } from './static/asyncapi.controller';

/** Options of {@link createLedgerApp}. */
export interface LedgerAppOptions {
  /** `false`: no log output at all (tests). @default Nest's logger, then pino */
  readonly logger?: boolean;
  /** The validated configuration (main.ts reads it first). @default `loadConfig(LedgerApiEnv, env)` */
  readonly config?: LedgerApiEnv;
  /** The environment to read the configuration from when `config` is not given. @default the process's own */
  readonly env?: EnvSource;
  /**
   * `true` (main.ts): SIGTERM/SIGINT drain the in-flight requests and exit 0 (`installGracefulShutdown`,
   * common/graceful-shutdown.ts); `false` (the specs' in-process apps): Nest's own shutdown hooks.
   * @default false
   */
  readonly gracefulShutdown?: boolean;
}

/**
 * Creates the ledger HTTP app with its global pipes and OpenAPI at `/docs` (JSON at `/docs-json`;
 * the error codes in it are generated from the error table, see {@link withErrorTable}); every route
 * also under `/v1`, `API-Version: 1`, `X-Request-Id`, helmet's headers (docs/api-versioning.md).
 * Shared by `main.ts` and the e2e tests so both run the same wiring. The configuration is validated
 * and the token keys read before anything starts (docs/architecture.md §5, §10). The limits count in
 * memory or, with `LIMITS_REDIS_URL`, in a Redis every instance shares (logged at start, see
 * {@link startLimits}); `TRUST_PROXY` is Express's `trust proxy` (whose address `req.ip` is).
 * @throws ConfigError naming every bad or missing variable (e.g. no signing key outside development mode)
 */
export async function createLedgerApp(options: LedgerAppOptions = {}): Promise<NestExpressApplication> {
  const config = options.config ?? loadConfig(LedgerApiEnv, options.env);
  const auth = tokenAuthentication(config);
  collectProcessMetrics();
  const limits = limitsBackend(config);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, auth, limits), {
    bufferLogs: true,
    logger: options.logger === false ? false : undefined,
  });
  if (options.logger !== false) app.useLogger(app.get(Logger));
  // behind a load balancer: req.ip from X-Forwarded-For, only through the proxies trusted (docs/operations.md)
  if (config.TRUST_PROXY !== undefined) app.set('trust proxy', trustProxyValue(config.TRUST_PROXY));
  await startLimits(limits, config.TRUST_PROXY);
  // first: /v1 alias, API-Version, X-Request-Id, the in-flight count; then helmet's headers (docs/api-versioning.md)
  const inFlight = new InFlightRequests();
  app.use(httpHygiene(inFlight));
  app.use(securityHeaders());
  applyHttpWiring(app, {
    verifier: auth.verifier,
    limits: config,
    address: { storage: app.get<ThrottlerStorage>(getStorageToken()), limit: config.RATE_LIMIT_PER_ADDRESS, windowMs: config.RATE_LIMIT_WINDOW_MS },
    batches: { budget: new ByteBudget(config.BETS_BATCH_BYTES_IN_FLIGHT), timeoutMs: config.BETS_BATCH_QUEUE_TIMEOUT_MS, bodyLimitBytes: config.BODY_LIMIT_BETS_BATCH_BYTES, idleMs: config.HEAVY_READ_IDLE_TIMEOUT_MS },
  });
  SwaggerModule.setup('docs', app, () => openApiDocument(app, SwaggerModule));
  if (options.gracefulShutdown) {
    const log = new NestLogger('Shutdown');
    installGracefulShutdown(app, inFlight, (fields, msg) => log.log({ ...fields, msg }));
  } else {
    app.enableShutdownHooks();
  }
  return app;
}

/**
 * Connects the limits' store (when shared) and logs once where the API's limits count: `in-process`
 * (each instance its own budgets) or `shared` (the Redis, its key prefix and lease), and `TRUST_PROXY`.
 * A shared store that does not answer yet is logged at error level; the API starts all the same and
 * refuses what it counts (503 `LIMITS.UNAVAILABLE`) until it answers. Never throws.
 */
async function startLimits(limits: LimitsBackend, trustProxy: string | undefined): Promise<void> {
  const log = new NestLogger('Limits');
  const started = await limits.start();
  const fields = { ...limits.describe(), trustProxy: trustProxy ?? 'off' };
  if (!started.connected) log.error({ ...fields, reason: started.reason }, 'the shared limits store (LIMITS_REDIS_URL) does not answer: requests it counts are refused (503 LIMITS.UNAVAILABLE) until it does');
  else if (limits.mode === 'shared') log.log(fields, 'limits shared by every API instance through Redis (rate budgets, heavy-read slots, live streams, refusal log)');
  else log.log(fields, 'limits in this process only (no LIMITS_REDIS_URL): each API instance has its own budgets');
}

/**
 * The API's OpenAPI 3.1 document (served at `/docs`, written to `docs/openapi.json` by
 * scripts/write-openapi.ts): the routes, their schemas and the error table ({@link withErrorTable}),
 * hand-named operations, tags, servers and response headers ({@link withOperationNames}), in 3.1
 * form ({@link toOpenApi31}; docs/api-versioning.md §6).
 */
export function openApiDocument(app: INestApplication, swagger: Pick<typeof SwaggerModule, 'createDocument'>): OpenAPIObject {
  const document = new DocumentBuilder()
    .setTitle('Baccarat round ledger')
    .setDescription(
      'Table facts, bets and management decisions become immutable events. Errors answer `{ error: { code, message, details } }` (schema `ErrorResponse`); every code, its HTTP status and kind are listed below and in `x-error-codes`.',
    )
    .setVersion('1')
    .addBearerAuth()
    .build();
  const doc = withOperationalAnswers(withErrorTable(swagger.createDocument(app, document)));
  // GET /asyncapi answers a whole AsyncAPI document: free-form JSON (asyncapi.controller.ts)
  doc.components!.schemas![ASYNCAPI_SCHEMA] = {
    type: 'object',
    additionalProperties: true,
    description: 'The AsyncAPI 3 document of the Kafka topics (docs/asyncapi/asyncapi.yaml) as JSON, its schema files inlined',
  };
  return toOpenApi31(withOperationNames(doc));
}
