import { ValidationPipe } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { RequestShapePipe } from './request-shape.pipe';

/** Largest request body the API reads; a larger one is 413 `REQUEST.TOO_LARGE`. */
export const BODY_LIMIT = '5mb';

/**
 * The HTTP wiring every ledger app shares with the specs that drive one: the JSON body parser with
 * its size limit, then the global pipes ({@link RequestShapePipe} before the ValidationPipe, which
 * refuses unknown fields). Refusals of both end in `LedgerExceptionFilter` with a code of the error
 * table (docs/architecture.md §4).
 */
export function applyHttpWiring(app: NestExpressApplication): NestExpressApplication {
  app.useBodyParser('json', { limit: BODY_LIMIT });
  app.useGlobalPipes(
    new RequestShapePipe(),
    new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true, stopAtFirstError: false }),
  );
  return app;
}
