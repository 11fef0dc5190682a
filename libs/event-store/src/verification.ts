import type { DataSource, QueryRunner } from 'typeorm';
import { GENESIS_HASH } from '@ledger/events';
import { computeEventHash } from './hash';
import type { LedgerLogger } from './logger';
import { EVENT_COLUMNS, rowToEnvelope, type EventRow } from './rows';
import { checkGlobalPositions } from './position-check';
import type { ChainProblem, ChainVerification } from './types';

/** Rows read per query when the verifier walks a stream. */
const VERIFY_PAGE = 5000;

/**
 * The chain verifier (docs/guarantees.md §8): recomputes every stored event's hash and checks it
 * against its successor's `prev_hash`, the versions against the stream head, and the global
 * positions against the counter, from the stored rows (not upcast), in one read-only
 * REPEATABLE READ snapshot. It reports what it finds; it never repairs.
 */
export class ChainVerifier {
  /**
   * @param ds an initialised, migrated DataSource
   * @param log where a failed verification is logged (`warn`, the first 20 problems)
   * @param statementTimeoutMs statement timeout of its queries, in ms (none: the connection's own)
   * @throws Error when `statementTimeoutMs` is not a positive integer
   */
  constructor(
    private readonly ds: DataSource,
    private readonly log: LedgerLogger,
    private readonly statementTimeoutMs?: number,
  ) {
    if (statementTimeoutMs !== undefined && !(Number.isSafeInteger(statementTimeoutMs) && statementTimeoutMs > 0)) {
      throw new Error(`statementTimeoutMs must be a positive integer, got ${statementTimeoutMs}`);
    }
  }

  /**
   * Recomputes the hash chain of one stream, or of every stream of a table, from the stored rows
   * (docs/guarantees.md §8), in one read-only snapshot. Finds altered events (`HASH_MISMATCH`), events whose
   * predecessor was altered, replaced or removed (`PREV_HASH_MISMATCH`), missing versions, also at the
   * tail against the `streams` head (`VERSION_GAP`), and global positions that do not grow along the
   * stream (`POSITION_GAP`).
   * @param target a stream id, or `{ tableId }` for all streams of that table
   */
  async verifyChain(target: string | { readonly tableId: string }): Promise<ChainVerification> {
    return this.inSnapshot(async (qr) => {
      const streamIds =
        typeof target === 'string'
          ? [target]
          : (
              await qr.query(
                `SELECT stream_id FROM streams WHERE table_id = $1
                 UNION SELECT DISTINCT stream_id FROM events WHERE table_id = $1 ORDER BY 1`,
                [target.tableId],
              )
            ).map((r: { stream_id: string }) => r.stream_id);
      return this.verifyStreams(qr, streamIds, []);
    });
  }

  /**
   * {@link verifyChain} over every stream, plus the global check of the positions (`POSITION_GAP`):
   * up to the relay's progress each is an event or a recorded hole, none above the sequence. Reads the whole ledger in one
   * REPEATABLE READ snapshot: an audit job, not a request path.
   */
  async verifyAll(): Promise<ChainVerification> {
    return this.inSnapshot(async (qr) => {
      const streamIds = (await qr.query(`SELECT stream_id FROM streams UNION SELECT DISTINCT stream_id FROM events ORDER BY 1`)).map((r: { stream_id: string }) => r.stream_id);
      const problems = await this.positionProblems(qr);
      return this.verifyStreams(qr, streamIds, problems);
    });
  }

