import type { LedgerEvent } from '@ledger/events';
import type { DataSource } from 'typeorm';
import { changeNoticePayload, PROJECTION_CHANGES_CHANNEL, type TableChange } from './change-notice';
import { DEV_RECORD_SIGNING_KEY } from '@ledger/event-store';
import type { EventRecord } from './event-record';
import { DEFAULT_GAMING_DAY, GamingDayConfig } from './gaming-day';
import { ProjectionLogger, SILENT_LOGGER } from './logger';
import { ProjectionError } from './errors';
import { jsonRows, ProjectionTx, SqlClient } from './projection-tx';
import type { AppliedEventEffect, Projection } from './projection';
import { checkProjectionSet, type ProjectionScopes, projectionScopes } from './projection-set';
import { writeQuarantine } from './quarantine';
import { AppliedEventIndex } from './applied-index';
import { checkLink, checkRecord, type QuarantineReason, type Refusal, type StreamHead } from './record-verification';
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
   * The projections, in any order (the result does not depend on it): the read model's
   * (`ALL_PROJECTIONS` of `@ledger/read-model`). Checked at construction: see `checkProjectionSet`;
   * `shoe_state` is required (stream bookkeeping).
   */
  readonly projections: readonly Projection[];
  readonly logger?: ProjectionLogger;
  /**
   * Side effects run for every applied event after the projections, in the same transaction (the
   * live projector passes the read model's analytics outbox, `ANALYTICS_OUTBOX_EFFECT` of
   * `@ledger/read-model`); `rebuildProjections` passes none so a replay emits nothing. The tables
   * each reads are checked like a projection's `reads`. @default none
   */
  readonly effects?: readonly AppliedEventEffect[];
  /**
   * The key records must be signed with (header `ledger-sig`, docs/guarantees.md §8): the projector
   * process passes its validated `RECORD_SIGNING_KEY`. @default the public development key of
   * `@ledger/event-store` (tests, tools)
   */
  readonly recordSigningKey?: string;
  /**
   * Whether a quarantined record's copy to the dead-letter topic is still to be sent (the runner's
   * `DeadLetterPublisher` sends it). On for the live projector; `rebuildProjections` turns it off:
   * the live projector sent the copy when it first saw the record. @default true
   */
  readonly deadLetter?: boolean;
  /**
   * How a duplicate (an eventId already applied) is recognised: `'table'` looks the batch's ids up
   * in `applied_events` (the live projector); `'memory'` remembers the positions, ids and hashes this
   * applier committed in a compact index (`AppliedEventIndex`, ~50 bytes an event) and reads the table
   * only for the rare ids it cannot clear (a reused id, a position holding another hash), which a rebuild into an empty schema loads without its key
   * and indexes them after the load (`rebuild.ts`). @default 'table'
   */
  readonly dedupe?: 'table' | 'memory';
  /**
   * False: each transaction commits without waiting for its WAL flush (`SET LOCAL
   * synchronous_commit = off`). Only for a rebuild, which starts over after a crash. @default true
   */
  readonly synchronousCommit?: boolean;
  /**
   * FAULT INJECTION for tests only: sleep this long inside each transaction, after every row is
   * written and before COMMIT, so a test can kill the process mid-transaction. @default 0
   */
  readonly faultDelayInTxMs?: number;
  /**
   * Side effect: in each transaction that applied events, `pg_notify('ledger_projections', …)` with
   * the tables it changed (change-notice.ts), delivered by PostgreSQL on COMMIT. On for the live
   * projector; `rebuildProjections` turns it off and notifies `all` once at its end. @default true
   */
  readonly notify?: boolean;
  /**
   * A scoped rebuild's filter (`scoped-rebuild.ts`): a record for which it returns false is passed
   * over (not verified, not applied, not quarantined) and the checkpoint moves past it like past
   * any other. Only for a replay into a scratch schema. @default every record
   */
  readonly accept?: (record: EventRecord) => boolean;
}

