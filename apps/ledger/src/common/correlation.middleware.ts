import { Injectable, NestMiddleware } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/**
 * Sets `req.correlationId` once: the caller's `X-Correlation-Id` (≤ 128 chars) or a new UUID,
 * echoed in the response header. Called first by the edge middleware (so a refusal before the
 * body is read has it too) and again by {@link CorrelationMiddleware}, which keeps it.
 */
export function assignCorrelationId(req: Request & { correlationId?: string }, res: Response): void {
  if (req.correlationId !== undefined) return;
  const given = req.header('x-correlation-id');
  req.correlationId = given && given.length <= 128 ? given : randomUUID();
  res.setHeader('X-Correlation-Id', req.correlationId);
}

/**
 * Gives every request a correlation id: the caller's `X-Correlation-Id` (≤ 128 chars) or a new
 * UUID; echoed in the response header and carried into every event the request causes.
 */
@Injectable()
export class CorrelationMiddleware implements NestMiddleware {
  use(req: Request & { correlationId?: string }, res: Response, next: NextFunction): void {
    assignCorrelationId(req, res);
    next();
  }
}
