import type { Client } from 'pg';

/** Name of the relay's row in `outbox_progress`. */
export const RELAY_PROGRESS_NAME = 'ledger-relay';

/** How long one {@link CommitHorizon.advance} waits for the transactions of its candidate to end, in ms. */
export const HORIZON_WAIT_MS = 50;

/** Pause between two looks at the candidate's transactions, in ms. */
const HORIZON_POLL_MS = 2;

/**
 * The commit-order horizon of the global positions (docs/guarantees.md §5; migration
 * `1797000000000-AppendWithoutGlobalLock`): the highest position P such that every position ≤ P is
 * final — held by a committed event, or by an append that ended without committing (a hole). Events
 * at or below it can be published in position order without ever skipping one that commits late.
 *
 * How: read the sequence's last value L, then the transactions of this database that hold a write
 * lock on `streams` or `events` (`pg_locks`: RowShareLock from the stream's `FOR UPDATE`,
 * RowExclusiveLock from an insert), by their 64-bit ids. Every append holding a position ≤ L locked its stream before it
 * took the position and keeps that lock until it ends, so it is over or in that list. Once every
 * transaction of the list has ended for new snapshots (`pg_visible_in_snapshot`), L is final. Transactions
 * of other databases and of other tables (the projector's, a long report) never delay it; a slow
 * append does, by its own length. {@link advance} waits at most {@link HORIZON_WAIT_MS} and otherwise
 * keeps the candidate for its next call.
 *
 * Its state belongs to one session: a call with another `client` (the relay reconnected, after a
 * PostgreSQL crash and restart especially) starts again from nothing. A crash can take back sequence
 * values handed to appends that never committed (nextval's WAL record is flushed only by a later
 * commit), so a horizon computed before it may lie beyond what the restarted sequence hands out next;
 * kept, it would let the relay record as holes positions that appends after the restart then commit
 * into (`EVENT_IN_HOLE`).
 *
 * One instance per user (the relay's publisher, a republish run). Not thread-safe.
 */
export class CommitHorizon {
  private safe: bigint | null = null;
  private candidate: { readonly last: bigint; readonly xids: readonly string[] } | null = null;
  /** The session {@link safe} and {@link candidate} were read on. */
  private session: Client | null = null;

  /**
   * Moves the horizon as far as it can now and returns it.
   * @param client a session of a role with SELECT on `events_global_position_seq` (the relay's);
   *   another session than the last call's forgets everything known so far (see the class comment)
   * @param waitMs longest wait for the candidate's transactions, in ms
   * @returns the horizon (a position; 0 when no position was ever taken)
   */
  async advance(client: Client, waitMs: number = HORIZON_WAIT_MS): Promise<bigint> {
    if (client !== this.session) {
      this.reset();
      this.session = client;
    }
    if (this.candidate === null) this.candidate = await takeCandidate(client);
    const deadline = performance.now() + waitMs;
    let advanced = false;
    for (;;) {
      if (await allEnded(client, this.candidate.xids)) {
        if (this.safe === null || this.candidate.last > this.safe) this.safe = this.candidate.last;
        const previous = this.candidate.last;
        this.candidate = await takeCandidate(client);
        if (this.candidate.last === previous) return this.safe; // nothing taken since: as far as it goes
        advanced = true;
        continue; // often final at once (no append in flight): look once more
      }
      // something to publish already, or waited long enough: the next call looks again
      if (advanced || performance.now() >= deadline) return this.safe ?? 0n;
      await new Promise((r) => setTimeout(r, HORIZON_POLL_MS));
    }
  }

  /** Forgets everything (a new session does so by itself, see {@link advance}). */
  reset(): void {
    this.safe = null;
    this.candidate = null;
    this.session = null;
  }
}

async function takeCandidate(client: Client): Promise<{ last: bigint; xids: string[] }> {
  const l = await client.query<{ last: string | null }>(`SELECT pg_sequence_last_value('events_global_position_seq')::text AS last`);
  // (a second statement: the locks are looked at after L was read.) pg_locks names a transaction by
  // its 32-bit id; it is widened to the 64-bit id (xid8) next to the current snapshot's xmax, which
  // every running transaction is within 2^31 of. Not by matching the snapshot's list of running ids
  // (pg_snapshot_xip): that list holds only ids below the snapshot's xmax (the latest completed id
  // + 1), so the newest writers — running, but above every completed id — were never in it and the
  // horizon passed their positions (EVENT_IN_HOLE; test/fault/horizon-race.int.spec.ts). A writer
  // that began after L was read is waited for too: it holds no position ≤ L, and costs only its own length.
  const x = await client.query<{ xids: string[] }>(
    `WITH writers AS (
       SELECT DISTINCT t.transactionid::text::bigint AS xid32
         FROM pg_locks r
         JOIN pg_locks t ON t.pid = r.pid AND t.locktype = 'transactionid' AND t.mode = 'ExclusiveLock' AND t.granted
        WHERE r.locktype = 'relation' AND r.granted AND r.pid <> pg_backend_pid()
          AND r.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND r.relation IN ('streams'::regclass, 'events'::regclass)
          AND r.mode IN ('RowShareLock', 'RowExclusiveLock')),
     s AS (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax),
     widened AS (SELECT (s.xmax - s.xmax % 4294967296) + w.xid32 AS c, s.xmax FROM writers w, s)
     SELECT coalesce(array_agg((CASE WHEN c > xmax + 2147483648 THEN c - 4294967296
                                     WHEN c < xmax - 2147483648 THEN c + 4294967296
                                     ELSE c END)::text), '{}') AS xids
       FROM widened`,
  );
  return { last: l.rows[0].last === null ? 0n : BigInt(l.rows[0].last), xids: x.rows[0].xids };
}

/**
 * Whether every transaction in `xids` (64-bit ids) has ended *for the snapshots taken from now on*:
 * none is still in progress in a snapshot taken now (`pg_visible_in_snapshot`). Not
 * `pg_xact_status`: PostgreSQL marks a commit in the commit log before it takes the transaction
 * out of the list of running ones, and in between a new snapshot still treats it as running, so
 * the batch claimed next would not see its events though the commit log says committed — on a
 * loaded machine that window let the horizon pass an append that then surfaced inside a recorded
 * hole (`EVENT_IN_HOLE`, docs/guarantees.md §5). Snapshots only move forward: a transaction ended
 * for this one has ended for the claim's.
 */
async function allEnded(client: Client, xids: readonly string[]): Promise<boolean> {
  if (xids.length === 0) return true;
  const { rows } = await client.query<{ pending: number }>(`SELECT count(*)::int AS pending FROM unnest($1::xid8[]) x WHERE NOT pg_visible_in_snapshot(x, pg_current_snapshot())`, [xids]);
  return rows[0].pending === 0;
}
