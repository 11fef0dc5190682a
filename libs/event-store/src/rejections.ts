import type { DataSource } from 'typeorm';
import { errorFields, type LedgerLogger } from './logger';
import type { RejectionInput } from './types';

/**
 * The log of refused requests (docs/guarantees.md §11): every refusal is recorded in the
 * append-only `rejections` table, with the request as received, whatever the caller rolled back.
 */
export class RejectionLog {
  /**
   * @param ds an initialised, migrated DataSource
   * @param log where a failure to record is logged (`error`)
   * @param now clock for `received_at` when the input names none
   */
  constructor(
    private readonly ds: DataSource,
    private readonly log: LedgerLogger,
    private readonly now: () => Date,
  ) {}

  /**
   * Records a refused request in `rejections` (append-only), in its own transaction, independent of
   * whatever the caller rolled back. Never throws, so the refusal's own answer to the client is never
   * replaced by a logging failure; that failure is logged at `error` with the rejection's fields, so
   * the refusal is not lost silently either.
   */
  async recordRejection(r: RejectionInput): Promise<void> {
    try {
      const receivedAt = r.receivedAt === undefined ? this.now() : new Date(r.receivedAt);
      await this.ds.query(
        `INSERT INTO rejections (received_at, code, message, http_status, actor_id, actor_role, route, table_id,
                                 correlation_id, raw_payload)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb)`,
        [receivedAt.toISOString(), r.code, r.message, r.httpStatus, r.actorId ?? null, r.actorRole ?? null, r.route ?? null, r.tableId ?? null, r.correlationId ?? null, payloadJson(r.rawPayload)],
      );
    } catch (err) {
      this.log.error(
        {
          ...errorFields(err),
          rejection: { code: r.code, httpStatus: r.httpStatus, route: r.route, tableId: r.tableId },
          correlationId: r.correlationId,
          actorId: r.actorId,
        },
        'could not record a rejection',
      );
    }
  }
}

/** JSON for `rejections.raw_payload`: never throws; NULs escaped; oversized or unserialisable payloads summarised. */
function payloadJson(payload: unknown): string | null {
  if (payload === undefined) return null;
  const MAX = 1024 * 1024;
  let json: string | undefined;
  try {
    json = JSON.stringify(payload, (_k, v) => (typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v.replace(/\u0000/g, '\\u0000') : v));
  } catch (err) {
    return JSON.stringify({ unserialisable: String((err as Error).message) });
  }
  if (json === undefined) return null;
  if (json.length > MAX) return JSON.stringify({ truncated: true, length: json.length, head: json.slice(0, 4096) });
  return json;
}
