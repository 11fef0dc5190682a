/**
 * Where the bench looks for "projected" and for the stage timestamps, read defensively: the
 * tables are the read model's and the event store's (libs/projections/src/migrations, libs/read-model/src/migrations,
 * libs/event-store/src/migrations), whose columns other work may change. Each probe checks the
 * catalogue first and says what it used.
 */
import type { Pg } from './pg';

/** True when `schema.table` has every one of `columns`. */
export async function hasColumns(pg: Pg, schema: string, table: string, columns: string[]): Promise<boolean> {
  const { rows } = await pg.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`, [schema, table]);
  const have = new Set(rows.map((r: { column_name: string }) => r.column_name));
  return columns.every((c) => have.has(c));
}

/** How to ask which events are projected, and when the projector wrote them. */
export interface ProjectedProbe {
  /** `SELECT event_id[, applied] FROM … WHERE event_id = ANY($1::text[])`. */
  readonly sql: string;
  readonly source: string;
  /** True when `applied` (ms since the epoch, the projector's timestamp) is selected. */
  readonly hasAppliedAt: boolean;
}

/**
 * `applied_events(event_id, applied_at)` of the read schema (the projector's de-duplication rows,
 * written in the transaction that applies the event), else `audit_events(event_id)` (every event
 * lands there), else an error.
 */
export async function projectedProbe(pg: Pg, schema: string): Promise<ProjectedProbe> {
  if (await hasColumns(pg, schema, 'applied_events', ['event_id', 'applied_at'])) {
    return {
      sql: `SELECT event_id, extract(epoch FROM applied_at) * 1000 AS applied FROM "${schema}".applied_events WHERE event_id = ANY($1::text[])`,
      source: `${schema}.applied_events (applied_at)`,
      hasAppliedAt: true,
    };
  }
  if (await hasColumns(pg, schema, 'audit_events', ['event_id'])) {
    return { sql: `SELECT event_id FROM "${schema}".audit_events WHERE event_id = ANY($1::text[])`, source: `${schema}.audit_events`, hasAppliedAt: false };
  }
  throw new Error(`no way to see projected events in schema ${schema}: neither applied_events(event_id, applied_at) nor audit_events(event_id)`);
}

/**
 * When the relay marked each event published (`outbox.published_at`, ms since the epoch), by
 * event id, joined through `events(event_id, global_position)`; an empty map (and the reason) when
 * those columns are not there.
 */
export async function publishedAt(pg: Pg, eventIds: string[]): Promise<{ at: Map<string, number>; note?: string }> {
  if (eventIds.length === 0) return { at: new Map() };
  if (!(await hasColumns(pg, 'public', 'outbox', ['global_position', 'published_at'])) || !(await hasColumns(pg, 'public', 'events', ['event_id', 'global_position']))) {
    return { at: new Map(), note: 'outbox.published_at or events.global_position not found: relay stage not measured' };
  }
  // the event id's own type (uuid today), so the lookup uses its index
  const idType = (await pg.query(`SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'public.events'::regclass AND attname = 'event_id'`)).rows[0]?.t ?? 'text';
  const { rows } = await pg.query(
    `SELECT e.event_id::text AS event_id, extract(epoch FROM o.published_at) * 1000 AS p FROM events e JOIN outbox o ON o.global_position = e.global_position
      WHERE e.event_id = ANY($1::${idType}[]) AND o.published_at IS NOT NULL`,
    [eventIds],
  );
  return { at: new Map(rows.map((r: { event_id: string; p: string }) => [r.event_id, Number(r.p)])) };
}