/** What one {@link ProjectionApplier.applyBatch} did. */
export interface ApplyBatchResult {
  /** Events applied to the projections. */
  readonly applied: number;
  /** Records at an offset below the stored checkpoint: already applied (a redelivery). */
  readonly skippedBelowCheckpoint: number;
  /** Records whose eventId was already applied with the same hash (the relay published it again at a new offset). */
  readonly skippedDuplicates: number;
  /** Records refused and kept in `quarantine` (never applied; see `record-verification.ts`). */
  readonly quarantined: number;
  /** Records passed over by {@link ProjectionApplierOptions.accept} (absent without it). */
  readonly skippedOutOfScope?: number;
  /** The quarantined records of the transaction by reason (committed with it); absent when none. */
  readonly quarantinedByReason?: ReadonlyMap<QuarantineReason, number>;
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
 * 3. verifies each record (`record-verification.ts`, docs/guarantees.md §8): its `ledger-sig`
 *    signature, its envelope, its hash recomputed over its canonical bytes; a record that fails is
 *    written to `quarantine` with the reason (never applied; `writeQuarantine`) and the batch goes on;
 * 4. skips events whose eventId is in `applied_events` (or earlier in the same call) with the same
 *    hash (a duplicate the relay published at a new offset); the same id with another hash is
 *    quarantined (`EVENT_ID_CONFLICT`); then checks each event's link to its stream's head
 *    (`stream_heads`, locked): version = head + 1, `prevHash` = the head's hash; otherwise it is
 *    quarantined (`VERSION_CONFLICT`, `VERSION_GAP`, `PREV_HASH_MISMATCH`, or
 *    `PREDECESSOR_QUARANTINED` when an authentic record in the gap is in quarantine: the stream
 *    then applies nothing until a record links to its head, while other streams go on);
 * 5. applies every projection to each event: first every projection's `prepare` (its reads of
 *    the state before the event), then every `apply`, each under its table scope, so the order of
 *    the projections does not matter (docs/architecture.md §7); then runs the side effects (`effects`:
 *    the live projector's analytics outbox; none in a rebuild), records the event
 *    in `applied_events`, moves its stream's head, and moves the checkpoint to the last record's
 *    offset + 1 (past quarantined records too), and notifies the tables it changed
 *    (`pg_notify('ledger_projections', …)`, change-notice.ts; delivered on COMMIT);
 * 6. commits. Any error rolls all of it back and is rethrown: nothing moved, so the same records
 *    come again.
 *
 * Not thread-safe per partition: one call at a time for a given partition (the runner ensures it;
 * the row lock makes a violation harmless anyway).
 */
export class ProjectionApplier {
  readonly schema: string;
  readonly checkpointGroup: string;
  /** What applied events do besides the projections (see {@link ProjectionApplierOptions.effects}). */
  readonly effects: readonly AppliedEventEffect[];
  /** Whether each transaction notifies the tables it changed (see {@link ProjectionApplierOptions.notify}). */
  readonly notify: boolean;
  private readonly ds: DataSource;
  private readonly gamingDay: GamingDayConfig;
  private readonly projections: readonly { readonly projection: Projection; readonly scopes: ProjectionScopes }[];
  private readonly logger: ProjectionLogger;
  private readonly faultDelayInTxMs: number;
  /** Committed facts only (merged after COMMIT), by kind (`ProjectionTx.fact`). */
  private readonly facts = new Map<string, Map<string, unknown>>();
  private readonly recordSigningKey: string;
  private readonly deadLetter: boolean;
  /** `dedupe: 'memory'`: every event this applier committed, by position and id (applied-index.ts); null: `applied_events` is read. */
  private readonly appliedInMemory: AppliedEventIndex | null;
  private readonly begin: string;
  private readonly accept: ((record: EventRecord) => boolean) | null;

  /** @throws ProjectionError `PROJECTION.BAD_CONFIG` when the projections do not form a consistent set (see `checkProjectionSet`) */
  constructor(options: ProjectionApplierOptions) {
    this.ds = options.ds;
    this.schema = assertSchemaName(options.schema ?? DEFAULT_READ_SCHEMA);
    this.checkpointGroup = options.checkpointGroup ?? DEFAULT_PROJECTOR_GROUP;
    this.gamingDay = options.gamingDay ?? DEFAULT_GAMING_DAY;
    this.logger = options.logger ?? SILENT_LOGGER;
    this.faultDelayInTxMs = options.faultDelayInTxMs ?? 0;
    this.effects = options.effects ?? [];
    this.notify = options.notify ?? true;
    this.recordSigningKey = options.recordSigningKey ?? DEV_RECORD_SIGNING_KEY;
    this.deadLetter = options.deadLetter ?? true;
    this.appliedInMemory = options.dedupe === 'memory' ? new AppliedEventIndex() : null;
    this.accept = options.accept ?? null;
    this.begin = options.synchronousCommit === false ? 'BEGIN; SET LOCAL synchronous_commit TO off' : 'BEGIN';
    const projections = options.projections;
    const required: Record<string, string> = { shoe_state: 'the applier (stream bookkeeping)' };
    for (const effect of this.effects) for (const table of effect.reads) required[table] ??= effect.name;
    checkProjectionSet(projections, required);
    this.projections = projections.map((p) => ({ projection: p, scopes: projectionScopes(p) }));
  }

  /**
   * Applies records of ONE partition, in offset order, in one transaction.
   * @param options.onGap `'report'`: if the first record is beyond the stored checkpoint, write
   *   nothing and return `gap: true` (the runner then seeks back); `'apply'` (default): accept
   *   the gap (offsets without data records, e.g. transaction markers).
   * @param options.topicId the id of the topic the records were fetched from (`KafkaAdmin.fetchTopicIds`,
   *   read after the fetch): checked against the one stored with the checkpoint, recorded there when
   *   none is; omitted or null: not checked (a broker without topic ids)
   * @throws ProjectionError (a verified event the projections cannot apply, e.g. a settlement of a
   *   bet never placed: its `details` then name the record's `offset`, `eventId`, `globalPosition`
   *   and the `projection` that refused) or a database error; the transaction is rolled back. A
   *   record that fails verification is quarantined, not thrown.
   * @throws ProjectionError `PROJECTION.TOPIC_RECREATED` when `topicId` differs from the stored one
   *   (nothing is written: the records belong to another topic than the checkpoint)
   */
  async applyBatch(topic: string, partition: number, records: readonly EventRecord[], options: { onGap?: 'apply' | 'report'; topicId?: string | null } = {}): Promise<ApplyBatchResult> {
    const qr = this.ds.createQueryRunner();
    const client = (await qr.connect()) as SqlClient;
    const cp = qualified(this.schema, 'checkpoints');
    let begun = false;
    try {
      await client.query(this.begin);
      begun = true;
      await client.query(`INSERT INTO ${cp} (consumer_group, topic, partition, next_offset) VALUES ($1,$2,$3,0) ON CONFLICT DO NOTHING`, [this.checkpointGroup, topic, partition]);
      const locked = await client.query(`SELECT next_offset::text AS next_offset, topic_id FROM ${cp} WHERE consumer_group = $1 AND topic = $2 AND partition = $3 FOR UPDATE`, [this.checkpointGroup, topic, partition]);
      const checkpointBefore = BigInt(locked.rows[0].next_offset);
      let storedTopicId: string | null = locked.rows[0].topic_id;
      if (options.topicId && storedTopicId === null) {
        // a partition without a topic id of its own (it never had a record): the topic's id is the
        // one the other partitions' checkpoints were taken on (a topic id is per topic, not per partition)
        const other = await client.query(`SELECT topic_id FROM ${cp} WHERE consumer_group = $1 AND topic = $2 AND topic_id IS NOT NULL AND topic_id <> $3 LIMIT 1`, [this.checkpointGroup, topic, options.topicId]);
        if (other.rows.length > 0) storedTopicId = other.rows[0].topic_id;
      }
      if (options.topicId && storedTopicId && options.topicId !== storedTopicId) {
        throw new ProjectionError(
          'PROJECTION.TOPIC_RECREATED',
          `topic ${topic} has id ${options.topicId}, the checkpoint of partition ${partition} (offset ${checkpointBefore}) was taken on id ${storedTopicId}: the topic was deleted and re-created`,
          { topic, partition, storedTopicId, topicId: options.topicId, checkpoint: checkpointBefore.toString(), firstOffset: records[0]?.offset },
        );
      }
      const fresh = records.filter((r) => BigInt(r.offset) >= checkpointBefore);
      const skippedBelowCheckpoint = records.length - fresh.length;
      if (fresh.length === 0) {
        await client.query('ROLLBACK');
        return { applied: 0, skippedBelowCheckpoint, skippedDuplicates: 0, quarantined: 0, checkpointBefore, nextOffset: checkpointBefore, gap: false, statements: 3 };
      }
      if (options.onGap === 'report' && BigInt(fresh[0].offset) > checkpointBefore) {
        await client.query('ROLLBACK');
        return { applied: 0, skippedBelowCheckpoint, skippedDuplicates: 0, quarantined: 0, checkpointBefore, nextOffset: checkpointBefore, gap: true, statements: 3 };
      }

      const accept = this.accept;
      const inScope = accept ? fresh.filter((r) => accept(r)) : fresh;
      const skippedOutOfScope = fresh.length - inScope.length;
      const checked = inScope.map((r) => ({ record: r, check: checkRecord(r, this.recordSigningKey) }));
      const authentic = checked.flatMap((c) => (c.check.ok ? [c.check.event] : []));
      const memory = this.appliedInMemory;
      const { seen, read } = await this.appliedBefore(client, authentic);
      const committed: { position: string; eventId: string; hash: string }[] = [];
      const heads = await this.streamHeads(client, [...new Set(authentic.map((e) => e.streamId))]);

      const tx = new ProjectionTx(client, this.schema, this.gamingDay, { facts: this.facts });
      await this.preload(authentic, tx);
      const moved = new Map<string, { version: number; hash: string; eventId: string; position: string }>();
      const changed: TableChange[] = [];
      let applied = 0;
      let skippedDuplicates = 0;
      let quarantined = 0;
      const quarantinedByReason = new Map<QuarantineReason, number>();
      let lastPosition: string | null = null;
      for (const { record, check } of checked) {
        try {
          if (!check.ok) {
            await this.quarantine(tx, record, check.refusal);
            quarantined++;
            quarantinedByReason.set(check.refusal.reason, (quarantinedByReason.get(check.refusal.reason) ?? 0) + 1);
            continue;
          }
          const event = check.event;
          const refuse = async (reason: QuarantineReason, detail: string) => {
            await this.quarantine(tx, record, { reason, detail, authentic: true, eventId: event.eventId, streamId: event.streamId, streamVersion: event.streamVersion });
            quarantined++;
            quarantinedByReason.set(reason, (quarantinedByReason.get(reason) ?? 0) + 1);
          };
          const appliedHash = seen.get(event.eventId);
          if (appliedHash === event.hash) {
            skippedDuplicates++;
            this.logger.debug({ eventId: event.eventId, offset: record.offset, partition }, 'duplicate event skipped');
            continue;
          }
          if (appliedHash !== undefined) {
            await refuse('EVENT_ID_CONFLICT', `event id ${event.eventId} is applied with hash ${appliedHash}; this record carries ${event.hash}`);
            continue;
          }
          const head = heads.get(event.streamId);
          const broken = checkLink(head, event);
          if (broken) {
            const held = broken.reason === 'VERSION_GAP' && (await this.predecessorQuarantined(tx, event.streamId, head?.version ?? 0, event.streamVersion));
            await refuse(held ? 'PREDECESSOR_QUARANTINED' : broken.reason, held ? `${broken.detail}; a record of the stream in between is in quarantine` : broken.detail);
            continue;
          }
          seen.set(event.eventId, event.hash);
          if (memory) committed.push({ position: event.globalPosition, eventId: event.eventId, hash: event.hash });
          await this.applyEvent(event, tx);
          if (lastPosition === null || BigInt(event.globalPosition) > BigInt(lastPosition)) lastPosition = event.globalPosition;
          for (const effect of this.effects) await effect.apply(event, tx);
          heads.set(event.streamId, { version: event.streamVersion, hash: event.hash });
          if (this.notify) changed.push({ tableId: event.tableId, shoeId: event.streamId.startsWith('shoe-') ? event.streamId.slice(5) : event.streamId, globalPosition: event.globalPosition });
          moved.set(event.streamId, { version: event.streamVersion, hash: event.hash, eventId: event.eventId, position: event.globalPosition });
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
        } catch (err) {
          // where the partition stopped, for the incident (docs/guarantees.md §6)
          if (err instanceof ProjectionError) {
            const d = err.details as Record<string, unknown>;
            d.partition ??= partition;
            d.offset ??= record.offset;
            if (check.ok) {
              d.eventId ??= check.event.eventId;
              d.globalPosition ??= check.event.globalPosition;
              d.eventType ??= check.event.type;
            }
          }
          throw err;
        }
      }
      try {
        // stream bookkeeping on the shoe rows and the heads: one statement each per transaction
        if (moved.size > 0) {
          await tx.query(
            `UPDATE ${tx.t('shoe_state')} AS s SET stream_version = v.version, last_event_id = v.event_id, last_global_position = v.position
             FROM json_to_recordset($1::json) AS v(stream_id text, version int, event_id text, position bigint) WHERE s.stream_id = v.stream_id`,
            [jsonRows([...moved].map(([streamId, v]) => ({ stream_id: streamId, version: v.version, event_id: v.eventId, position: v.position })))],
          );
        }
        if (moved.size > 0) {
          const m = [...moved];
          await tx.query(
            `INSERT INTO ${tx.t('stream_heads')} (stream_id, version, hash, event_id, global_position)
             SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::bigint[])
             ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, hash = EXCLUDED.hash, event_id = EXCLUDED.event_id, global_position = EXCLUDED.global_position`,
            [m.map(([id]) => id), m.map(([, v]) => v.version), m.map(([, v]) => v.hash), m.map(([, v]) => v.eventId), m.map(([, v]) => v.position)],
          );
        }
        await tx.flush();
      } catch (err) {
        // a deferred write (a batch's settlements in one UPDATE) refused an event: name its record
        if (err instanceof ProjectionError) {
          const d = err.details as Record<string, unknown>;
          const hit = typeof d.eventId === 'string' ? checked.find((c) => c.check.ok && c.check.event.eventId === d.eventId) : undefined;
          d.partition ??= partition;
          if (hit?.check.ok) {
            d.offset ??= hit.record.offset;
            d.globalPosition ??= hit.check.event.globalPosition;
            d.eventType ??= hit.check.event.type;
          }
        }
        throw err;
      }
      const nextOffset = BigInt(fresh[fresh.length - 1].offset) + 1n;
      await client.query(
        `UPDATE ${cp} SET next_offset = $4, updated_at = now(), topic_id = COALESCE(topic_id, $5), last_global_position = GREATEST(last_global_position, $6::bigint)
          WHERE consumer_group = $1 AND topic = $2 AND partition = $3`,
        [this.checkpointGroup, topic, partition, nextOffset.toString(), options.topicId ?? null, lastPosition],
      );
      // in the transaction: PostgreSQL delivers it on COMMIT, so no listener hears of rows it cannot read yet
      if (changed.length > 0) await client.query(`SELECT pg_notify($1, $2)`, [PROJECTION_CHANGES_CHANNEL, changeNoticePayload(this.schema, changed)]);
      if (this.faultDelayInTxMs > 0) await new Promise((resolve) => setTimeout(resolve, this.faultDelayInTxMs));
      await client.query('COMMIT');
      begun = false;
      this.remember(tx);
      if (memory) for (const c of committed) memory.add(c.position, c.eventId, c.hash);
      return {
        applied,
        skippedBelowCheckpoint,
        skippedDuplicates,
        quarantined,
        ...(accept ? { skippedOutOfScope } : {}),
        quarantinedByReason,
        checkpointBefore,
        nextOffset,
        gap: false,
        statements: tx.statements + (read ? 7 : 6) + (changed.length > 0 ? 1 : 0),
      };
    } catch (err) {
      if (begun) await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await qr.release();
    }
  }

  /** Every projection's {@link Projection.preload} of the batch, under its prepare scope (reads only). */
  private async preload(events: readonly LedgerEvent[], tx: ProjectionTx): Promise<void> {
    if (events.length === 0) return;
    for (const { projection: p, scopes } of this.projections) if (p.preload) await tx.scoped(scopes.prepare, () => p.preload!(events, tx));
  }

  /**
   * Every projection's `prepare`, then every projection's `apply`, each under its table scope: what
   * a projection reads of another's tables is the state after the previous event, whatever the order.
   */
  private async applyEvent(event: LedgerEvent, tx: ProjectionTx): Promise<void> {
    const prepared: unknown[] = [];
    for (const { projection: p, scopes } of this.projections) {
      prepared.push(
        p.prepare
          ? await tx
              .scoped(scopes.prepare, () => p.prepare!(event, tx))
              .catch((err) => {
                if (err instanceof ProjectionError) (err.details as Record<string, unknown>).projection ??= p.name;
                throw err;
              })
          : undefined,
      );
    }
    for (let i = 0; i < this.projections.length; i++) {
      const { projection: p, scopes } = this.projections[i];
      await tx
        .scoped(scopes.apply, () => p.apply(event, tx, prepared[i]))
        .catch((err) => {
          if (err instanceof ProjectionError) (err.details as Record<string, unknown>).projection ??= p.name;
          throw err;
        });
    }
  }

  /** Reads the stored checkpoints of a topic for this applier's group: partition → next offset. */
  async checkpoints(topic: string): Promise<Map<number, bigint>> {
    const rows: { partition: number; next_offset: string }[] = await this.ds.query(`SELECT partition, next_offset::text AS next_offset FROM ${qualified(this.schema, 'checkpoints')} WHERE consumer_group = $1 AND topic = $2`, [
      this.checkpointGroup,
      topic,
    ]);
    return new Map(rows.map((r) => [r.partition, BigInt(r.next_offset)]));
  }

  /**
   * The events of `authentic` already applied: eventId → the applied hash. `read`: whether
   * `applied_events` was queried (always in the table mode; in the memory mode only for the ids
   * the index cannot clear: a position holding another hash, a known id fingerprint).
   */
  private async appliedBefore(client: SqlClient, authentic: readonly LedgerEvent[]): Promise<{ seen: Map<string, string>; read: boolean }> {
    const memory = this.appliedInMemory;
    const seen = new Map<string, string>();
    const toRead: LedgerEvent[] = [];
    for (const e of authentic) {
      const known = memory ? memory.lookup(e.globalPosition, e.eventId, e.hash) : 'check';
      if (known === 'duplicate') seen.set(e.eventId, e.hash);
      else if (known === 'check') toRead.push(e);
    }
    if (memory && toRead.length === 0) return { seen, read: false };
    const known = await client.query(`SELECT event_id, hash FROM ${qualified(this.schema, 'applied_events')} WHERE event_id = ANY($1::text[])`, [toRead.map((e) => e.eventId)]);
    for (const r of known.rows as { event_id: string; hash: string }[]) seen.set(r.event_id, r.hash);
    return { seen, read: true };
  }

  /** The heads of `streamIds` (`stream_heads`), locked for the transaction. */
  private async streamHeads(client: SqlClient, streamIds: readonly string[]): Promise<Map<string, StreamHead>> {
    if (streamIds.length === 0) return new Map();
    const rows = await client.query(`SELECT stream_id, version, hash FROM ${qualified(this.schema, 'stream_heads')} WHERE stream_id = ANY($1::text[]) FOR UPDATE`, [streamIds]);
    return new Map(rows.rows.map((r: { stream_id: string; version: number; hash: string }) => [r.stream_id, { version: r.version, hash: r.hash }]));
  }

  /** Whether an authentic record of `streamId` with a version in (`after`, `before`) is in quarantine. */
  private async predecessorQuarantined(tx: ProjectionTx, streamId: string, after: number, before: number): Promise<boolean> {
    const rows = await tx.query(`SELECT 1 FROM ${tx.t('quarantine')} WHERE stream_id = $1 AND authentic AND stream_version > $2 AND stream_version < $3 LIMIT 1`, [streamId, after, before]);
    return rows.length > 0;
  }

  /** Keeps a refused record in quarantine (never applied) and logs it. */
  private async quarantine(tx: ProjectionTx, record: EventRecord, refusal: Refusal): Promise<void> {
    this.logger.warn(
      { reason: refusal.reason, detail: refusal.detail, topic: record.topic, partition: record.partition, offset: record.offset, eventId: refusal.eventId, streamId: refusal.streamId, streamVersion: refusal.streamVersion },
      'record quarantined, not applied',
    );
    await writeQuarantine(tx, this.checkpointGroup, record, refusal, this.deadLetter);
  }

  private remember(tx: ProjectionTx): void {
    for (const [kind, learned] of tx.learnedFacts()) {
      let committed = this.facts.get(kind);
      if (!committed || committed.size > MAX_CACHED) this.facts.set(kind, (committed = new Map()));
      for (const [key, value] of learned) committed.set(key, value);
    }
  }
}
