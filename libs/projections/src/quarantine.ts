import { ensureTopics, type LedgerTopic } from '@ledger/infra';
import type { KafkaClient, KafkaProducer, OutgoingMessage } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import type { EventRecord } from './event-record';
import { ProjectionLogger, SILENT_LOGGER } from './logger';
import { QUARANTINE_MAX_VALUE_BYTES } from './migrations';
import type { ProjectionTx } from './projection-tx';
import { QUARANTINE_REASONS, type QuarantineReason, type Refusal } from './record-verification';
import { assertSchemaName, DEFAULT_READ_SCHEMA, qualified } from './schema-name';

/**
 * Quarantine (docs/guarantees.md §8, docs/architecture.md §7): what the projector does with a
 * record it refuses (`record-verification.ts`). The record is never applied; in the same
 * transaction as the batch's projections and checkpoint it is kept in `<schema>.quarantine` with
 * the reason, and, after the commit, copied to the dead-letter topic
 * (`baccarat.ledger.events.dlq.v1`) by {@link DeadLetterPublisher}. The partition goes on with the
 * next record.
 *
 * Everything about a refused record is untrusted: text that PostgreSQL cannot hold (NUL) is
 * replaced, headers that are not clean UTF-8 are kept as base64, the value is cut at 64 KiB, so no
 * record can make the quarantine's own INSERT fail and stop the partition.
 */

/** Longest `detail` kept, in characters. */
const MAX_DETAIL = 2000;

