import { createHash } from 'node:crypto';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { errorSpec, isErrorCode, type ErrorCode } from '@ledger/errors';
import { ApiError } from '../kernel/api-error';
import { ValidationRefusal } from './validation.pipe';
import type { Principal } from '../kernel/auth/principal';
import { catalogueCounter } from '@ledger/metrics';
import { REJECTION_LOG, RejectionLog } from '../kernel/rejection-log';
import { REFUSAL_BUDGET, RefusalBudget } from './refusal-budget';
import { tapRefusal } from '../kernel/significant-taps';

/** Every refusal (4xx), by code and whether the caller had a valid token (docs/architecture.md §8). */
const refusals = catalogueCounter('refusals');
/** Sampled refusals not stored because their caller's rejection-log budget of the minute was spent. */
const droppedRejections = catalogueCounter('rejectionsDropped');

/**
 * The codes of a refusal at the transport level (no or a bad token, an unknown route, a body that
 * cannot be read or is too large, a rate limit): such a refusal is sampled into the rejection
 * log within its caller's budget, whoever the caller; every other refusal of a caller with a
 * valid token (the domain's, the role checks') is kept whole (docs/guarantees.md §11).
 */
export const TRANSPORT_REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'AUTH.UNAUTHENTICATED',
  'ROUTE.NOT_FOUND',
  'REQUEST.MALFORMED',
  'REQUEST.REFUSED',
  'REQUEST.TOO_LARGE',
  'REQUEST.UNSUPPORTED_MEDIA_TYPE',
  'RATE.LIMITED',
  'RATE.HEAVY_READ_BUSY',
  'RATE.BETS_BATCH_BUSY',
]);

/** Longest route or message a sampled refusal keeps, in characters. */
const SAMPLED_TEXT_MAX = 512;
/** What a row of `rejections` costs besides its texts and payload, in bytes (an estimate for the budget). */
const ROW_OVERHEAD_BYTES = 256;

/** Shape of every error response body (the OpenAPI document's `ErrorResponse`). */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
  correlationId?: string;
  /** The request's id (`X-Request-Id`; common/http-hygiene.ts). */
  requestId?: string;
}

/**
 * Maps every error to `{ error: { code, message, details }, correlationId, requestId }` with the status the error table
 * gives its code (`ERROR_TABLE` in `@ledger/errors`, docs/architecture.md §4: the filter has no
 * status of its own), counts every refusal (`ledger_refusals_total{reason,authenticated}`) and
 * records every refused write (and every 401/403) in the append-only rejection log
 * (docs/guarantees.md §11, §12):
 * - a refusal of a caller with a valid token by the domain or the role checks: its row is whole
 *   (the raw payload up to 64 KiB, else its size, SHA-256 and head);
 * - a refusal at the transport level ({@link TRANSPORT_REFUSALS}: no or a bad token, an unknown
 *   route, an unreadable or too large body, a rate limit): sampled — the payload capped at
 *   `REFUSAL_PAYLOAD_MAX_BYTES` (length and SHA-256 kept), route and message at 512 characters, and
 *   stored only while its caller (token subject, else remote address) has budget left this minute
 *   (`REFUSAL_LOG_BYTES_PER_MINUTE`); beyond it only counted (`ledger_rejections_dropped_total`).
 * A 429 carries `Retry-After` (its `details.retryAfterSeconds`). Every refusal is handed to the
 * significant-event raiser (`tapRefusal`: constant time, never fails the refusal).
 * - errors that carry a code of the table (`ApiError`, `DomainError`, `RulesError`,
 *   `EventStoreError`, …) keep it;
 * - framework and body-parser refusals get the code of their HTTP status (`REQUEST.MALFORMED`,
 *   `VALIDATION.FAILED`, `ROUTE.NOT_FOUND`, `REQUEST.TOO_LARGE`, …);
 * - anything else, a code missing from the table included, is 500 `INTERNAL`.
 */