  /**
   * The chain of one stream checked from a head verified earlier (docs/guarantees.md §8, "What
   * recall proves"): proves that the stored event at `since.version` still carries `since.hash`,
   * then verifies every event after it exactly as {@link verifyChain} does (hash, `prev_hash` link
   * from `since.hash`, versions, positions, the `streams` head). Events up to `since.version` are
   * not re-hashed: an edit there that leaves every stored hash as it was is found by the full
   * check ({@link verifyChain}, `GET /shoes/{id}/chain`), not here. When the event at
   * `since.version` is gone or carries another hash, the whole stream is verified instead and a
   * `HASH_MISMATCH` at that version is reported with what the full walk finds.
   * @param since the last version and hash a successful verification of this stream ended on, or
   *   null to verify the whole stream
   * @returns the verification, `verifiedFrom` the version it started after (0: the whole
   *   stream) and `head` the version and hash of the last event read (version 0 and the genesis
   *   hash for an empty stream)
   */
  async verifyStreamSince(streamId: string, since: VerifiedHead | null): Promise<IncrementalChainVerification> {
    return this.inSnapshot(async (qr) => {
      const problems: ChainProblem[] = [];
      let start: WalkStart = GENESIS_START;
      if (since !== null && since.version > 0) {
        const [at] = await qr.query(`SELECT hash, global_position::text AS global_position FROM events WHERE stream_id = $1 AND stream_version = $2`, [streamId, since.version]);
        if (at && at.hash === since.hash) {
          start = { version: since.version, hash: since.hash, position: BigInt(at.global_position) };
        } else {
          problems.push({
            streamId,
            streamVersion: since.version,
            eventId: null,
            kind: 'HASH_MISMATCH',
            detail: at ? `the event at version ${since.version} now carries hash ${at.hash}, but ${since.hash} was verified there` : `the event at version ${since.version}, verified with hash ${since.hash}, is gone`,
          });
        }
      }
      const walk = await this.verifyStream(qr, streamId, problems, start);
      if (problems.length > 0) {
        this.log.warn({ problems: problems.slice(0, 20), count: problems.length }, 'hash chain verification failed');
      }
      return {
        ok: problems.length === 0,
        streamsChecked: 1,
        eventsChecked: walk.count,
        problems,
        verifiedFrom: start.version,
        head: { version: walk.version, hash: walk.hash },
      };
    });
  }

  private async inSnapshot<T>(work: (qr: QueryRunner) => Promise<T>): Promise<T> {
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        // an integer checked in the constructor: SET takes no bind parameters
        if (this.statementTimeoutMs !== undefined) await qr.query(`SET LOCAL statement_timeout = ${this.statementTimeoutMs}`);
        return await work(qr);
      } finally {
        await qr.query('ROLLBACK').catch(() => undefined);
      }
    } finally {
      await qr.release();
    }
  }

  private async verifyStreams(qr: QueryRunner, streamIds: readonly string[], problems: ChainProblem[]): Promise<ChainVerification> {
    let eventsChecked = 0;
    for (const streamId of streamIds) eventsChecked += (await this.verifyStream(qr, streamId, problems)).count;
    if (problems.length > 0) {
      this.log.warn({ problems: problems.slice(0, 20), count: problems.length }, 'hash chain verification failed');
    }
    return { ok: problems.length === 0, streamsChecked: streamIds.length, eventsChecked, problems };
  }

  /**
   * Walks one stream in version order from `from` (default: its first event); pushes what it finds;
   * returns the number of events read and the last one's version and hash.
   */
  private async verifyStream(qr: QueryRunner, streamId: string, problems: ChainProblem[], from: WalkStart = GENESIS_START): Promise<StreamWalk> {
    const headRows = await qr.query(`SELECT version, last_hash FROM streams WHERE stream_id = $1`, [streamId]);
    let expectedVersion = from.version + 1;
    let prevHash = from.hash;
    let prevPosition: bigint | null = from.position;
    let lastVersionRead = from.version;
    let count = 0;
    for (;;) {
      const rows: EventRow[] = await qr.query(
        `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.stream_id = $1 AND e.stream_version > $2
          ORDER BY e.stream_version LIMIT ${VERIFY_PAGE}`,
        [streamId, lastVersionRead],
      );
      for (const row of rows) {
        const e = rowToEnvelope(row);
        const at = { streamId, streamVersion: e.streamVersion, eventId: e.eventId };
        if (e.streamVersion !== expectedVersion) {
          problems.push({
            ...at,
            streamVersion: expectedVersion,
            kind: 'VERSION_GAP',
            detail: `versions ${expectedVersion}..${e.streamVersion - 1} missing before event ${e.eventId} (version ${e.streamVersion})`,
          });
        }
        if (e.prevHash !== prevHash) {
          problems.push({
            ...at,
            kind: 'PREV_HASH_MISMATCH',
            detail: `prev_hash ${e.prevHash} but the preceding stored event hashes to ${prevHash}`,
          });
        }
        const recomputed = computeEventHash(e);
        if (recomputed !== e.hash) {
          problems.push({ ...at, kind: 'HASH_MISMATCH', detail: `stored hash ${e.hash}, recomputed ${recomputed}` });
        }
        const position = BigInt(e.globalPosition);
        if (prevPosition !== null && position <= prevPosition) {
          problems.push({
            ...at,
            kind: 'POSITION_GAP',
            detail: `global position ${position} not after its predecessor's ${prevPosition}`,
          });
        }
        prevPosition = position;
        prevHash = e.hash;
        expectedVersion = e.streamVersion + 1;
        lastVersionRead = e.streamVersion;
        count++;
      }
      if (rows.length < VERIFY_PAGE) break;
    }
    headProblems(streamId, headRows[0], { count, version: lastVersionRead, hash: prevHash }, expectedVersion, problems);
    return { count, version: lastVersionRead, hash: prevHash };
  }

  /** The global-position check ({@link checkGlobalPositions}) as chain problems (`POSITION_GAP`). */
  private async positionProblems(qr: QueryRunner): Promise<ChainProblem[]> {
    return (await checkGlobalPositions((sql, params) => qr.query(sql, params))).map((p) => ({
      streamId: p.streamId,
      streamVersion: p.streamVersion,
      eventId: p.eventId,
      kind: 'POSITION_GAP' as const,
      detail: p.detail,
    }));
  }
}

