import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { catalogueCounter, catalogueHistogram } from '@ledger/metrics';

const requests = catalogueCounter('httpRequests');
const duration = catalogueHistogram('httpDuration');

/**
 * The route template of a finished request (`/tables/:tableId/rounds`), never the raw URL (no ids in
 * labels, docs/architecture.md §8); `unmatched` when no route answered (404, refused at the edge).
 */
export function routeTemplate(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? `${req.baseUrl ?? ''}${route.path}` : 'unmatched';
}

/**
 * Counts every HTTP request and observes its latency (seconds, arrival to the response's end) by
 * method, route template and status (`ledger_http_requests_total`,
 * `ledger_http_request_duration_seconds`; docs/architecture.md §8).
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = { method: req.method, route: routeTemplate(req), status: String(res.statusCode) };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  }
}
