import type { LedgerEvent } from '@ledger/events';
import type { DataSource } from 'typeorm';
import { writeAnalyticsOutbox } from './analytics/analytics-outbox';
import { ProjectionError } from './errors';
import { EventRecord, parseEventRecord } from './event-record';
import { DEFAULT_GAMING_DAY, GamingDayConfig } from './gaming-day';
import { ProjectionLogger, SILENT_LOGGER } from './logger';
import { ProjectionTx, SqlClient } from './projection-tx';
import { ALL_PROJECTIONS, checkProjectionSet, Projection, ProjectionScopes, projectionScopes } from './projections';
import { assertSchemaName, DEFAULT_READ_SCHEMA, qualified } from './schema-name';

/** Options of a {@link ProjectionApplier}. */
export interface ProjectionApplierOptions {
  /** An initialised PostgreSQL DataSource. */
  readonly ds: DataSource;
  /** Target schema. @default 'read' */
  readonly schema?: string;
  /** Owner of the checkpoint rows (`checkpoints.consumer_group`). @default 'ledger-projector' */
  readonly checkpointGroup?: string;
  /** @default UTC, cut-off 6 */
  readonly gamingDay?: GamingDayConfig;
  /**
   * The projections, in any order (the result does not depend on it). Checked at construction:
   * see `checkProjectionSet`; `shoe_state` is required (stream bookkeeping). @default ALL_PROJECTIONS
   */
  readonly projections?: readonly Projection[];
  readonly logger?: ProjectionLogger;
  /**
   * Side effects: write the analytics records of every applied event to `analytics_outbox` in the
   * same transaction (published by `AnalyticsPublisher`). On for the live
   * projector; `rebuildProjections` turns it off so a replay emits nothing. Needs the
   * `shoe_state` and `hand_outcomes` projections. @default true
   */
  readonly analytics?: boolean;
  /**
   * FAULT INJECTION for tests only: sleep this long inside each transaction, after every row is
   * written and before COMMIT, so a test can kill the process mid-transaction. @default 0
   */
  readonly faultDelayInTxMs?: number;
}

/** What one {@link ProjectionApplier.applyBatch} did. */
export interface ApplyBatchResult {
  /** Events applied to the projections. */
  readonly applied: number;
  /** Records at an offset below the stored checkpoint: already applied (a redelivery). */
  readonly skippedBelowCheckpoint: number;
  /** Records whose eventId was already applied (the relay published it again at a new offset). */
  readonly skippedDuplicates: number;
  /** The checkpoint found (locked) at the start of the transaction. */
  readonly checkpointBefore: bigint;
  /** The checkpoint stored at commit (unchanged when everything was skipped). */
  readonly nextOffset: bigint;
  /**
   * True when `onGap: 'report'` was asked and the first record lies beyond the checkpoint: nothing
   * was written; the caller should seek back to `checkpointBefore`.
   */
  readonly gap: boolean;
  /** SQL statements sent. */
  readonly statements: number;
}

/** Default owner of the checkpoints (and default Kafka group of the live projector). */
export const DEFAULT_PROJECTOR_GROUP = 'ledger-projector';

const MAX_CACHED = 200_000;

/**
 * Applies Kafka records to every projection with exactly-once effect (docs/guarantees.md §6):
 * per call, ONE PostgreSQL transaction that
 *
 * 1. locks the checkpoint row `(group, topic, partition)` (`SELECT … FOR UPDATE`), so two
 *    consumers that briefly both hold a partition during a rebalance serialise on it;
 * 2. skips records at an offset below the checkpoint (a redelivery after a crash or rebalance);
 * 3. skips events whose eventId is in `applied_events` or earlier in the same call (a duplicate
 *    the relay published at a new offset);
 * 4. checks each shoe stream's version: the next event of a stream must be exactly version + 1
 *    (`PROJECTION.STREAM_GAP` otherwise; a different event at an already applied version is
 *    `PROJECTION.INCONSISTENT_EVENT`);
 * 5. applies every projection to each event: first every projection's `prepare` (its reads of
 *    the state before the event), then every `apply`, each under its table scope, so the order of
 *    the projections does not matter (docs/architecture.md §7); then writes the event's analytics
 *    records to `analytics_outbox` (unless `analytics: false`, as in a rebuild), records the event
 *    in `applied_events`, and moves the checkpoint to the last record's offset + 1;
 * 6. commits. Any error rolls all of it back and is rethrown: nothing moved, so the same records
 *    come again.
 *
 * Not thread-safe per partition: one call at a time for a given partition (the runner ensures it;
 * the row lock makes a violation harmless anyway).
 */
