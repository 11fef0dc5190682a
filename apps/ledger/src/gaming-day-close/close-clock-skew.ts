import { clockSkewMs, DEVICE_CLOCK_ROLES, type TableClockSkew } from '@ledger/events';
import { gamingDayEnd, type GamingDayConfig } from '@ledger/projections';
import { rows as sqlRows, type Queryable } from '../kernel/sql';

/** What {@link tableClockSkews} reads: a day, its tables, a position, the ledger's scope. */
export interface ClockSkewScope {
  /** `YYYY-MM-DD`. */
  readonly day: string;
  readonly tableIds: readonly string[];
  /** Events at or below it only. */
  readonly position: bigint;
  readonly dayRule: GamingDayConfig;
  /** This ledger's events topic where several ledgers share the database (the test suites), else null. */
  readonly topic: string | null;
}

/** The instants gaming day `day` starts (inclusive) and ends (exclusive), ISO-8601 UTC. */
export function gamingDayWindow(day: string, rule: GamingDayConfig): { from: string; to: string } {
  const [y, m, d] = day.split('-').map(Number);
  const previous = new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
  return { from: gamingDayEnd(previous, rule), to: gamingDayEnd(day, rule) };
}

/** The SQL condition (on `events e`) that keeps this ledger's events where several share the database; `$n` is the topic. */
export function ownEvents(topic: string | null, n: number): string {
  return topic === null ? '' : `AND EXISTS (SELECT 1 FROM outbox o WHERE o.global_position = e.global_position AND o.topic = $${n})`;
}

interface SkewRow {
  table_id: string;
  device_events: string;
  actor_id: string | null;
  occurred_at: string | null;
  recorded_at: string | null;
  global_position: string | null;
  event_id: string | null;
}

/**
 * The largest device clock skew of gaming day `s.day` per table of `s.tableIds` (docs/reports.md §2,
 * docs/architecture.md §9): over the events of the table recorded in the day, at or below
 * `s.position`, whose actor is a table device or betting platform, the one with the largest
 * |occurredAt − recordedAt| (the first in global order among equals), and how many there are. Read
 * from the events themselves (hash-chained; the close verifies the chains of their streams), so the
 * same position always gives the same figures.
 * @returns one entry per table, sorted by table id (`largest` null for a table no device reported at)
 */
export async function tableClockSkews(q: Queryable, s: ClockSkewScope): Promise<TableClockSkew[]> {
  const tables = [...new Set(s.tableIds)].sort();
  const { from, to } = gamingDayWindow(s.day, s.dayRule);
  const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const found = await sqlRows<SkewRow>(
    q,
    `WITH day AS (
       SELECT e.table_id, e.actor_id, e.occurred_at, e.recorded_at, e.global_position, e.event_id
         FROM events e
        WHERE e.table_id = ANY($1::text[]) AND e.actor_role = ANY($2::text[]) AND e.recorded_at >= $3::timestamptz AND e.recorded_at < $4::timestamptz
          AND e.global_position <= $5::bigint ${ownEvents(s.topic, 6)}
     ), largest AS (
       SELECT DISTINCT ON (table_id) table_id, actor_id, occurred_at, recorded_at, global_position, event_id
         FROM day ORDER BY table_id, abs(extract(epoch FROM occurred_at - recorded_at)) DESC, global_position
     )
     SELECT t.table_id, (SELECT count(*) FROM day d WHERE d.table_id = t.table_id)::text AS device_events, l.actor_id,
            ${iso('l.occurred_at')} AS occurred_at, ${iso('l.recorded_at')} AS recorded_at, l.global_position::text AS global_position, l.event_id::text AS event_id
       FROM unnest($1::text[]) AS t(table_id) LEFT JOIN largest l ON l.table_id = t.table_id ORDER BY t.table_id`,
    [tables, DEVICE_CLOCK_ROLES, from, to, s.position.toString(), ...(s.topic === null ? [] : [s.topic])],
  );
  return found.map((r) => ({
    tableId: r.table_id,
    deviceEvents: Number(r.device_events),
    largest: r.event_id === null ? null : { deviceId: r.actor_id!, skewMs: clockSkewMs(r.occurred_at!, r.recorded_at!), globalPosition: r.global_position!, eventId: r.event_id },
  }));
}

/**
 * The shoe streams holding the events {@link tableClockSkews} reads (those of a device at the tables,
 * recorded in the day, at or below the position), sorted: the close verifies their hash chains.
 */
export async function clockSkewStreams(q: Queryable, s: ClockSkewScope): Promise<string[]> {
  const { from, to } = gamingDayWindow(s.day, s.dayRule);
  const found = await sqlRows<{ stream_id: string }>(
    q,
    `SELECT DISTINCT e.stream_id FROM events e
      WHERE e.table_id = ANY($1::text[]) AND e.actor_role = ANY($2::text[]) AND e.recorded_at >= $3::timestamptz AND e.recorded_at < $4::timestamptz
        AND e.global_position <= $5::bigint ${ownEvents(s.topic, 6)} ORDER BY e.stream_id`,
    [[...s.tableIds], DEVICE_CLOCK_ROLES, from, to, s.position.toString(), ...(s.topic === null ? [] : [s.topic])],
  );
  return found.map((r) => r.stream_id);
}
