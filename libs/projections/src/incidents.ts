import type { DataSource } from 'typeorm';
import type { ProjectionErrorCode } from './errors';
import { assertSchemaName, DEFAULT_READ_SCHEMA, qualified } from './schema-name';

/**
 * Projection incidents (docs/guarantees.md §6, docs/architecture.md §7): a partition the projector
 * cannot go on with is HALTED and the halt is a row of `<schema>.projection_incidents`, not a log
 * line. An open incident (no `resolved_at`) keeps its partition halted on every projector of its
 * group (the other partitions go on, the process does not exit); `resolveIncidents` (the command
 * `npm run -s projections:resume`) closes it and, for a lost topic, moves the checkpoint to the
 * topic as it is now; the running projector sees it within `PROJECTOR_INCIDENT_POLL_MS` and
 * retries the partition from its checkpoint. A retry that fails again opens a new incident.
 */

/** Codes that mean the topic under the checkpoint is not the one it was taken on (docs/guarantees.md §6). */
export const TOPIC_LOSS_CODES = ['PROJECTION.TOPIC_RECREATED', 'PROJECTION.OFFSET_REGRESSED', 'PROJECTION.LOG_TRUNCATED'] as const satisfies readonly ProjectionErrorCode[];

/** One row of `projection_incidents`, camelCase; offsets and positions as decimal strings, times ISO-8601. */
export interface ProjectionIncident {
  readonly id: string;
  readonly consumerGroup: string;
  readonly topic: string;
  readonly partition: number;
  /** A code of the error table (`PROJECTION.*`). */
  readonly code: string;
  readonly message: string;
  /** The projection that refused the event, when one did. */
  readonly projection: string | null;
  /** Kafka offset of the record the partition stopped at (null for a check of the topic itself). */
  readonly kafkaOffset: string | null;
  readonly eventId: string | null;
  readonly globalPosition: string | null;
  /** The partition's checkpoint (next offset) when it halted. */
  readonly checkpointOffset: string | null;
  /** The topic id seen when it halted. */
  readonly topicId: string | null;
  readonly details: Record<string, unknown>;
  readonly haltedAt: string;
  readonly resolvedAt: string | null;
  readonly resolvedBy: string | null;
  readonly resolution: string | null;
}

/** What {@link recordIncident} stores. */
export interface NewIncident {
  readonly consumerGroup: string;
  readonly topic: string;
  readonly partition: number;
  readonly code: string;
  readonly message: string;
  readonly projection?: string | null;
  readonly kafkaOffset?: string | bigint | null;
  readonly eventId?: string | null;
  readonly globalPosition?: string | bigint | null;
  readonly checkpointOffset?: string | bigint | null;
  readonly topicId?: string | null;
  readonly details?: Record<string, unknown>;
}

const COLUMNS = `id::text AS id, consumer_group, topic, partition, code, message, projection, kafka_offset::text AS kafka_offset, event_id,
  global_position::text AS global_position, checkpoint_offset::text AS checkpoint_offset, topic_id, details, halted_at, resolved_at, resolved_by, resolution`;

function toIncident(r: Record<string, any>): ProjectionIncident {
  return {
    id: r.id,
    consumerGroup: r.consumer_group,
    topic: r.topic,
    partition: r.partition,
    code: r.code,
    message: r.message,
    projection: r.projection,
    kafkaOffset: r.kafka_offset,
    eventId: r.event_id,
    globalPosition: r.global_position,
    checkpointOffset: r.checkpoint_offset,
    topicId: r.topic_id,
    details: r.details ?? {},
    haltedAt: new Date(r.halted_at).toISOString(),
    resolvedAt: r.resolved_at ? new Date(r.resolved_at).toISOString() : null,
    resolvedBy: r.resolved_by,
    resolution: r.resolution,
  };
}

const text = (s: string, max: number) => {
  const clean = s.replace(/\u0000/g, '\ufffd');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
};
const decimal = (v: string | bigint | null | undefined) => (v === null || v === undefined ? null : /^\d+$/.test(String(v)) ? String(v) : null);

/**
 * Opens an incident for a partition, unless one is open already (then that one is returned).
 * @returns the open incident and whether this call created it
 */