@Catch()
export class LedgerExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Refusals');

  private readonly budget: RefusalBudget;

  constructor(
    @Inject(REJECTION_LOG) private readonly rejections: RejectionLog,
    @Optional() @Inject(REFUSAL_BUDGET) budget?: RefusalBudget,
  ) {
    this.budget = budget ?? new RefusalBudget();
  }

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request & { principal?: Principal; edgeCaller?: Principal | null; correlationId?: string; requestId?: string }>();
    const res = ctx.getResponse<Response>();
    const { status, body } = this.toBody(exception);
    body.correlationId = req.correlationId;
    body.requestId = req.requestId;
    const isWrite = req.method !== 'GET' && req.method !== 'HEAD';
    const code = body.error.code;
    const caller = req.principal ?? req.edgeCaller ?? null;
    if ((status === 429 || status === 503) && typeof body.error.details?.retryAfterSeconds === 'number') res.setHeader('Retry-After', String(body.error.details.retryAfterSeconds));
    if (status >= 400 && status < 500) {
      refusals.inc({ reason: code, authenticated: caller ? 'true' : 'false' });
      const reason = body.error.details?.reason;
      const tableId = refusedTableId(req.params?.tableId, body.error.details);
      const shoeId = typeof req.params?.shoeId === 'string' ? req.params.shoeId : null;
      tapRefusal({ code, status, reason: typeof reason === 'string' ? reason : undefined, requestId: req.requestId ?? null, actor: req.principal ?? null, tableId, shoeId, atMs: Date.now() });
    }
    if (status >= 400 && status < 500 && (isWrite || status === 401 || status === 403 || status === 429)) {
      const sampled = TRANSPORT_REFUSALS.has(code) || !req.principal;
      const route = `${req.method} ${req.originalUrl}`;
      this.logger.warn({ code, status, route: route.slice(0, SAMPLED_TEXT_MAX), actor: caller?.id, correlationId: req.correlationId, requestId: req.requestId }, 'request refused');
      // storable(): a refusal whose text PostgreSQL cannot hold (NUL, lone surrogates from a hostile
      // path or body) must still be recorded; those characters are written out as `\uXXXX`.
      const record = {
        code,
        httpStatus: status,
        actor: req.principal ?? null,
        message: storable(sampled ? body.error.message.slice(0, SAMPLED_TEXT_MAX) : body.error.message),
        route: storable(sampled ? route.slice(0, SAMPLED_TEXT_MAX) : route),
        tableId: refusedTableId(req.params?.tableId, body.error.details),
        correlationId: req.correlationId ?? null,
        rawPayload: sampled ? this.budget.cap(storablePayload(req.body ?? notRead(req)), contentLength(req)) : boundedPayload(storablePayload(req.body ?? null), 65_536),
      };
      const cost = sampled ? ROW_OVERHEAD_BYTES + Buffer.byteLength(record.message) + Buffer.byteLength(record.route) + Buffer.byteLength(JSON.stringify(record.rawPayload) ?? '') : 0;
      if (sampled && !(await this.budget.spend(caller ? `sub:${caller.role}:${caller.id}` : `addr:${req.ip ?? req.socket?.remoteAddress ?? 'unknown'}`, cost))) {
        droppedRejections.inc({ reason: code });
      } else {
        try {
          await this.rejections.record(record);
        } catch (e) {
          this.logger.error({ err: e }, 'could not record a rejection');
        }
      }
    } else if (status >= 500) {
      this.logger.error({ err: exception, route: `${req.method} ${req.originalUrl}`, requestId: req.requestId }, 'request failed');
    }
    if (!res.headersSent) {
      // a database timeout is transient: say when to come back (docs/architecture.md §5)
      if (body.error.code === 'DATABASE.TIMEOUT') res.setHeader('Retry-After', '1');
      // always JSON, whatever type the route set for its own answer (`/metrics` sets text/plain before its pipes run)
      res.status(status).type('application/json').json(body);
    }
  }

  private toBody(e: unknown): { status: number; body: ErrorBody } {
    const answer = (code: ErrorCode, message: string, details?: Record<string, unknown>) => ({
      status: errorSpec(code).status,
      body: { error: details === undefined ? { code, message } : { code, message, details } },
    });
    if (e instanceof ApiError) return answer(e.code, e.message, e.details);
    if (e instanceof ValidationRefusal) return answer(e.code, e.summary, { problems: [...e.problems] });
    const timeout = databaseTimeout(e);
    if (timeout) return answer('DATABASE.TIMEOUT', `the database did not answer in time (${timeout}); nothing was recorded, retry later`, { reason: timeout });
    const coded = e as { code?: unknown; message?: string; details?: Record<string, unknown> };
    if (e instanceof Error && isErrorCode(coded.code)) return answer(coded.code, e.message, coded.details);
    if (e instanceof Error && typeof coded.code === 'string' && /^[A-Z_]+\.[A-Z_]+$/.test(coded.code)) {
      this.logger.error({ err: e, code: coded.code }, 'error code missing from the error table');
      return answer('INTERNAL', 'internal error');
    }
    if (e instanceof HttpException) {
      const status = e.getStatus();
      const r = e.getResponse() as { message?: unknown } | string;
      if (status === 400 && typeof r === 'object' && Array.isArray(r.message)) {
        // a refusal of a ValidationPipe other than the API's (which throws ValidationRefusal, its code in a field)
        return answer('VALIDATION.FAILED', 'request body is invalid', { problems: r.message as string[] });
      }
      if (status === 404) return answer('ROUTE.NOT_FOUND', e.message);
      const code = codeForHttpStatus(status);
      return answer(code, code === 'INTERNAL' ? 'internal error' : e.message);
    }
    // Errors of the body parser (http-errors: `status` 4xx, `expose`): a body that cannot be inflated
    // (bad gzip), an unsupported charset or content encoding, a body over the size limit. They reach
    // the filter as plain errors, not HttpExceptions; they are the client's fault, never a 500.
    const httpish = e as { status?: unknown; statusCode?: unknown; expose?: unknown };
    const st = typeof httpish?.status === 'number' ? httpish.status : typeof httpish?.statusCode === 'number' ? httpish.statusCode : NaN;
    if (e instanceof Error && st >= 400 && st < 500) {
      return answer(codeForHttpStatus(st), httpish.expose === false ? 'request refused' : e.message);
    }
    return answer('INTERNAL', 'internal error');
  }
}

