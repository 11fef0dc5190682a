import type { NestExpressApplication } from '@nestjs/platform-express';
import type { TokenVerifier } from '@ledger/tokens';
import { betsBatchAdmission, type BatchAdmission } from './batch-admission';
import { edgeMiddleware, type AddressLimit, type BodyLimits } from './edge-limits';
import { RequestShapePipe } from './request-shape.pipe';
import { LedgerValidationPipe } from './validation.pipe';

/** Largest request body the API reads without edge limits (the specs' probe apps); a larger one is 413 `REQUEST.TOO_LARGE`. */
export const BODY_LIMIT = '5mb';

/** The edge of a real ledger app: its token verifier and body limits (see {@link edgeMiddleware}). */
export interface EdgeWiring {
  readonly verifier: TokenVerifier;
  readonly limits: BodyLimits;
  /** The per-address budget, counted before routing (see {@link edgeMiddleware}). */
  readonly address?: AddressLimit;
  /** The bets batches' byte budget, taken before their body is read (see {@link betsBatchAdmission}). */
  readonly batches?: BatchAdmission;
}

/**
 * The HTTP wiring every ledger app shares with the specs that drive one: with `edge`, first the
 * edge middleware (the caller of a valid token; a body over its caller's and route's limit refused
 * before it is read, docs/architecture.md §10), then the JSON body parser with its size limit
 * (`BODY_LIMIT_BETS_BATCH_BYTES` with `edge`, else {@link BODY_LIMIT}), then the admission of the
 * bets batches (their byte budget, {@link betsBatchAdmission}), then the global pipes
 * ({@link RequestShapePipe} before the {@link LedgerValidationPipe}, which refuses unknown fields). Refusals of
 * all end in `LedgerExceptionFilter` with a code of the error table (docs/architecture.md §4).
 */
export function applyHttpWiring(app: NestExpressApplication, edge?: EdgeWiring): NestExpressApplication {
  if (edge) app.use(edgeMiddleware(edge.verifier, edge.limits, edge.address));
  // inflate: false: a compressed body is refused (415), never inflated: the limits above count the
  // bytes on the wire, and a small gzip body could inflate to megabytes (docs/architecture.md §10)
  app.useBodyParser('json', { limit: edge ? edge.limits.BODY_LIMIT_BETS_BATCH_BYTES : BODY_LIMIT, inflate: false });
  if (edge?.batches) app.use(betsBatchAdmission(edge.batches));
  app.useGlobalPipes(new RequestShapePipe(), new LedgerValidationPipe());
  return app;
}