export class ProjectionApplier {
  readonly schema: string;
  readonly checkpointGroup: string;
  /** Whether applied events write analytics records (see {@link ProjectionApplierOptions.analytics}). */
  readonly analytics: boolean;
  private readonly ds: DataSource;
  private readonly gamingDay: GamingDayConfig;
  private readonly projections: readonly { readonly projection: Projection; readonly scopes: ProjectionScopes }[];
  private readonly logger: ProjectionLogger;
  private readonly faultDelayInTxMs: number;
  /** Committed facts only (merged after COMMIT), by kind (`ProjectionTx.fact`). */
  private readonly facts = new Map<string, Map<string, unknown>>();
  private readonly streamVersions = new Map<string, number>();

  /** @throws ProjectionError `PROJECTION.BAD_CONFIG` when the projections do not form a consistent set (see `checkProjectionSet`) */
  constructor(options: ProjectionApplierOptions) {
    this.ds = options.ds;
    this.schema = assertSchemaName(options.schema ?? DEFAULT_READ_SCHEMA);
    this.checkpointGroup = options.checkpointGroup ?? DEFAULT_PROJECTOR_GROUP;
    this.gamingDay = options.gamingDay ?? DEFAULT_GAMING_DAY;
    this.logger = options.logger ?? SILENT_LOGGER;
    this.faultDelayInTxMs = options.faultDelayInTxMs ?? 0;
    this.analytics = options.analytics ?? true;
    const projections = options.projections ?? ALL_PROJECTIONS;
    const required: Record<string, string> = { shoe_state: 'the applier (stream versions)' };
    if (this.analytics) required.hand_outcomes = 'the analytics records';
    checkProjectionSet(projections, required);
    this.projections = projections.map((p) => ({ projection: p, scopes: projectionScopes(p) }));
  }

  /**
   * Applies records of ONE partition, in offset order, in one transaction.
   * @param options.onGap `'report'`: if the first record is beyond the stored checkpoint, write
   *   nothing and return `gap: true` (the runner then seeks back); `'apply'` (default): accept
   *   the gap (offsets without data records, e.g. transaction markers).
   * @throws ProjectionError (data errors) or a database error; the transaction is rolled back
   */
  async applyBatch(topic: string, partition: number, records: readonly EventRecord[], options: { onGap?: 'apply' | 'report' } = {}): Promise<ApplyBatchResult> {
    const qr = this.ds.createQueryRunner();
    const client = (await qr.connect()) as SqlClient;
    const cp = qualified(this.schema, 'checkpoints');
    let begun = false;
    try {
      await client.query('BEGIN');
      begun = true;
      await client.query(`INSERT INTO ${cp} (consumer_group, topic, partition, next_offset) VALUES ($1,$2,$3,0) ON CONFLICT DO NOTHING`, [
        this.checkpointGroup,
        topic,
        partition,
      ]);
      const locked = await client.query(`SELECT next_offset::text AS next_offset FROM ${cp} WHERE consumer_group = $1 AND topic = $2 AND partition = $3 FOR UPDATE`, [
        this.checkpointGroup,
        topic,
        partition,
      ]);
      const checkpointBefore = BigInt(locked.rows[0].next_offset);
      const fresh = records.filter((r) => BigInt(r.offset) >= checkpointBefore);
      const skippedBelowCheckpoint = records.length - fresh.length;
      if (fresh.length === 0) {
        await client.query('ROLLBACK');
        return { applied: 0, skippedBelowCheckpoint, skippedDuplicates: 0, checkpointBefore, nextOffset: checkpointBefore, gap: false, statements: 3 };
      }
      if (options.onGap === 'report' && BigInt(fresh[0].offset) > checkpointBefore) {
        await client.query('ROLLBACK');
        return { applied: 0, skippedBelowCheckpoint, skippedDuplicates: 0, checkpointBefore, nextOffset: checkpointBefore, gap: true, statements: 3 };
      }

      const events = fresh.map((r) => ({ record: r, event: parseEventRecord(r) }));
      const known = await client.query(`SELECT event_id FROM ${qualified(this.schema, 'applied_events')} WHERE event_id = ANY($1::text[])`, [
        events.map((x) => x.event.eventId),
      ]);
      const seen = new Set<string>(known.rows.map((r: { event_id: string }) => r.event_id));

      const tx = new ProjectionTx(client, this.schema, this.gamingDay, { facts: this.facts });
      const versions = new Map<string, { version: number; eventId: string; position: string }>();
      let applied = 0;
      let skippedDuplicates = 0;
      for (const { record, event } of events) {
        if (seen.has(event.eventId)) {
          skippedDuplicates++;
          this.logger.debug({ eventId: event.eventId, offset: record.offset, partition }, 'duplicate event skipped');
          continue;
        }
        seen.add(event.eventId);
        await this.checkStreamVersion(tx, event, versions);
        await this.applyEvent(event, tx);
        if (this.analytics) await writeAnalyticsOutbox(event, tx);
        versions.set(event.streamId, { version: event.streamVersion, eventId: event.eventId, position: event.globalPosition });
        tx.append('applied_events', {
          event_id: event.eventId,
          global_position: event.globalPosition,
          stream_id: event.streamId,
          stream_version: event.streamVersion,
          hash: event.hash,
          topic,
          partition,
          kafka_offset: record.offset,
        });
        applied++;
      }
      // stream bookkeeping on the shoe rows: once per stream per transaction
      for (const [streamId, v] of versions) {
        await tx.query(`UPDATE ${tx.t('shoe_state')} SET stream_version = $2, last_event_id = $3, last_global_position = $4 WHERE stream_id = $1`, [
          streamId,
          v.version,
          v.eventId,
          v.position,
        ]);
      }
      await tx.flush();
      const nextOffset = BigInt(fresh[fresh.length - 1].offset) + 1n;
      await client.query(`UPDATE ${cp} SET next_offset = $4, updated_at = now() WHERE consumer_group = $1 AND topic = $2 AND partition = $3`, [
        this.checkpointGroup,
        topic,
        partition,
        nextOffset.toString(),
      ]);
      if (this.faultDelayInTxMs > 0) await new Promise((resolve) => setTimeout(resolve, this.faultDelayInTxMs));
      await client.query('COMMIT');
      begun = false;
      this.remember(tx, versions);
      return { applied, skippedBelowCheckpoint, skippedDuplicates, checkpointBefore, nextOffset, gap: false, statements: tx.statements + 6 };
    } catch (err) {
      if (begun) await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await qr.release();
    }
  }

