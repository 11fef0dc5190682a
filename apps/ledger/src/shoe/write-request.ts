import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { Principal } from '../kernel/auth/principal';
import type { Evidence } from '@ledger/events';
import { evidenceOf, type EvidenceDto } from './dto/evidence.dto';
import type { WriteOptionsDto } from './dto/write-options.dto';

/** An HTTP request once the correlation middleware has given it its id. */
export type HttpRequest = Request & { correlationId?: string };

/**
 * What every write on a shoe stream carries besides its use case's own fields: which stream,
 * who, when at the table, and how to recognise a retry (docs/architecture.md §3). Built from the
 * HTTP request by {@link writeRequest}; read by {@link ShoeStreamWriter}.
 */
export interface WriteRequest {
  /** Shoe id; the stream is `shoe-<shoeId>`. */
  readonly shoeId: string;
  /** Table of the shoe: required to open one (OpenShoe); checked against the stream otherwise, when given. */
  readonly tableId: string | null;
  /** The authenticated caller: the events' actor. */
  readonly principal: Principal;
  /** Correlation id of the request (header `X-Correlation-Id` or a new UUID); also the causation id. */
  readonly correlationId: string;
  /** ISO-8601 time at the table, or null for the time the ledger records it. */
  readonly occurredAt: string | null;
  /** Expected stream version; undefined = the writer retries a lost race itself. */
  readonly expectedVersion: number | undefined;
  /** `Idempotency-Key` header, unchecked (the writer refuses one outside 1..128 characters); null when absent. */
  readonly idempotencyKey: string | null;
  /** SHA-256 (hex) of method, path, caller and body, to refuse a key reused for another request. */
  readonly requestHash: string;
  /**
   * The body's validated `evidence` (docs/reports.md §7), or null: recorded on the table fact the
   * write causes ({@link ShoeStreamWriter}), or by the decision handlers on the decision's events.
   */
  readonly evidence: Evidence | null;
}

/**
 * The {@link WriteRequest} of an HTTP write on shoe `shoeId`.
 * @param body the validated body (its `occurredAt`, `expectedVersion`); the hash is taken of the raw body
 * @param tableId the table in the path, for OpenShoe only
 */
export function writeRequest(req: HttpRequest, principal: Principal, shoeId: string, body: WriteOptionsDto & { evidence?: EvidenceDto | null }, tableId: string | null = null): WriteRequest {
  const requestHash = createHash('sha256')
    .update(`${req.method} ${req.originalUrl.split('?')[0]} ${principal.id}\n${JSON.stringify(req.body ?? null)}`)
    .digest('hex');
  return {
    shoeId,
    tableId,
    principal,
    correlationId: req.correlationId ?? 'none',
    occurredAt: body.occurredAt ?? null,
    expectedVersion: body.expectedVersion,
    idempotencyKey: req.header('idempotency-key') ?? null,
    requestHash,
    evidence: evidenceOf(body.evidence),
  };
}
