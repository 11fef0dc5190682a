import { Client } from 'pg';
import type { KafkaClient, KafkaProducer } from '@ledger/kafka';
import { DEFAULT_LEASE_TTL_MS, Lease, LeaseLostError, pgClientConfig } from '@ledger/infra';
import { GENESIS_HASH } from '@ledger/events';
import { errorFields, type LedgerLogger } from '@ledger/event-store';
import { appendAnchorLines } from './anchor-file';
import { GENESIS_ANCHOR_HASH, anchorHash, anchorText, buildCheckpoint, signCheckpoint, type SignedAnchor } from './checkpoint';
import { anchorRecord, connectProducer, ensureAnchorsTopic } from './kafka-io';
import type { AnchorSigningKey } from './keys';
import type { AnchoredStream } from './merkle';
import { databaseLedgerId, pgSession, type SqlSession } from './sql';
import { loadAnchorState, type AnchorState } from './anchor-state';
import { collectEvidenceHeads, evidenceStreamId } from './evidence-anchor';
import { catalogueGauge } from '@ledger/metrics';

const lastSigned = catalogueGauge('lastAnchorSigned');

/**
 * Signs checkpoints of the ledger's stream heads and keeps them outside PostgreSQL
 * (docs/guarantees.md §8, docs/architecture.md §10): to the append-only anchor file (fsynced) and to
 * the anchors topic (key `anchors`).
 *
 * A checkpoint is due when events were published since the last one and either `intervalMs` has
 * passed or a shoe ended (`ShoeClosed`, `ShoeVoided`) among them. It covers the events up to the
 * relay's published frontier (every event at or below it is on Kafka), so verify can treat an
 * anchored event missing from Kafka as a divergence. It never signs a head that does not extend the
 * head it signed before: a stream whose new events do not chain onto its last signed head (its
 * history was rewritten in PostgreSQL) is left out and logged at error. It also signs the heads of
 * the evidence chains (the access log, the wallet runs: `evidence-anchor.ts`) that grew, under the
 * same rule, whenever a checkpoint is due for events.
 *
 * One publisher signs at a time: the leader holds the lease row `ledger-anchors` of `outbox_leases`
 * (like the relay, `@ledger/infra`'s `Lease`, docs/guarantees.md §4), renewed while it makes
 * progress and once more right before each checkpoint is written; the others stand by. A leader
 * that stops renewing (frozen, partitioned) loses it after `leaseTtlMs` and a standby takes over. A new leader first reads
 * the anchor file and the topic, copies to the file what only the topic has (a previous leader on
 * another machine) and republishes what only the file has (a send that failed), then continues the
 * chain. The file is written before the topic; a failed send is retried before the next checkpoint.
 */

/** Name of the anchor publisher's row in `outbox_leases` (the relay's is `ledger-relay`). */
export const ANCHOR_LEASE_NAME = 'ledger-anchors';

/** Event types that end a shoe: a checkpoint follows at once. */
export const SHOE_END_TYPES: readonly string[] = ['ShoeClosed', 'ShoeVoided'];

/** How often the leader looks for new events, in ms. */
export const DEFAULT_ANCHOR_POLL_MS = 500;

/** Events read per query when collecting heads. */
const PAGE = 5000;
const FIRST_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 5000;

