import { Injectable, NestMiddleware } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/**
 * Gives every request a correlation id: the caller's `X-Correlation-Id` (≤ 128 chars) or a new
 * UUID; echoed in the response header and carried into every event the request causes.
 */
@Injectable()
export class CorrelationMiddleware implements NestMiddleware {
  use(req: Request & { correlationId?: string }, res: Response, next: NextFunction): void {
    const given = req.header('x-correlation-id');
    req.correlationId = given && given.length <= 128 ? given : randomUUID();
    res.setHeader('X-Correlation-Id', req.correlationId);
    next();
  }
}
