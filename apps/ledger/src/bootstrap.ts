import type { NestExpressApplication } from '@nestjs/platform-express';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { applyHttpWiring } from './common/http-wiring';
import { withErrorTable } from './common/openapi-errors';

/**
 * Creates the ledger HTTP app with its global pipes and OpenAPI at `/docs` (JSON at `/docs-json`;
 * the error codes in it are generated from the error table, see {@link withErrorTable}).
 * Shared by `main.ts` and the e2e tests so both run the same wiring.
 */
export async function createLedgerApp(options: { logger?: boolean } = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { bufferLogs: true, logger: options.logger === false ? false : undefined });
  if (options.logger !== false) app.useLogger(app.get(Logger));
  applyHttpWiring(app);
  const config = new DocumentBuilder()
    .setTitle('Baccarat round ledger')
    .setDescription(
      'Table facts, bets and management decisions become immutable events. Errors answer `{ error: { code, message, details } }` (schema `ErrorResponse`); every code, its HTTP status and kind are listed below and in `x-error-codes`.',
    )
    .setVersion('1')
    .addBearerAuth()
    .build();
  SwaggerModule.setup('docs', app, () => withErrorTable(SwaggerModule.createDocument(app, config)));
  app.enableShutdownHooks();
  return app;
}
