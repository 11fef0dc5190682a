import { hostname } from 'node:os';
import { Client } from 'pg';
import type { KafkaClient, OutgoingMessage } from '@ledger/kafka';
import { DEFAULT_LEASE_TTL_MS, DEFAULT_OUTBOX_MAX_REQUEST_BYTES, Lease, pgClientConfig } from '@ledger/infra';
import { DEV_RECORD_SIGNING_KEY } from './record-signature';
import type { LedgerLogger } from './logger';
import { EVENT_COLUMNS, type EventRow } from './rows';
import { OUTBOX_LEASE_TABLE, RELAY_LEASE_NAME } from './outbox-relay';
import { CommitHorizon } from './horizon';
import { LedgerRecordBuilder } from './relay-record';

/** Events read and sent per batch by {@link republishLedger}. */
export const REPUBLISH_BATCH = 500;

/** Options of {@link republishLedger}. */
export interface RepublishOptions {
  /** PostgreSQL URL, as the relay's role `ledger_relay` (it reads `events`, takes the relay's lease, marks `outbox`). */
  readonly databaseUrl: string;
  /** A Kafka client; the republish makes its own (idempotent) producer from it. */
  readonly kafka: KafkaClient;
  /** The ledger topic (`LEDGER_EVENTS_TOPIC`); it must exist (the producer never creates topics). */
  readonly topic: string;
  /** The relay's `RECORD_SIGNING_KEY` (the records must carry the relay's signature). @default {@link DEV_RECORD_SIGNING_KEY} */
  readonly signingKey?: string;
  /** Longest wait for the commit-order horizon to reach the range's end, in ms; past it the run stops at the horizon. @default 10000 */
  readonly horizonWaitMs?: number;
  /** First global position to republish (≥ 1). @default 1 */
  readonly fromPosition?: bigint;
  /** Last global position to republish. @default the last one committed when the republish starts */
  readonly toPosition?: bigint;
  /** Lease time-to-live while the republish holds the relay's lease, in ms. @default 5000 */
  readonly leaseTtlMs?: number;
  /** Events per batch (1..5000). @default {@link REPUBLISH_BATCH} */
  readonly batchSize?: number;
  /** Upper bound of one produce request, in value characters (as the relay's). @default 524288 */
  readonly maxRequestBytes?: number;
  readonly logger: LedgerLogger;
  /** Called after each batch sent (progress). */
  readonly onBatch?: (sent: number, lastPosition: bigint) => void;
}

/** What {@link republishLedger} did. */
export interface RepublishResult {
  readonly topic: string;
  /** First and last global positions of the range (decimal strings); `to` < `from` when the range was empty. */
  readonly from: string;
  readonly to: string;
  /** Records sent (one per event of the range, in position order). */
  readonly records: number;
  /** The relay-lease generation the republish held. */
  readonly leaseGeneration: string;
  /** Outbox rows of the range it marked published (they were unpublished: the relays would have sent them once more). */
  readonly outboxMarked: number;
}

/** Longest wait for the commit-order horizon to reach the range's end, in ms. */
const HORIZON_MAX_WAIT_MS = 10_000;

/**
 * Republishes the ledger topic from PostgreSQL (docs/guarantees.md §4 and §7; docs/operations.md,
 * "Operations: republishing the ledger topic"): every event of `events` with a global position in
 * [`fromPosition`, `toPosition`], in position order, as the relay's very records (same key = the
 * table id, same value = the stored envelope's canonical JSON, same headers including the
 * `ledger-sig` signature: built by the relay's own {@link LedgerRecordBuilder}, `relay-record.ts`), with the relay's
 * idempotent producer settings (acks = all, one request in flight, murmur2 partitioning), so the
 * partition and the per-partition order are the relay's. It reads `events`, not the outbox, so it
 * works after the outbox was pruned.
 *
 * Alongside the relays: it takes the relay's lease by force (`outbox_leases` row `ledger-relay`,
 * generation + 1), so a running leader is fenced out (it marks nothing more and stops before its
 * next send; its batch in flight, if any, is a byte-identical duplicate) and no relay record
 * interleaves with the range; it renews the lease before every batch, marks the range's
 * still-unpublished outbox rows published in a fenced transaction at the end, and gives the lease
 * up: a relay takes over at its next try and continues after the range.
 *
 * Idempotent: running it twice only adds byte-identical duplicates (same `ce_id`), which the
 * projector absorbs (docs/guarantees.md §6).
 * @throws the PostgreSQL or Kafka error that stopped it (e.g. an unknown topic); the records sent
 *   before it stay (a rerun sends them again, byte-identical); the lease runs out by itself
 */
