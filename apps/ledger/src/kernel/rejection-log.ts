import type { ErrorCode } from '@ledger/errors';
import type { Principal } from './auth/principal';

/** Injection token of the {@link RejectionLog}. */
export const REJECTION_LOG = Symbol('REJECTION_LOG');

/** One refused request, as the append-only `rejections` table keeps it. */
export interface RejectionRecord {
  /** the refusal's code; `httpStatus` is its status in the error table */
  code: ErrorCode;
  message: string;
  httpStatus: number;
  actor: Principal | null;
  route: string;
  tableId: string | null;
  correlationId: string | null;
  rawPayload: unknown;
}

/** Where refusals go for audit (docs/guarantees.md §11). */
export interface RejectionLog {
  record(r: RejectionRecord): Promise<void>;
}