/** Options of {@link AnchorPublisher}. */
export interface AnchorPublisherOptions {
  /** PostgreSQL URL of the publisher's session (it holds the lock and reads `events` and `outbox`). */
  readonly databaseUrl: string;
  /** The Kafka client; null: the file only (tests, tools). */
  readonly kafka: KafkaClient | null;
  /** The anchors topic. */
  readonly topic: string;
  /** The anchor file. */
  readonly anchorFile: string;
  readonly signingKey: AnchorSigningKey;
  /** Most time between a published change and its checkpoint, in ms. */
  readonly intervalMs: number;
  /** The ledger id; null or absent: `<database>@<oid>` (see `databaseLedgerId`). */
  readonly ledgerId?: string | null;
  /** How often the leader looks for new events, in ms. @default {@link DEFAULT_ANCHOR_POLL_MS} */
  readonly pollMs?: number;
  /** How often a standby tries to lead, in ms. @default 1000 */
  readonly standbyRetryMs?: number;
  /** Name of the lease row. @default {@link ANCHOR_LEASE_NAME} */
  readonly leaseName?: string;
  /** Lease time-to-live, in ms (the relay process passes `RELAY_LEASE_TTL_MS`). @default 5000 */
  readonly leaseTtlMs?: number;
  readonly logger: LedgerLogger;
  /** Clock (tests). @default `() => new Date()` */
  readonly now?: () => Date;
}

/**
 * The anchor loop (see the file's doc). {@link start} runs it in the background; {@link anchorNow}
 * signs one checkpoint on demand (tests, tools).
 */
export class AnchorPublisher {
  private readonly log: LedgerLogger;
  private readonly now: () => Date;
  private readonly pollMs: number;
  private readonly standbyRetryMs: number;
  private readonly lease: Lease;
  /** `performance.now()` of the last renewal (renewal is due every ttl / 3; the expiry itself is the database's). */
  private renewedAt = 0;
  private client: Client | null = null;
  private session: SqlSession | null = null;
  private producer: KafkaProducer | null = null;
  private topicEnsured = false;
  private leader = false;
  private state: AnchorState | null = null;
  private running = false;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wakeSleep: (() => void) | null = null;
  private busy: Promise<unknown> = Promise.resolve();
  private readonly reportedBroken = new Set<string>();

  /** @param options connections, key, file, topic, timing */
  constructor(private readonly options: AnchorPublisherOptions) {
    this.log = options.logger;
    this.now = options.now ?? (() => new Date());
    this.pollMs = options.pollMs ?? DEFAULT_ANCHOR_POLL_MS;
    this.standbyRetryMs = options.standbyRetryMs ?? 1000;
    this.lease = new Lease({ table: 'outbox_leases', name: options.leaseName ?? ANCHOR_LEASE_NAME, ttlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS });
  }

  /** Whether this instance holds the lease. */
  get isLeader(): boolean {
    return this.leader;
  }

  /** The last checkpoint this instance knows (its own or loaded), or null. */
  get lastAnchor(): SignedAnchor | null {
    return this.state?.last ?? null;
  }

  /**
   * Signs a checkpoint now if anything was published since the last one (ignoring the interval),
   * taking the lease for its duration (released afterwards unless {@link start} runs).
   * @returns the new anchor; null when nothing changed or another instance holds the lease
   * @throws the PostgreSQL, file or key error that stopped it (nothing half-written: the file line is one write)
   */
  async anchorNow(): Promise<SignedAnchor | null> {
    const work = this.busy.then(async () => {
      await this.connect();
      if (!(await this.acquire())) return null;
      try {
        if (!this.state) this.state = await this.load();
        return await this.tick(true);
      } finally {
        if (!this.running) await this.release();
      }
    });
    this.busy = work.catch(() => undefined);
    return work;
  }

  /** Starts the loop in the background. @returns false when it already runs */
  start(): boolean {
    if (this.running) return false;
    this.running = true;
    this.stopping = false;
    this.loop = this.run();
    this.log.info({ intervalMs: this.options.intervalMs, anchorFile: this.options.anchorFile, topic: this.options.topic, keyId: this.options.signingKey.keyId }, 'anchor publisher started');
    return true;
  }