export async function recordIncident(ds: DataSource, schema: string, i: NewIncident): Promise<{ incident: ProjectionIncident; created: boolean }> {
  const t = qualified(assertSchemaName(schema), 'projection_incidents');
  const inserted: Record<string, any>[] = await ds.query(
    `INSERT INTO ${t} (consumer_group, topic, partition, code, message, projection, kafka_offset, event_id, global_position, checkpoint_offset, topic_id, details)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12::jsonb)
     ON CONFLICT (consumer_group, topic, partition) WHERE resolved_at IS NULL DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      i.consumerGroup,
      i.topic,
      i.partition,
      i.code,
      text(i.message, 2000),
      i.projection ?? null,
      decimal(i.kafkaOffset),
      i.eventId ? text(i.eventId, 200) : null,
      decimal(i.globalPosition),
      decimal(i.checkpointOffset),
      i.topicId ?? null,
      JSON.stringify(i.details ?? {}, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
    ],
  );
  if (inserted.length > 0) return { incident: toIncident(inserted[0]), created: true };
  const [open] = await openIncidents(ds, schema, { consumerGroup: i.consumerGroup, topic: i.topic, partition: i.partition });
  return { incident: open, created: false };
}

/** Filter of the incident queries; every field optional. */
export interface IncidentFilter {
  readonly consumerGroup?: string;
  readonly topic?: string;
  readonly partition?: number;
}

/** The open incidents, oldest first. */
export async function openIncidents(ds: DataSource, schema: string = DEFAULT_READ_SCHEMA, f: IncidentFilter = {}): Promise<ProjectionIncident[]> {
  const rows: Record<string, any>[] = await ds.query(
    `SELECT ${COLUMNS} FROM ${qualified(assertSchemaName(schema), 'projection_incidents')}
      WHERE resolved_at IS NULL AND ($1::text IS NULL OR consumer_group = $1) AND ($2::text IS NULL OR topic = $2) AND ($3::int IS NULL OR partition = $3)
      ORDER BY id`,
    [f.consumerGroup ?? null, f.topic ?? null, f.partition ?? null],
  );
  return rows.map(toIncident);
}

/** Number of partitions with an open incident (the gauge `ledger_projection_halted_partitions`). */
export async function haltedPartitionCount(ds: DataSource, schema: string = DEFAULT_READ_SCHEMA): Promise<number> {
  const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM ${qualified(assertSchemaName(schema), 'projection_incidents')} WHERE resolved_at IS NULL`);
  return n;
}

/** Options of {@link resolveIncidents}. */
export interface ResolveOptions extends IncidentFilter {
  readonly consumerGroup: string;
  readonly topic: string;
  /** Who resolves (an operator's name), kept in `resolved_by`. */
  readonly by: string;
  /** Why, kept in `resolution`. */
  readonly resolution: string;
  /**
   * After a lost topic (deleted and re-created, or its offsets went backwards) and its republish:
   * the topic as it is now. For each resolved partition the checkpoint moves to `offsets` (its
   * log start offset: the whole new topic is read again; events already applied are skipped by
   * event id, docs/guarantees.md §6) and records `topicId`. Omitted: the checkpoint is not touched
   * and the partition is retried where it stopped (after a code fix).
   */
  readonly resetTo?: { readonly topicId: string | null; readonly offsets: ReadonlyMap<number, bigint> };
}

/**
 * Resolves the open incidents matching the filter, in one transaction (and moves their checkpoints
 * when `resetTo` is given).
 * @returns the incidents resolved (empty when none was open)
 * @throws Error when `resetTo` lacks the offset of a partition to resolve
 */
export async function resolveIncidents(ds: DataSource, schema: string, o: ResolveOptions): Promise<ProjectionIncident[]> {
  const s = assertSchemaName(schema);
  const qr = ds.createQueryRunner();
  await qr.connect();
  try {
    await qr.startTransaction();
    const open: Record<string, any>[] = await qr.query(
      `SELECT ${COLUMNS} FROM ${qualified(s, 'projection_incidents')}
        WHERE resolved_at IS NULL AND consumer_group = $1 AND topic = $2 AND ($3::int IS NULL OR partition = $3) ORDER BY id FOR UPDATE`,
      [o.consumerGroup, o.topic, o.partition ?? null],
    );
    const resolved: ProjectionIncident[] = [];
    for (const row of open) {
      const incident = toIncident(row);
      if (o.resetTo) {
        const offset = o.resetTo.offsets.get(incident.partition);
        if (offset === undefined) throw new Error(`no offset to reset partition ${incident.partition} to`);
        await qr.query(
          `INSERT INTO ${qualified(s, 'checkpoints')} (consumer_group, topic, partition, next_offset, topic_id) VALUES ($1,$2,$3,$4,$5)
           ON CONFLICT (consumer_group, topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, topic_id = EXCLUDED.topic_id, updated_at = now()`,
          [o.consumerGroup, o.topic, incident.partition, offset.toString(), o.resetTo.topicId],
        );
      }
      const note = o.resetTo ? `${o.resolution} (checkpoint reset to offset ${o.resetTo.offsets.get(incident.partition)} of topic id ${o.resetTo.topicId})` : o.resolution;
      // TypeORM answers an UPDATE … RETURNING as [rows, affected]
      const answer = await qr.query(`UPDATE ${qualified(s, 'projection_incidents')} SET resolved_at = now(), resolved_by = $2, resolution = $3 WHERE id = $1 RETURNING ${COLUMNS}`, [incident.id, text(o.by, 200), text(note, 2000)]);
      const rows = (Array.isArray(answer[0]) ? answer[0] : answer) as Record<string, any>[];
      resolved.push(toIncident(rows[0]));
    }
    await qr.commitTransaction();
    return resolved;
  } catch (e) {
    if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
    throw e;
  } finally {
    await qr.release();
  }
}

