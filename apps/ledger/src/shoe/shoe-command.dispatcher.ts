import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { ShoeCommand } from '@ledger/shoe';
import type { Principal } from '../auth/principal';
import { ApiError } from '../common/api-error';
import type { WriteOptionsDto } from './dto/common.dto';
import { ExecuteShoeCommand, ShoeCommandResult } from './execute-shoe-command';

/** Builds {@link ExecuteShoeCommand}s from HTTP requests and sends them on the command bus. */
@Injectable()
export class ShoeCommandDispatcher {
  constructor(private readonly bus: CommandBus) {}

  /**
   * @param req the HTTP request (correlation id, `Idempotency-Key` header, route and body for the request hash)
   * @param body validated write options (`occurredAt`, `expectedVersion`)
   * @throws ApiError 400 `VALIDATION.FAILED` for an Idempotency-Key longer than 128 characters
   */
  async dispatch(
    req: Request & { correlationId?: string },
    principal: Principal,
    shoeId: string,
    tableId: string | null,
    body: WriteOptionsDto,
    command: ShoeCommand,
  ): Promise<ShoeCommandResult> {
    const key = req.header('idempotency-key') ?? null;
    if (key !== null && (key.length < 1 || key.length > 128)) {
      throw new ApiError('VALIDATION.FAILED', 'Idempotency-Key must be 1..128 characters', 400);
    }
    const requestHash = createHash('sha256')
      .update(`${req.method} ${req.originalUrl.split('?')[0]} ${principal.id}\n${JSON.stringify(req.body ?? null)}`)
      .digest('hex');
    return this.bus.execute(
      new ExecuteShoeCommand(
        shoeId,
        tableId,
        command,
        principal,
        req.correlationId ?? 'none',
        body.occurredAt ?? null,
        body.expectedVersion,
        key,
        requestHash,
      ),
    );
  }
}
