import type { DataSource } from 'typeorm';
import { projectionStatus, type ProjectionStatus } from '@ledger/projections';
import { first, tablesIn } from '../sql';

/**
 * The projection engine's bookkeeping as the API reads it (docs/guarantees.md §6, docs/reports.md §3):
 * the partitions' checkpoints and incidents (`GET /projections/status`, `/health`, `/metrics`), whether
 * an event is applied (`applied_events`), and how far the read model can answer an as-of read.
 */

/**
 * The engine's tables in the read-model schema (until the engine's `tables.ts` holds them): its
 * checkpoints and dedupe, the record verification (stream heads, quarantine), the incidents, and the
 * analytics outbox with its leases.
 */
export const ENGINE_TABLES = {
  checkpoints: 'checkpoints',
  applied: 'applied_events',
  streamHeads: 'stream_heads',
  quarantine: 'quarantine',
  incidents: 'projection_incidents',
  outboxLeases: 'outbox_leases',
  analyticsOutbox: 'analytics_outbox',
} as const;

/** The engine's relations whose presence says the read model's migrations ran, as the API's readiness checks them (`schema.table`). */
export function apiReadModelRelations(schema: string): string[] {
  const t = tablesIn(schema, ENGINE_TABLES);
  return [t.checkpoints, t.incidents];
}

/** The engine's relations the projector's readiness checks (`schema.table`): the ones it writes at every batch. */
export function projectorReadModelRelations(schema: string): string[] {
  const t = tablesIn(schema, ENGINE_TABLES);
  return [t.checkpoints, t.applied, t.incidents, t.quarantine, t.analyticsOutbox];
}

/** The engine's reads on the API's pool. */
export class HealthReads {
  private readonly t: { readonly [K in keyof typeof ENGINE_TABLES]: string };

  /** @param ds the API's DataSource; @param schema the read-model schema (checked) */
  constructor(
    private readonly ds: DataSource,
    private readonly schema: string,
  ) {
    this.t = tablesIn(schema, ENGINE_TABLES);
  }

  /** Every partition with its checkpoint, the open incidents and the last resolved ones (`projectionStatus` of the engine). */
  status(): Promise<ProjectionStatus> {
    return projectionStatus(this.ds, this.schema);
  }

  /** Whether the projections have applied the event `eventId` (lower-case UUID). */
  async applied(eventId: string): Promise<boolean> {
    return (await first<{ one: number }>(this.ds, `SELECT 1 AS one FROM ${this.t.applied} WHERE event_id = $1`, [eventId])) !== undefined;
  }

  /**
   * The lowest global position in (`after`, `through`] that an outbox row of `topic` holds and the
   * projections have not applied yet; null when every one is applied. The outbox is the event
   * store's; `applied_events` the engine's.
   */
  async firstUnapplied(topic: string, after: bigint, through: bigint): Promise<bigint | null> {
    const row = await first<{ p: string | null }>(
      this.ds,
      `SELECT min(o.global_position)::text AS p FROM outbox o
        WHERE o.topic = $1 AND o.global_position > $2::bigint AND o.global_position <= $3::bigint
          AND NOT EXISTS (SELECT 1 FROM ${this.t.applied} a WHERE a.global_position = o.global_position)`,
      [topic, after.toString(), through.toString()],
    );
    return row?.p ? BigInt(row.p) : null;
  }
}
