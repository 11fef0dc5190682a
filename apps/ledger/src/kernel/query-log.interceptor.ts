import { CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { Observable, from, lastValueFrom } from 'rxjs';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from './tokens';
import { recordQueryLog } from './query-log';

/**
 * Records every read of the audit, settlement and reconciliation API, and every raw read of a
 * shoe's stream or chain, in the append-only `query_log` (who looked at what, with which filters,
 * how many rows came back: `items`, a stream page's `events`, or CSV lines;
 * docs/architecture.md §10). A read whose log row cannot be written fails (500): an unrecorded
 * audit read is not allowed.
 */
@Injectable()
export class QueryLogInterceptor implements NestInterceptor {
  private readonly logger = new Logger('QueryLog');

  constructor(@Inject(DATA_SOURCE) private readonly ds: DataSource) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest();
    return from(
      (async () => {
        const result = await lastValueFrom(next.handle(), { defaultValue: undefined });
        const count = Array.isArray((result as { items?: unknown[] })?.items)
          ? (result as { items: unknown[] }).items.length
          : Array.isArray((result as { events?: unknown[] })?.events)
            ? (result as { events: unknown[] }).events.length
            : typeof result === 'string'
              ? Math.max(0, result.split('\n').length - 2)
              : null;
        await recordQueryLog(this.ds, {
          actorId: req.principal?.id ?? 'unknown',
          actorRole: req.principal?.role ?? 'unknown',
          route: `${req.method} ${req.route?.path ?? req.path}`,
          params: storableJson({ ...req.params, ...req.query }),
          resultCount: count,
          correlationId: req.correlationId ?? null,
        });
        this.logger.debug({ actor: req.principal?.id, route: req.originalUrl }, 'audit read recorded');
        return result;
      })(),
    );
  }
}

/**
 * `v` as JSON that PostgreSQL's jsonb takes: NUL and lone UTF-16 surrogates (which jsonb refuses, and
 * which the validated routes never let through) are written out as the text `\\uXXXX`.
 */
function storableJson(v: unknown): string {
  // an escape `\uXXXX` is one preceded by an even number of backslashes (`\\u0000` is the text "\u0000")
  return JSON.stringify(v).replace(/(?<!\\)((?:\\\\)*)\\u(0000|d[89a-f][0-9a-f]{2})/gi, '$1\\\\u$2');
}
