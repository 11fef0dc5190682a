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
          message: body.error.message,
          httpStatus: status,
          actor: req.principal ?? null,
          route: `${req.method} ${req.originalUrl}`,
          tableId: (req.params?.tableId as string | undefined) ?? null,
          correlationId: req.correlationId ?? null,
          rawPayload: req.body ?? null,
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
      if (status === 400) return { status, body: { error: { code: 'REQUEST.MALFORMED', message: e.message } } };
      if (status === 404) return { status, body: { error: { code: 'ROUTE.NOT_FOUND', message: e.message } } };
      if (status === 413) return { status, body: { error: { code: 'REQUEST.TOO_LARGE', message: e.message } } };
      return { status, body: { error: { code: `HTTP.${status}`, message: e.message } } };
    }
    return { status: 500, body: { error: { code: 'INTERNAL', message: 'internal error' } } };
  }
}
