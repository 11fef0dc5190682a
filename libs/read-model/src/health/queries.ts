import type { DataSource } from 'typeorm';
import { projectionStatus, type ProjectionStatus } from '@ledger/projections';
import { first, rows, tablesIn } from '../sql';

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

/** A record the projector quarantined, as the significant-event raiser reads it (`RECORD.QUARANTINED`). */
export interface QuarantineRow {
  readonly topic: string;
  readonly partition: number;
  /** Decimal string. */
  readonly kafka_offset: string;
  readonly consumer_group: string;
  readonly reason: string;
  readonly stream_id: string | null;
  readonly event_id: string | null;
  /** Its position in the raiser's keyset: `quarantined_at` as microseconds since the epoch, decimal. */
  readonly at_us: string;
}

/** A projection incident (a halted partition), as the significant-event raiser reads it (`PROJECTION.HALTED`). */
export interface IncidentRow {
  /** Decimal string. */
  readonly id: string;
  readonly consumer_group: string;
  readonly topic: string;
  readonly partition: number;
  readonly code: string;
  readonly projection: string | null;
  /** `halted_at` as microseconds since the epoch, decimal. */
  readonly at_us: string;
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

  /**
   * The quarantined records after the keyset position (`afterUs`, `afterKey` = `topic/partition/offset`), oldest first, at most `limit`
   * (the significant-event raiser's poll, docs/significant-events.md "Causes").
   */
  quarantinedAfter(after: { readonly atUs: string; readonly key: string }, limit: number): Promise<QuarantineRow[]> {
    return rows<QuarantineRow>(
      this.ds,
      `SELECT q.* FROM (SELECT topic, partition, kafka_offset::text AS kafka_offset, consumer_group, reason, stream_id, event_id,
                               (extract(epoch FROM quarantined_at) * 1000000)::bigint::text AS at_us
                          FROM ${this.t.quarantine}) q
        WHERE (q.at_us::bigint, q.topic || '/' || q.partition || '/' || q.kafka_offset) > ($1::bigint, $2::text)
        ORDER BY q.at_us::bigint, q.topic || '/' || q.partition || '/' || q.kafka_offset LIMIT $3`,
      [after.atUs, after.key, limit],
    );
  }

  /** The projection incidents with an id above `afterId`, oldest first, at most `limit` (the significant-event raiser's poll). */
  incidentsAfter(afterId: string, limit: number): Promise<IncidentRow[]> {
    return rows<IncidentRow>(
      this.ds,
      `SELECT id::text AS id, consumer_group, topic, partition, code, projection, (extract(epoch FROM halted_at) * 1000000)::bigint::text AS at_us FROM ${this.t.incidents} WHERE id > $1::bigint ORDER BY id LIMIT $2`,
      [afterId, limit],
    );
  }
}
