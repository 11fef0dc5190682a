import { createHash } from 'node:crypto';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError } from './api-error';
import { httpStatusForCode } from './error-status';
import type { Principal } from '../auth/principal';
import { REJECTION_LOG, RejectionLog } from './rejection-log';

/** Shape of every error response body. */
export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
  correlationId?: string;
}

/**
 * Maps every error to `{ error: { code, message, details } }` with the status of
 * {@link httpStatusForCode}, and records every refused write (and every 401/403) in the
 * append-only rejection log with the raw payload (architecture.md guarantee 11).
 * Errors that carry a `code` (domain, rules, store) keep it; unknown errors become 500 `INTERNAL`.
 */
@Catch()
export class LedgerExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Refusals');

  constructor(@Inject(REJECTION_LOG) private readonly rejections: RejectionLog) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request & { principal?: Principal; correlationId?: string }>();
    const res = ctx.getResponse<Response>();
    const { status, body } = this.toBody(exception);
    body.correlationId = req.correlationId;
    const isWrite = req.method !== 'GET' && req.method !== 'HEAD';
    if (status >= 400 && status < 500 && (isWrite || status === 401 || status === 403)) {
      this.logger.warn({ code: body.error.code, status, route: `${req.method} ${req.originalUrl}`, actor: req.principal?.id, correlationId: req.correlationId }, 'request refused');
      try {
        await this.rejections.record({
          code: body.error.code,
          httpStatus: status,
          actor: req.principal ?? null,
          // storable(): a refusal whose text PostgreSQL cannot hold (NUL, lone surrogates from a hostile
          // path or body) must still be recorded; those characters are written out as `\uXXXX`.
          message: storable(body.error.message),
          route: storable(`${req.method} ${req.originalUrl}`),
          tableId: typeof req.params?.tableId === 'string' ? storable(req.params.tableId) : null,
          correlationId: req.correlationId ?? null,
          rawPayload: boundedPayload(storablePayload(req.body ?? null), status === 401 ? 2_048 : 65_536),
        });
      } catch (e) {
        this.logger.error({ err: e }, 'could not record a rejection');
      }
    } else if (status >= 500) {
      this.logger.error({ err: exception, route: `${req.method} ${req.originalUrl}` }, 'request failed');
    }
    if (!res.headersSent) res.status(status).json(body);
  }

  private toBody(e: unknown): { status: number; body: ErrorBody } {
    if (e instanceof ApiError) return { status: e.status, body: { error: { code: e.code, message: e.message, details: e.details } } };
    const coded = e as { code?: unknown; message?: string; details?: Record<string, unknown> };
    if (e instanceof Error && typeof coded.code === 'string' && /^[A-Z_]+\.[A-Z_]+$/.test(coded.code)) {
      return { status: httpStatusForCode(coded.code), body: { error: { code: coded.code, message: e.message, details: coded.details } } };
    }
    if (e instanceof HttpException) {
      const status = e.getStatus();
      const r = e.getResponse() as { message?: unknown } | string;
      if (status === 400 && typeof r === 'object' && Array.isArray(r.message)) {
        const problems = r.message as string[];
        const code = problems.some((m) => String(m).includes('CARD.MALFORMED')) ? 'CARD.MALFORMED' : 'VALIDATION.FAILED';
        return { status: 400, body: { error: { code, message: 'request body is invalid', details: { problems } } } };
      }
      if (status === 404) return { status, body: { error: { code: 'ROUTE.NOT_FOUND', message: e.message } } };
      return { status, body: { error: { code: codeForHttpStatus(status), message: e.message } } };
    }
    // Errors of the body parser (http-errors: `status` 4xx, `expose`): a body that cannot be inflated
    // (bad gzip), an unsupported charset or content encoding, a body over the size limit. They reach
    // the filter as plain errors, not HttpExceptions; they are the client's fault, never a 500.
    const httpish = e as { status?: unknown; statusCode?: unknown; expose?: unknown };
    const st = typeof httpish?.status === 'number' ? httpish.status : typeof httpish?.statusCode === 'number' ? httpish.statusCode : NaN;
    if (e instanceof Error && st >= 400 && st < 500) {
      return { status: st, body: { error: { code: codeForHttpStatus(st), message: httpish.expose === false ? 'request refused' : e.message } } };
    }
    return { status: 500, body: { error: { code: 'INTERNAL', message: 'internal error' } } };
  }
}

/** A stable `AREA.REASON` code for a framework or body-parser refusal that carries only an HTTP status. */
function codeForHttpStatus(status: number): string {
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

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` with NUL and lone UTF-16 surrogates (which PostgreSQL text and jsonb refuse) written out as `\uXXXX`. */
function storable(s: string): string {
  return s.replace(UNSTORABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Nesting kept in a recorded payload; anything deeper is summarised (a hostile body may nest 10^5 deep). */
const MAX_PAYLOAD_DEPTH = 32;

/** The raw payload with every key and string made {@link storable}, nesting cut at {@link MAX_PAYLOAD_DEPTH}. */
/**
 * Caps what one refusal may add to the append-only rejection log: a payload over `maxBytes` of
 * JSON is kept as its size, SHA-256 and first 1,024 characters (an unauthenticated caller gets
 * 2 KB, so nobody can fill the audit log without a token).
 */
function boundedPayload(v: unknown, maxBytes: number): unknown {
  const json = JSON.stringify(v) ?? 'null';
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return v;
  return { truncated: true, bytes, sha256: createHash('sha256').update(json).digest('hex'), head: json.slice(0, 1024) };
}

function storablePayload(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return storable(v);
  if (v === null || typeof v !== 'object') return v;
  if (depth >= MAX_PAYLOAD_DEPTH) return { truncated: `nested deeper than ${MAX_PAYLOAD_DEPTH} levels` };
  if (Array.isArray(v)) return v.map((x) => storablePayload(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) Object.defineProperty(out, storable(k), { value: storablePayload(x, depth + 1), enumerable: true, writable: true, configurable: true });
  return out;
}