  /** Stops after the checkpoint in progress, releases the lease, disconnects. Never throws; safe to call twice. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeSleep?.();
    if (this.loop) await this.loop;
    this.loop = null;
    this.running = false;
    await this.busy;
    await this.release();
    await this.disconnect();
  }

  // -------------------------------------------------------------------------------------------- loop

  private async run(): Promise<void> {
    let backoff = FIRST_BACKOFF_MS;
    let wasStandby = false;
    while (!this.stopping) {
      try {
        await this.connect();
        if (!(await this.acquire())) {
          if (!wasStandby) this.log.info({ lease: this.lease.name }, 'another anchor publisher signs: standing by');
          wasStandby = true;
          await this.sleep(this.standbyRetryMs);
          continue;
        }
        wasStandby = false;
        const work = this.busy.then(async () => {
          if (!this.state) this.state = await this.load();
          await this.tick(false);
        });
        this.busy = work.catch(() => undefined);
        await work;
        backoff = FIRST_BACKOFF_MS;
        await this.sleep(this.pollMs);
      } catch (err) {
        if (err instanceof LeaseLostError) {
          this.leader = false;
          this.state = null;
          this.log.warn({ lease: this.lease.name }, 'anchor publisher lost the lease (expired or taken over): standing by');
          wasStandby = true;
          await this.sleep(this.standbyRetryMs);
          continue;
        }
        this.log.error({ ...errorFields(err), retryInMs: backoff }, 'anchor loop failed; reconnecting');
        await this.disconnect();
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleep = done;
    });
  }

  // ------------------------------------------------------------------------------------------ state

  private async load(): Promise<AnchorState> {
    const session = this.session!;
    const ledgerId = this.options.ledgerId ?? (await databaseLedgerId(session));
    if (this.options.kafka && !this.topicEnsured) {
      await ensureAnchorsTopic(this.options.kafka, this.options.topic);
      this.topicEnsured = true;
    }
    const state = await loadAnchorState({
      ledgerId,
      anchorFile: this.options.anchorFile,
      kafka: this.options.kafka,
      topic: this.options.topic,
      signingKey: this.options.signingKey,
      logger: this.log,
    });
    if (state.copiedFromTopic.length > 0) {
      appendAnchorLines(this.options.anchorFile, state.copiedFromTopic.map(anchorText));
      this.log.warn({ count: state.copiedFromTopic.length, firstSeq: state.copiedFromTopic[0].checkpoint.seq }, 'copied checkpoints only the anchors topic had into the anchor file');
    }
    this.log.info({ ledgerId, lastSeq: state.last?.checkpoint.seq ?? 0, lastPosition: state.position.toString(), streams: state.heads.size, unpublished: state.unpublished.length }, 'anchor state loaded');
    return state;
  }

  // ------------------------------------------------------------------------------------------- tick

  /** Publishes what the topic lacks, then signs a checkpoint when one is due (always, if `force`). */
  private async tick(force: boolean): Promise<SignedAnchor | null> {
    const state = this.state!;
    await this.publishPending(state);
    const frontier = await this.frontier();
    if (frontier <= state.position) return null;
    if (!force) {
      const elapsed = this.now().getTime() - state.lastAt;
      if (elapsed < this.options.intervalMs && !(await this.shoeEnded(state.position, frontier))) return null;
    }
    const streams = [...(await this.collectHeads(state, frontier)), ...(await this.evidenceHeads(state))];
    const checkpoint = buildCheckpoint({
      ledgerId: state.ledgerId,
      seq: (state.last?.checkpoint.seq ?? 0) + 1,
      createdAt: this.now(),
      globalPosition: frontier,
      streams,
      previousAnchorHash: state.last ? anchorHash(state.last.checkpoint) : GENESIS_ANCHOR_HASH,
      keyId: this.options.signingKey.keyId,
    });
    const signed = signCheckpoint(checkpoint, this.options.signingKey.privateKey);
    await this.lease.renew(this.client!); // still the holder (else LeaseLostError: nothing written)
    this.renewedAt = performance.now();
    appendAnchorLines(this.options.anchorFile, [anchorText(signed)]);
    state.last = signed;
    lastSigned.set(Date.now() / 1000); // docs/architecture.md §8: the anchors-missing alert reads it
    state.position = frontier;
    state.lastAt = Date.parse(checkpoint.createdAt);
    for (const s of streams) state.heads.set(s.streamId, { version: s.version, headHash: s.headHash });
    if (this.options.kafka) state.unpublished.push(signed);
    this.log.info({ seq: checkpoint.seq, globalPosition: checkpoint.globalPosition, streams: streams.length, merkleRoot: checkpoint.merkleRoot }, 'anchor signed');
    await this.publishPending(state);
    return signed;
  }

