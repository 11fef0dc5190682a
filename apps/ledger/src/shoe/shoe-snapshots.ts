import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { decodeState, encodeState, type ShoeState } from '@ledger/shoe';
import { exec, first } from '../kernel/sql';
import { DATA_SOURCE } from '../kernel/tokens';

/** A folded shoe stream as the cache keeps it and a snapshot restores it. */
export interface FoldedShoe {
  /** Stream version the state reflects (0 = no event yet). */
  version: number;
  tableId: string | null;
  /** `occurredAt` of the stream's ShoeOpened (ISO-8601), null while the stream is empty. */
  openedAt: string | null;
  /** Hash of the stream's event at `version` (what a snapshot of this state chains to); null at version 0. */
  lastHash: string | null;
  /** Version of the latest snapshot written or read for this stream (0: none). */
  snapshotVersion: number;
  state: ShoeState;
}

/** Why a snapshot row was not used. */
type Refusal = 'MAC_MISMATCH' | 'NOT_ON_CHAIN' | 'MALFORMED';

/** A row of `stream_snapshots` with the stored hash of the event at its version (null: no such event). */
type SnapshotRow = { version: number; event_hash: string; key_id: string; mac: string; state: string; stored_hash: string | null };

/**
 * Snapshots of shoe streams' folded states in `stream_snapshots` (docs/architecture.md §3, "The shoe
 * cache"; migration `migrations/1797020000100-create-stream-snapshots.ts`): a cache miss restores
 * the latest one and folds only the events after it.
 *
 * A snapshot is derived data that whoever holds the API's database login could rewrite, so it is
 * used only when (docs/guarantees.md §8):
 * - its HMAC-SHA256, keyed with `SHOE_SNAPSHOT_KEY` (which the database never sees), verifies over
 *   the stream id, the version, the event hash and the state text: a planted or edited state, or
 *   one copied from another stream or version, is refused;
 * - the stream's stored event at that version still carries the hash it names: a snapshot of a
 *   stream whose history was since rewritten or cut is refused;
 * - it decodes to a state of exactly that version.
 * A refused snapshot is logged at `warn` (`shoe snapshot refused`, with the stream, the version
 * and the reason: an audit line) and the stream is folded from its events. A row written with
 * another key (another key id: a rotated key, or another process's random one) is skipped quietly.
 */
@Injectable()
export class ShoeSnapshots {
  private readonly logger = new Logger(ShoeSnapshots.name);
  private readonly key: Buffer;
  /** First 16 hex digits of SHA-256 of the key: tells this key's rows from others' without revealing it. */
  private readonly keyId: string;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    const configured = config.get('SHOE_SNAPSHOT_KEY', { infer: true }) as string | undefined;
    this.key = configured ? Buffer.from(configured, 'utf8') : randomBytes(32);
    this.keyId = createHash('sha256').update(this.key).digest('hex').slice(0, 16);
  }

  /**
   * The latest genuine snapshot of `streamId`, or null (none, another key's, or refused: see the
   * class). Never throws for what the row holds; database errors propagate.
   */
  async load(streamId: string): Promise<FoldedShoe | null> {
    const row = await first<SnapshotRow>(
      this.ds,
      `SELECT s.version, s.event_hash, s.key_id, s.mac, s.state, e.hash AS stored_hash
         FROM stream_snapshots s
         LEFT JOIN events e ON e.stream_id = s.stream_id AND e.stream_version = s.version
        WHERE s.stream_id = $1`,
      [streamId],
    );
    if (!row) return null;
    if (row.key_id !== this.keyId) return null;
    const version = Number(row.version);
    const expected = this.mac(streamId, version, row.event_hash, row.state);
    const given = Buffer.from(String(row.mac), 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return this.refuse(streamId, version, 'MAC_MISMATCH');
    if (row.stored_hash !== row.event_hash) return this.refuse(streamId, version, 'NOT_ON_CHAIN');
    try {
      const nl = row.state.indexOf('\n');
      const head = JSON.parse(row.state.slice(0, nl)) as { tableId: string | null; openedAt: string | null };
      const state = decodeState(row.state.slice(nl + 1));
      if (state.version !== version) return this.refuse(streamId, version, 'MALFORMED');
      return { version, tableId: head.tableId, openedAt: head.openedAt, lastHash: row.event_hash, snapshotVersion: version, state };
    } catch {
      return this.refuse(streamId, version, 'MALFORMED');
    }
  }

  /**
   * Writes (replaces) the snapshot of `streamId` from `shoe`, which must reflect the stream up to
   * `shoe.version` with `shoe.lastHash` the stored hash of the event there. O(size of the state):
   * call it off the request's path.
   * @throws Error when `shoe` has no event yet; database errors
   */
  async write(streamId: string, shoe: FoldedShoe): Promise<void> {
    if (shoe.version < 1 || shoe.lastHash === null) throw new Error(`no snapshot of ${streamId} at version ${shoe.version}`);
    const text = `${JSON.stringify({ tableId: shoe.tableId, openedAt: shoe.openedAt })}\n${encodeState(shoe.state)}`;
    const mac = this.mac(streamId, shoe.version, shoe.lastHash, text).toString('hex');
    await exec(
      this.ds,
      `INSERT INTO stream_snapshots (stream_id, version, event_hash, key_id, mac, state) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, event_hash = EXCLUDED.event_hash, key_id = EXCLUDED.key_id,
         mac = EXCLUDED.mac, state = EXCLUDED.state, written_at = now()`,
      [streamId, shoe.version, shoe.lastHash, this.keyId, mac, text],
    );
  }

  /** HMAC-SHA256 over the stream id (length-prefixed), the version, the event hash and the text. */
  private mac(streamId: string, version: number, eventHash: string, text: string): Buffer {
    return createHmac('sha256', this.key).update(`${streamId.length}:${streamId}|${version}|${eventHash}|`).update(text).digest();
  }

  private refuse(streamId: string, version: number, reason: Refusal): null {
    this.logger.warn({ streamId, version, reason }, 'shoe snapshot refused; folding the stream from its events');
    return null;
  }
}