export async function republishLedger(options: RepublishOptions): Promise<RepublishResult> {
  const log = options.logger;
  const batchSize = Math.min(Math.max(1, options.batchSize ?? REPUBLISH_BATCH), 5000);
  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_OUTBOX_MAX_REQUEST_BYTES;
  const builder = new LedgerRecordBuilder(options.signingKey ?? DEV_RECORD_SIGNING_KEY);
  const leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  // the process's timeouts and keepalives (docs/architecture.md §5), idle-in-transaction and lock waits capped at the lease
  const client = new Client({ ...pgClientConfig(options.databaseUrl, 'ledger-republish'), idle_in_transaction_session_timeout: leaseTtlMs, lock_timeout: leaseTtlMs });
  await client.connect();
  const lease = new Lease({ table: OUTBOX_LEASE_TABLE, name: RELAY_LEASE_NAME, ttlMs: leaseTtlMs, holder: `republish:${hostname()}:${process.pid}` });
  const producer = options.kafka.producer();
  try {
    const generation = await lease.acquire(client, { force: true });
    if (generation === null) throw new Error('could not take the relay lease');
    log.info({ lease: RELAY_LEASE_NAME, generation, holder: lease.holder }, 'republish holds the relay lease: the relays stand by');
    const from = options.fromPosition ?? 1n;
    const { rows: head } = await client.query<{ last: string | null }>(`SELECT max(global_position)::text AS last FROM events`);
    const wanted = options.toPosition ?? BigInt(head[0].last ?? '0');
    // Never past the commit-order horizon (docs/guarantees.md §5): below it no append can still
    // commit, so every event of [from, to] is read and sent, and marking the range loses nothing.
    const horizon = new CommitHorizon();
    let safe = await horizon.advance(client, 1000);
    const deadline = Date.now() + (options.horizonWaitMs ?? HORIZON_MAX_WAIT_MS);
    while (safe < wanted && Date.now() < deadline) safe = await horizon.advance(client, 1000);
    const to = wanted < safe ? wanted : safe;
    if (to < wanted) log.warn({ wanted: wanted.toString(), to: to.toString() }, 'appends still in flight above the horizon: republishing up to it, the relay sends the rest');
    await producer.connect();

    let after = from - 1n;
    let records = 0;
    while (after < to) {
      const { rows } = await client.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events e
          WHERE e.global_position > $1::bigint AND e.global_position <= $2::bigint
          ORDER BY e.global_position LIMIT $3`,
        [after.toString(), to.toString(), batchSize],
      );
      if (rows.length === 0) break;
      await lease.renew(client); // still ours (else LeaseLostError: another republish took it)
      await sendInOrder(
        producer,
        options.topic,
        rows.map((r) => builder.build({ ...r, key: r.table_id })),
        maxRequestBytes,
      );
      records += rows.length;
      after = BigInt(rows[rows.length - 1].global_position);
      options.onBatch?.(records, after);
    }

    // the relays need not send the range again: mark what is still unpublished, fenced; only the
    // rows bound for the topic republished to (a republish to another topic leaves the relays' work to them)
    await client.query('BEGIN');
    let outboxMarked = 0;
    try {
      await lease.fence(client);
      const res = await client.query(
        `UPDATE outbox SET published_at = now()
          WHERE published_at IS NULL AND topic = $3 AND global_position >= $1::bigint AND global_position <= $2::bigint`,
        [from.toString(), to.toString(), options.topic],
      );
      outboxMarked = res.rowCount ?? 0;
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
    log.info({ topic: options.topic, from: from.toString(), to: to.toString(), records, outboxMarked }, 'republish done; lease given back');
    return { topic: options.topic, from: from.toString(), to: to.toString(), records, leaseGeneration: generation, outboxMarked };
  } finally {
    await lease.release(client);
    await producer.disconnect().catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

/** Sends records in order, requests of ≤ `maxRequestBytes` value characters, one after the other (as the relay does). */
async function sendInOrder(producer: { send(topic: string, m: readonly OutgoingMessage[]): Promise<void> }, topic: string, messages: readonly OutgoingMessage[], maxRequestBytes: number): Promise<void> {
  let chunk: OutgoingMessage[] = [];
  let bytes = 0;
  for (const m of messages) {
    const size = m.value?.length ?? 0;
    if (chunk.length > 0 && bytes + size > maxRequestBytes) {
      await producer.send(topic, chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(m);
    bytes += size;
  }
  if (chunk.length > 0) await producer.send(topic, chunk);
}