/** A stream's last version and the hash of its event there, as a successful verification left them. */
export interface VerifiedHead {
  /** Stream version (1-based; 0 = before the first event). */
  readonly version: number;
  /** The hash of the event at that version (the genesis hash at version 0). */
  readonly hash: string;
}

/** What {@link ChainVerifier.verifyStreamSince} answers. */
export interface IncrementalChainVerification extends ChainVerification {
  /** The version the walk started after: 0 when the whole stream was verified. */
  readonly verifiedFrom: number;
  /** The version and hash of the last event read (where the next verification may start). */
  readonly head: VerifiedHead;
}

/** Where a walk of a stream starts: after `version`, whose event hashes to `hash` at `position`. */
interface WalkStart {
  readonly version: number;
  readonly hash: string;
  readonly position: bigint | null;
}

/** What a walk of one stream found: events read, the last one's version and hash. */
interface StreamWalk {
  readonly count: number;
  readonly version: number;
  readonly hash: string;
}

const GENESIS_START: WalkStart = { version: 0, hash: GENESIS_HASH, position: null };

/**
 * What the `streams` head row of a walked stream shows against the walk: versions missing after the
 * last event read, a `last_hash` other than the last event's, or events without a head row.
 * @param head the stream's row of `streams`, if any
 * @param expectedVersion the version that would follow the last event read
 */
function headProblems(streamId: string, head: { version: number; last_hash: string } | undefined, walk: StreamWalk, expectedVersion: number, problems: ChainProblem[]): void {
  if (head) {
    const headVersion: number = head.version;
    if (headVersion >= expectedVersion) {
      problems.push({
        streamId,
        streamVersion: expectedVersion,
        eventId: null,
        kind: 'VERSION_GAP',
        detail: `the stream is at version ${headVersion} but versions ${expectedVersion}..${headVersion} are missing`,
      });
    } else if (headVersion === walk.version && head.last_hash !== walk.hash) {
      problems.push({
        streamId,
        streamVersion: walk.version,
        eventId: null,
        kind: 'HASH_MISMATCH',
        detail: `streams.last_hash ${head.last_hash} differs from the last event's hash ${walk.hash}`,
      });
    }
  } else if (walk.count > 0) {
    problems.push({
      streamId,
      streamVersion: null,
      eventId: null,
      kind: 'VERSION_GAP',
      detail: 'events exist but the stream has no head row in streams',
    });
  }
}