  /**
   * The highest position P such that every event ≤ P is committed and published; 0 when none. The
   * relay's progress caps it (docs/guarantees.md §5): positions come from a sequence and commit out of
   * order, so only up to `outbox_progress.through_position` is every position known to be an event
   * or a recorded hole — never one that may still commit below P.
   */
  private async frontier(): Promise<bigint> {
    const [r] = await this.session!.query(
      `SELECT (SELECT max(global_position) FROM events)::text AS max_position,
              (SELECT min(global_position) FROM outbox WHERE published_at IS NULL)::text AS first_unpublished,
              (SELECT through_position FROM outbox_progress WHERE name = 'ledger-relay')::text AS through`,
    );
    let frontier = r.max_position === null ? 0n : BigInt(r.max_position);
    if (r.first_unpublished !== null && BigInt(r.first_unpublished) - 1n < frontier) frontier = BigInt(r.first_unpublished) - 1n;
    const through = r.through === null ? 0n : BigInt(r.through);
    return through < frontier ? through : frontier;
  }

  private async shoeEnded(from: bigint, to: bigint): Promise<boolean> {
    const [r] = await this.session!.query(`SELECT EXISTS (SELECT 1 FROM events WHERE type = ANY($3::text[]) AND global_position > $1::bigint AND global_position <= $2::bigint) AS ended`, [
      from.toString(),
      to.toString(),
      SHOE_END_TYPES,
    ]);
    return r.ended === true;
  }

  /**
   * The head of every stream with events in (state.position, to], checking that each stream's new
   * events chain onto its last signed head (version + 1, prev_hash = signed head hash) and onto each
   * other. A stream that does not is left out (and logged at error once).
   */
  private async collectHeads(state: AnchorState, to: bigint): Promise<AnchoredStream[]> {
    const heads = new Map<string, { version: number; headHash: string }>();
    const broken = new Set<string>();
    let after = state.position;
    for (;;) {
      // (ordered by the bigint column: an output column named global_position would sort as text)
      const rows: { position: string; event_id: string; stream_id: string; stream_version: number; prev_hash: string; hash: string }[] = await this.session!.query(
        `SELECT e.global_position::text AS position, e.event_id, e.stream_id, e.stream_version, e.prev_hash, e.hash
             FROM events e WHERE e.global_position > $1::bigint AND e.global_position <= $2::bigint
            ORDER BY e.global_position LIMIT ${PAGE}`,
        [after.toString(), to.toString()],
      );
      for (const r of rows) {
        if (broken.has(r.stream_id)) continue;
        const head = heads.get(r.stream_id) ?? state.heads.get(r.stream_id) ?? null;
        const expectedVersion = head ? head.version + 1 : 1;
        const expectedPrev = head ? head.headHash : GENESIS_HASH;
        const unknownPast = head === null && r.stream_version > 1; // signed before the anchors this instance can read
        if (!unknownPast && (r.stream_version !== expectedVersion || r.prev_hash !== expectedPrev)) {
          broken.add(r.stream_id);
          heads.delete(r.stream_id);
          const fields = { streamId: r.stream_id, version: r.stream_version, eventId: r.event_id, expectedVersion, expectedPrevHash: expectedPrev, prevHash: r.prev_hash };
          if (!this.reportedBroken.has(r.stream_id)) this.log.error(fields, 'stream does not extend its signed head: its history was rewritten in PostgreSQL; left out of the checkpoint');
          else this.log.debug(fields, 'stream still does not extend its signed head');
          this.reportedBroken.add(r.stream_id);
          continue;
        }
        heads.set(r.stream_id, { version: r.stream_version, headHash: r.hash.trim() });
      }
      if (rows.length < PAGE) break;
      after = BigInt(rows[rows.length - 1].position);
    }
    return [...heads].map(([streamId, h]) => ({ streamId, version: h.version, headHash: h.headHash }));
  }