/** Text PostgreSQL accepts (no NUL), at most `max` characters. */
function pgText(s: string, max = 500): string {
  const clean = s.replace(/\u0000/g, '\ufffd');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** A header value as kept: the text when it is clean UTF-8 without NUL, else its bytes in base64. */
export type KeptHeader = string | { readonly base64: string };

function keptHeader(v: Buffer | string): KeptHeader {
  const b = typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
  const text = b.toString('utf8');
  return Buffer.from(text, 'utf8').equals(b) && !text.includes('\u0000') ? text : { base64: b.toString('base64') };
}

function headerBytes(v: KeptHeader): Buffer {
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : Buffer.from(v.base64, 'base64');
}

/** A record's headers as kept in `quarantine.headers` (several values of one name: the list). */
export function keptHeaders(headers: EventRecord['headers']): Record<string, KeptHeader | KeptHeader[]> {
  const out: Record<string, KeptHeader | KeptHeader[]> = {};
  for (const [name, v] of Object.entries(headers ?? {})) {
    if (v === undefined) continue;
    out[pgText(name, 200)] = Array.isArray(v) ? v.map(keptHeader) : keptHeader(v);
  }
  return out;
}

function bytesOf(b: Buffer | string | null | undefined): Buffer | null {
  if (b === null || b === undefined) return null;
  return typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
}

/**
 * Queues the quarantine row of a refused record in the batch's transaction (written now, not
 * deferred: it is bookkeeping no projection reads). A record already quarantined at the same
 * position is left as it is.
 * @param group the checkpoint owner (`consumer_group` of the row)
 * @param dlqPending whether the dead-letter copy is still to be sent (false in a rebuild: the live
 *   projector sent it when it first saw the record)
 */
export async function writeQuarantine(tx: ProjectionTx, group: string, r: EventRecord, refusal: Refusal, dlqPending: boolean): Promise<void> {
  const row = quarantineRow(r, group, refusal, new Date());
  await tx.query(
    `INSERT INTO ${tx.t('quarantine')} (topic, partition, kafka_offset, consumer_group, reason, detail, authentic, event_id, stream_id, stream_version,
       record_key, headers, value, value_bytes, dlq_pending)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12::jsonb,$13,$14,$15)
     ON CONFLICT (topic, partition, kafka_offset) DO NOTHING`,
    [
      row.topic,
      row.partition,
      row.kafka_offset,
      group,
      row.reason,
      row.detail,
      refusal.authentic,
      refusal.eventId === undefined ? null : pgText(refusal.eventId, 200),
      refusal.streamId === undefined ? null : pgText(refusal.streamId, 200),
      refusal.streamVersion ?? null,
      row.record_key,
      JSON.stringify(row.headers),
      row.value,
      row.value_bytes,
      dlqPending,
    ],
  );
}

/**
 * What the quarantine keeps of a refused record, as its dead-letter copy reads it back: position,
 * group, reason, detail (at most 2000 characters, no NUL), key, headers ({@link keptHeaders}), the
 * value cut at `QUARANTINE_MAX_VALUE_BYTES` and its full size.
 * @param quarantinedAt when it was refused (the row's `quarantined_at`; the database's clock when written)
 */
export function quarantineRow(r: EventRecord, group: string, refusal: Refusal, quarantinedAt: Date): PendingRow {
  const value = bytesOf(r.value);
  return {
    topic: r.topic,
    partition: r.partition,
    kafka_offset: r.offset,
    consumer_group: group,
    reason: refusal.reason,
    detail: pgText(refusal.detail, MAX_DETAIL),
    record_key: bytesOf(r.key),
    headers: keptHeaders(r.headers),
    value: value === null ? null : value.subarray(0, QUARANTINE_MAX_VALUE_BYTES),
    value_bytes: value?.length ?? 0,
    quarantined_at: quarantinedAt,
  };
}

/** What `quarantine` holds: every record refused, by reason, and the dead-letter copies not yet sent. */
export interface QuarantineCounts {
  readonly total: number;
  readonly byReason: Readonly<Record<QuarantineReason, number>>;
  /** Records whose copy to the dead-letter topic is still pending. */
  readonly dlqPending: number;
}

/**
 * The quarantine counter of a schema (for the status of the projector and, later, a metric).
 * @param schema the read-model schema; `read` by default
 */
export async function quarantineCounts(ds: DataSource, schema: string = DEFAULT_READ_SCHEMA): Promise<QuarantineCounts> {
  const rows: { reason: QuarantineReason; n: number; pending: number }[] = await ds.query(
    `SELECT reason, count(*)::int AS n, count(*) FILTER (WHERE dlq_pending)::int AS pending FROM ${qualified(schema, 'quarantine')} GROUP BY reason`,
  );
  const byReason = Object.fromEntries(QUARANTINE_REASONS.map((r) => [r, 0])) as Record<QuarantineReason, number>;
  for (const r of rows) byReason[r.reason] = r.n;
  return { total: rows.reduce((n, r) => n + r.n, 0), byReason, dlqPending: rows.reduce((n, r) => n + r.pending, 0) };
}

/**
 * Declaration of a dead-letter topic: one partition (the copies are few and read in order),
 * retained forever, delete policy, replication and `min.insync.replicas` by the brokers' defaults,
 * like every ledger topic (`@ledger/infra`'s topics).
 */
export function deadLetterTopicDeclaration(name: string): LedgerTopic {
  return {
    name,
    partitions: 1,
    configs: { 'cleanup.policy': 'delete', 'retention.ms': '-1', 'retention.bytes': '-1', 'message.timestamp.type': 'CreateTime' },
  };
}

/** Options of a {@link DeadLetterPublisher}. */
export interface DeadLetterPublisherOptions {
  readonly kafka: KafkaClient;
  readonly ds: DataSource;
  /** The dead-letter topic (created when missing). */
  readonly topic: string;
  /** The read-model schema whose `quarantine` it sends. @default 'read' */
  readonly schema?: string;
  readonly logger?: ProjectionLogger;
  /** Rows sent per transaction. @default 100 */
  readonly batchSize?: number;
}

/** A quarantine row about to be copied to the dead-letter topic (see {@link deadLetterMessage}). */
export interface PendingRow {
  topic: string;
  partition: number;
  kafka_offset: string;
  consumer_group: string;
  reason: QuarantineReason;
  detail: string;
  record_key: Buffer | null;
  headers: Record<string, KeptHeader | KeptHeader[]>;
  value: Buffer | null;
  value_bytes: number;
  quarantined_at: Date;
}

/**
 * Copies quarantined records to the dead-letter topic, at least once: per batch, in one
 * transaction, it locks pending rows (`FOR UPDATE SKIP LOCKED`, so two projectors share the work),
 * sends them through the Kafka port and marks them sent. A failure leaves them pending for the next
 * call. Each copy has the record's key, (at most 64 KiB of) its value and its headers, plus
 * `dlq_reason`, `dlq_detail`, `dlq_source_topic`, `dlq_source_partition`, `dlq_source_offset`,
 * `dlq_consumer_group`, `dlq_quarantined_at`, `dlq_value_bytes` and `dlq_truncated`.
 */
export class DeadLetterPublisher {
  readonly topic: string;
  private readonly options: DeadLetterPublisherOptions;
  private readonly schema: string;
  private readonly logger: ProjectionLogger;
  private producer: KafkaProducer | null = null;
  private topicReady = false;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(options: DeadLetterPublisherOptions) {
    this.options = options;
    this.topic = options.topic;
    this.schema = assertSchemaName(options.schema ?? DEFAULT_READ_SCHEMA);
    this.logger = options.logger ?? SILENT_LOGGER;
  }

  /**
   * Sends every pending copy (one call at a time; a call made during another runs after it).
   * @returns the copies sent by this call
   * @throws the PostgreSQL or Kafka error that stopped it (what was not marked stays pending)
   */
  publishPending(): Promise<number> {
    const run = this.chain.then(() => this.drain());
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Disconnects the producer (after the last call). */
  async stop(): Promise<void> {
    await this.chain;
    const p = this.producer;
    this.producer = null;
    await p?.disconnect().catch(() => undefined);
  }

  private async drain(): Promise<number> {
    let sent = 0;
    for (;;) {
      const n = await this.sendBatch();
      sent += n;
      if (n === 0) return sent;
    }
  }

  private async sendBatch(): Promise<number> {
    const q = qualified(this.schema, 'quarantine');
    const qr = this.options.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.startTransaction();
      const rows: PendingRow[] = await qr.query(
        `SELECT topic, partition, kafka_offset::text AS kafka_offset, consumer_group, reason, detail, record_key, headers, value, value_bytes, quarantined_at
           FROM ${q} WHERE dlq_pending ORDER BY quarantined_at, topic, partition, kafka_offset LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.options.batchSize ?? 100],
      );
      if (rows.length === 0) {
        await qr.commitTransaction();
        return 0;
      }
      await this.send(rows.map(deadLetterMessage));
      await qr.query(
        `UPDATE ${q} SET dlq_pending = false, dlq_published_at = now()
          WHERE (topic, partition, kafka_offset) IN (SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[]))`,
        [rows.map((r) => r.topic), rows.map((r) => r.partition), rows.map((r) => r.kafka_offset)],
      );
      await qr.commitTransaction();
      this.logger.info({ topic: this.topic, count: rows.length, reasons: [...new Set(rows.map((r) => r.reason))] }, 'quarantined records copied to the dead-letter topic');
      return rows.length;
    } catch (err) {
      if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await qr.release();
    }
  }

  private async send(messages: OutgoingMessage[]): Promise<void> {
    if (!this.topicReady) {
      const admin = this.options.kafka.admin();
      await admin.connect();
      try {
        await ensureTopics(admin, [deadLetterTopicDeclaration(this.topic)]);
      } finally {
        await admin.disconnect();
      }
      this.topicReady = true;
    }
    if (!this.producer) {
      const p = this.options.kafka.producer();
      await p.connect();
      this.producer = p;
    }
    try {
      await this.producer.send(this.topic, messages);
    } catch (err) {
      // the port's rule: after a failed send take a fresh producer
      const p = this.producer;
      this.producer = null;
      await p.disconnect().catch(() => undefined);
      throw err;
    }
  }
}

/**
 * The dead-letter copy of a quarantine row (documented in `docs/asyncapi/asyncapi.yaml`): the
 * refused record's key, kept value and first value of each header, plus the `dlq_*` headers.
 */
export function deadLetterMessage(r: PendingRow): OutgoingMessage {
  const headers: Record<string, Buffer | string> = {};
  for (const [name, v] of Object.entries(r.headers ?? {})) {
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined) headers[name] = headerBytes(first);
  }
  return {
    key: r.record_key,
    value: r.value,
    headers: {
      ...headers,
      dlq_reason: r.reason,
      dlq_detail: r.detail,
      dlq_source_topic: r.topic,
      dlq_source_partition: String(r.partition),
      dlq_source_offset: r.kafka_offset,
      dlq_consumer_group: r.consumer_group,
      dlq_quarantined_at: new Date(r.quarantined_at).toISOString(),
      dlq_value_bytes: String(r.value_bytes),
      dlq_truncated: String((r.value?.length ?? 0) < r.value_bytes),
    },
  };
}