/**
 * Which database timeout `e` is, or null: a statement over `DB_STATEMENT_TIMEOUT_MS` (SQLSTATE
 * 57014), a session ended for idling in a transaction (25P03), no connection within
 * `DB_CONNECT_TIMEOUT_MS` (pg-pool / pg connect timeout). The transaction was rolled back by
 * PostgreSQL: nothing of the request is recorded.
 */
function databaseTimeout(e: unknown): string | null {
  if (!(e instanceof Error)) return null;
  const driver = (e as { driverError?: { code?: unknown } }).driverError;
  const code = (e as { code?: unknown }).code ?? driver?.code;
  if (code === '57014') return 'statement timeout';
  if (code === '25P03') return 'idle-in-transaction timeout';
  if (/timeout exceeded when trying to connect|connection timeout/i.test(e.message)) return 'connect timeout';
  return null;
}

/**
 * The code of a framework or body-parser refusal that carries only an HTTP status; the answer's
 * status is then the code's in the error table (the same for each status below; any other 4xx
 * becomes 400 `REQUEST.REFUSED`).
 */
function codeForHttpStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'REQUEST.MALFORMED';
    case 401:
      return 'AUTH.UNAUTHENTICATED';
    case 403:
      return 'AUTH.FORBIDDEN';
    case 413:
      return 'REQUEST.TOO_LARGE';
    case 415:
      return 'REQUEST.UNSUPPORTED_MEDIA_TYPE';
    default:
      return status >= 500 ? 'INTERNAL' : 'REQUEST.REFUSED';
  }
}

/** The declared `Content-Length` of a request, or null. */
function contentLength(req: Request): number | null {
  const n = Number(req.headers['content-length']);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** What a sampled refusal records when the body was refused before it was read (over its size limit). */
function notRead(req: Request): unknown {
  const n = contentLength(req);
  return n === null || n === 0 ? null : { notRead: true, contentLength: n };
}

/**
 * The table a refusal concerns: the path's `tableId`, else the table a refusal names in its details
 * (a fact or bet refused for the shoe's table, `AUTH.TABLE_NOT_ALLOWED`), else null.
 */
function refusedTableId(pathTableId: unknown, details: Record<string, unknown> | undefined): string | null {
  if (typeof pathTableId === 'string') return storable(pathTableId);
  return typeof details?.tableId === 'string' ? storable(details.tableId) : null;
}

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` with NUL and lone UTF-16 surrogates (which PostgreSQL text and jsonb refuse) written out as `\uXXXX`. */
function storable(s: string): string {
  return s.replace(UNSTORABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Nesting kept in a recorded payload; anything deeper is summarised (a hostile body may nest 10^5 deep). */
const MAX_PAYLOAD_DEPTH = 32;

/**
 * Caps what one refusal of an authenticated caller by the domain or the role checks adds to the
 * append-only rejection log: a payload over `maxBytes` of JSON is kept as its size, SHA-256 and
 * first 1,024 characters (the sampled refusals are capped by the {@link RefusalBudget}).
 */
function boundedPayload(v: unknown, maxBytes: number): unknown {
  const json = JSON.stringify(v) ?? 'null';
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return v;
  return { truncated: true, bytes, sha256: createHash('sha256').update(json).digest('hex'), head: json.slice(0, 1024) };
}

/** The raw payload with every key and string made {@link storable}, nesting cut at {@link MAX_PAYLOAD_DEPTH}. */
function storablePayload(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return storable(v);
  if (v === null || typeof v !== 'object') return v;
  if (depth >= MAX_PAYLOAD_DEPTH) return { truncated: `nested deeper than ${MAX_PAYLOAD_DEPTH} levels` };
  if (Array.isArray(v)) return v.map((x) => storablePayload(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) Object.defineProperty(out, storable(k), { value: storablePayload(x, depth + 1), enumerable: true, writable: true, configurable: true });
  return out;
}