  /** The heads of the evidence chains that grew (docs/anchors.md "The evidence chains"), each extending its signed head; a chain that does not is logged at error once. */
  private evidenceHeads(state: AnchorState): Promise<AnchoredStream[]> {
    return collectEvidenceHeads({
      session: this.session!,
      signed: (streamId) => state.heads.get(streamId),
      onBroken: (b) => {
        const key = evidenceStreamId(b.chain);
        if (!this.reportedBroken.has(key)) this.log.error({ ...b }, 'evidence chain does not extend its signed head: rewritten in PostgreSQL; signed up to the row before');
        this.reportedBroken.add(key);
      },
    });
  }

  // ------------------------------------------------------------------------------------------ kafka

  /** Sends the checkpoints the topic lacks, in order; a failure is logged and retried next tick. */
  private async publishPending(state: AnchorState): Promise<void> {
    const kafka = this.options.kafka;
    if (!kafka || state.unpublished.length === 0) return;
    try {
      this.producer ??= await connectProducer(kafka);
      await this.producer.send(this.options.topic, state.unpublished.map(anchorRecord));
      state.unpublished = [];
    } catch (err) {
      this.log.warn({ ...errorFields(err), pending: state.unpublished.length }, 'could not publish checkpoints to the anchors topic; retrying (the anchor file has them)');
      const p = this.producer;
      this.producer = null;
      await p?.disconnect().catch(() => undefined);
    }
  }

  // ------------------------------------------------------------------------------------ connections

  private async connect(): Promise<void> {
    if (this.client) return;
    const client = new Client(pgClientConfig(this.options.databaseUrl, 'ledger-anchors'));
    client.on('error', (err) => {
      this.log.error(errorFields(err), 'anchor publisher database connection failed');
      if (this.client === client) {
        this.client = null;
        this.session = null;
        this.leader = false;
        this.state = null;
      }
    });
    await client.connect();
    this.client = client;
    this.session = pgSession(client);
  }

  /** Leader: renews the lease when a third of its TTL has passed. Standby: tries to take it once. @returns whether this instance leads */
  private async acquire(): Promise<boolean> {
    if (this.lease.generation !== null) {
      if (this.leader && performance.now() - this.renewedAt < this.lease.ttlMs / 3) return true;
      try {
        await this.lease.renew(this.client!);
        this.renewedAt = performance.now();
        this.leader = true;
        return true;
      } catch (err) {
        if (!(err instanceof LeaseLostError)) throw err;
        if (this.leader) this.log.warn({ lease: this.lease.name }, 'anchor publisher lost the lease (expired or taken over): standing by');
        this.leader = false;
        this.state = null;
        return false;
      }
    }
    const generation = await this.lease.acquire(this.client!);
    this.leader = generation !== null;
    if (this.leader) {
      this.renewedAt = performance.now();
      this.state = null; // another leader may have signed meanwhile: reload
      this.log.info({ lease: this.lease.name, generation, holder: this.lease.holder }, 'anchor publisher is the leader');
    }
    return this.leader;
  }

  private async release(): Promise<void> {
    this.leader = false;
    this.state = null;
    await this.lease.release(this.client);
  }

  private async disconnect(): Promise<void> {
    this.leader = false;
    this.state = null;
    const c = this.client;
    this.client = null;
    this.session = null;
    await c?.end().catch(() => undefined);
    const p = this.producer;
    this.producer = null;
    await p?.disconnect().catch(() => undefined);
  }
}