/** One partition in {@link ProjectionStatus}. */
export interface PartitionStatus {
  readonly consumerGroup: string;
  readonly topic: string;
  readonly partition: number;
  /** `halted` while an incident is open, else `running` (the API cannot tell whether a projector process is up: see `checkpoint.updatedAt`). */
  readonly status: 'running' | 'halted';
  /** The stored checkpoint: next Kafka offset to apply, the global position of the last event applied, the topic id, the last commit. Null before the first commit. */
  readonly checkpoint: { readonly nextOffset: string; readonly lastGlobalPosition: string | null; readonly topicId: string | null; readonly updatedAt: string } | null;
  /** The open incident of the partition. */
  readonly incident: ProjectionIncident | null;
}

/** What `GET /projections/status` answers. */
export interface ProjectionStatus {
  /** `halted` when any partition is. */
  readonly status: 'running' | 'halted';
  readonly partitions: readonly PartitionStatus[];
  /** Every open incident, oldest first. */
  readonly openIncidents: readonly ProjectionIncident[];
  /** The last incidents resolved, newest first (at most 20). */
  readonly recentlyResolved: readonly ProjectionIncident[];
}

/**
 * The state of every partition of every group the schema has checkpoints or incidents for.
 * Reads two small tables: cheap enough for every scrape and health check.
 */
export async function projectionStatus(ds: DataSource, schema: string = DEFAULT_READ_SCHEMA): Promise<ProjectionStatus> {
  const s = assertSchemaName(schema);
  const checkpoints: Record<string, any>[] = await ds.query(
    `SELECT consumer_group, topic, partition, next_offset::text AS next_offset, last_global_position::text AS last_global_position, topic_id, updated_at
       FROM ${qualified(s, 'checkpoints')} ORDER BY consumer_group, topic, partition`,
  );
  const open = await openIncidents(ds, s);
  const resolved: Record<string, any>[] = await ds.query(`SELECT ${COLUMNS} FROM ${qualified(s, 'projection_incidents')} WHERE resolved_at IS NOT NULL ORDER BY resolved_at DESC, id DESC LIMIT 20`);
  const key = (g: string, t: string, p: number) => JSON.stringify([g, t, p]);
  const byKey = new Map<string, PartitionStatus>();
  for (const c of checkpoints) {
    byKey.set(key(c.consumer_group, c.topic, c.partition), {
      consumerGroup: c.consumer_group,
      topic: c.topic,
      partition: c.partition,
      status: 'running',
      checkpoint: { nextOffset: c.next_offset, lastGlobalPosition: c.last_global_position, topicId: c.topic_id, updatedAt: new Date(c.updated_at).toISOString() },
      incident: null,
    });
  }
  for (const i of open) {
    const k = key(i.consumerGroup, i.topic, i.partition);
    const p = byKey.get(k);
    byKey.set(k, { consumerGroup: i.consumerGroup, topic: i.topic, partition: i.partition, checkpoint: p?.checkpoint ?? null, status: 'halted', incident: i });
  }
  const partitions = [...byKey.values()].sort((a, b) => a.consumerGroup.localeCompare(b.consumerGroup) || a.topic.localeCompare(b.topic) || a.partition - b.partition);
  return { status: open.length > 0 ? 'halted' : 'running', partitions, openIncidents: open, recentlyResolved: resolved.map(toIncident) };
}