  /**
   * Every projection's `prepare`, then every projection's `apply`, each under its table scope: what
   * a projection reads of another's tables is the state after the previous event, whatever the order.
   */
  private async applyEvent(event: LedgerEvent, tx: ProjectionTx): Promise<void> {
    const prepared: unknown[] = [];
    for (const { projection: p, scopes } of this.projections) prepared.push(p.prepare ? await tx.scoped(scopes.prepare, () => p.prepare!(event, tx)) : undefined);
    for (let i = 0; i < this.projections.length; i++) {
      const { projection: p, scopes } = this.projections[i];
      await tx.scoped(scopes.apply, () => p.apply(event, tx, prepared[i]));
    }
  }

  /** Reads the stored checkpoints of a topic for this applier's group: partition → next offset. */
  async checkpoints(topic: string): Promise<Map<number, bigint>> {
    const rows: { partition: number; next_offset: string }[] = await this.ds.query(
      `SELECT partition, next_offset::text AS next_offset FROM ${qualified(this.schema, 'checkpoints')} WHERE consumer_group = $1 AND topic = $2`,
      [this.checkpointGroup, topic],
    );
    return new Map(rows.map((r) => [r.partition, BigInt(r.next_offset)]));
  }

  private async checkStreamVersion(tx: ProjectionTx, e: LedgerEvent, inTx: Map<string, { version: number }>): Promise<void> {
    let applied = inTx.get(e.streamId)?.version;
    if (applied === undefined) {
      const cached = this.streamVersions.get(e.streamId);
      if (cached !== undefined && e.streamVersion === cached + 1) return;
      // not cached, or the cache disagrees (another consumer may have moved the stream on during a
      // rebalance): the shoe row, read under the checkpoint lock, is the truth
      const rows = await tx.query<{ stream_version: number }>(`SELECT stream_version FROM ${tx.t('shoe_state')} WHERE stream_id = $1`, [e.streamId]);
      applied = rows[0]?.stream_version ?? 0;
    }
    if (e.streamVersion === applied + 1) return;
    if (e.streamVersion <= applied) {
      throw new ProjectionError(
        'PROJECTION.INCONSISTENT_EVENT',
        `event ${e.eventId} claims version ${e.streamVersion} of ${e.streamId}, already applied from another event`,
        { eventId: e.eventId, streamId: e.streamId, streamVersion: e.streamVersion, applied },
      );
    }
    throw new ProjectionError('PROJECTION.STREAM_GAP', `${e.streamId}: version ${e.streamVersion} follows ${applied}; ${e.streamVersion - applied - 1} event(s) missing`, {
      eventId: e.eventId,
      streamId: e.streamId,
      streamVersion: e.streamVersion,
      applied,
    });
  }

  /** Forgets cached stream versions (after a rebalance; the database is read again when needed). */
  forgetStreamVersions(): void {
    this.streamVersions.clear();
  }

  private remember(tx: ProjectionTx, versions: Map<string, { version: number }>): void {
    if (this.streamVersions.size > MAX_CACHED) this.streamVersions.clear();
    for (const [kind, learned] of tx.learnedFacts()) {
      let committed = this.facts.get(kind);
      if (!committed || committed.size > MAX_CACHED) this.facts.set(kind, (committed = new Map()));
      for (const [key, value] of learned) committed.set(key, value);
    }
    for (const [id, v] of versions) this.streamVersions.set(id, v.version);
  }
}
