import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';

/**
 * Leadership by a lease row in PostgreSQL (docs/guarantees.md §4, "one publisher at a time"): the
 * row `(name, holder, generation, expires_at)` of a lease table (`public.outbox_leases` for the relay
 * and the anchor publisher, `<schema>.outbox_leases` for a read model's analytics publisher).
 *
 * - **Acquire**: an instance takes the lease when it has no row, the row has expired, or the
 *   holder's PostgreSQL session is gone (`holder_pid` / `holder_session_start` no longer in
 *   `pg_stat_activity`: the holder was killed or its connection dropped, so a standby need not
 *   wait out the TTL; a session of another role whose start PostgreSQL hides counts as alive); the generation goes up by one at every acquisition (by anyone).
 * - **Renew**: the holder pushes `expires_at` to `clock_timestamp() + ttlMs` while it makes progress
 *   (each loop iteration, before each send, and in each mark transaction), and records its current
 *   session (`holder_pid`, `holder_session_start`). A holder that stops
 *   renewing (frozen by SIGSTOP, partitioned, stuck on a dead broker) has lost the lease `ttlMs`
 *   after its last renewal, and a standby takes it with generation + 1.
 *   A frozen holder's session stays open (the process is stopped, not gone), so only the TTL
 *   deposes it.
 * - **Fence**: {@link Lease.fence} renews the row inside the caller's transaction, matching
 *   `name`, `holder` and `generation` (the fencing token); when no row matches the caller must roll
 *   back. The UPDATE keeps the row locked until COMMIT, so no acquisition can slip in between the
 *   check and the commit: a deposed holder can never mark outbox rows. A holder whose lease ran out
 *   but that nobody took over (same generation) may renew it: no other instance can have led
 *   meanwhile, and a lone relay whose send to a slow broker outlasted the TTL must still be able
 *   to mark what the broker acknowledged (else it would send the batch again and again).
 *
 * Every time is PostgreSQL's (`clock_timestamp()`), never the process's: the processes' clocks may
 * disagree, the database's is the one both sides read. Times in milliseconds.
 */

/** This session's pid and start, as the lease row records its holder's session. */
const SESSION = `pg_backend_pid(), (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())`;

/** Default lease time-to-live, in milliseconds: a frozen leader loses leadership this long after its last renewal. */
export const DEFAULT_LEASE_TTL_MS = 5000;

/** Thrown by {@link Lease.renew} / {@link Lease.fence} when this instance no longer holds the lease (expired, or taken by another). */
export class LeaseLostError extends Error {
  constructor(
    readonly leaseName: string,
    readonly generation: string | null,
  ) {
    super(`lease ${leaseName} (generation ${generation ?? 'none'}) is no longer held by this instance`);
    this.name = 'LeaseLostError';
  }
}

/** Options of {@link Lease}. */
export interface LeaseOptions {
  /** Qualified, already-quoted table name, e.g. `outbox_leases` or `"read".outbox_leases`. */
  readonly table: string;
  /** The lease's name (one row per name), e.g. `ledger-relay`. */
  readonly name: string;
  /** Time-to-live of one renewal, in milliseconds (≥ 1). @default {@link DEFAULT_LEASE_TTL_MS} */
  readonly ttlMs?: number;
  /** Identity of this instance. @default `<hostname>:<pid>:<random 8 hex>` */
  readonly holder?: string;
}

/** A row of the lease table, as {@link Lease.read} returns it (times as ISO strings of the database). */
export interface LeaseRow {
  readonly name: string;
  readonly holder: string;
  /** Decimal string (bigint). */
  readonly generation: string;
  readonly expiresAt: string;
  /** Whether `expires_at > clock_timestamp()` at the time of reading. */
  readonly live: boolean;
}

/**
 * One instance's handle on a lease row (see the file's doc). Stateless but for the generation it
 * holds; every method runs one statement on the given session.
 */
export class Lease {
  readonly table: string;
  readonly name: string;
  readonly ttlMs: number;
  readonly holder: string;
  private gen: string | null = null;

  /** @param options table, name, ttl, holder id */
  constructor(options: LeaseOptions) {
    this.table = options.table;
    this.name = options.name;
    this.ttlMs = Math.max(1, Math.floor(options.ttlMs ?? DEFAULT_LEASE_TTL_MS));
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  /** The generation this instance holds (decimal string), or null when it holds none. */
  get generation(): string | null {
    return this.gen;
  }

  /** Forgets the generation held (after a lost lease or a dropped session); no SQL. */
  forget(): void {
    this.gen = null;
  }

  /**
   * Takes the lease when it is free (no row, or expired by the database's clock); with `force`,
   * takes it even from a live holder (an operator's tool fencing the publishers out, e.g.
   * `npm run republish`). Autocommit: run it outside a transaction.
   * @returns the new generation (decimal string), or null when another instance holds a live lease
   */
  async acquire(client: Client, options: { force?: boolean } = {}): Promise<string | null> {
    const { rows } = await client.query<{ generation: string }>(
      `INSERT INTO ${this.table} AS l (name, holder, generation, acquired_at, renewed_at, expires_at, holder_pid, holder_session_start)
       VALUES ($1, $2, 1, clock_timestamp(), clock_timestamp(), clock_timestamp() + $3 * interval '1 millisecond', ${SESSION})
       ON CONFLICT (name) DO UPDATE
          SET holder = EXCLUDED.holder, generation = l.generation + 1, acquired_at = clock_timestamp(),
              renewed_at = clock_timestamp(), expires_at = EXCLUDED.expires_at,
              holder_pid = EXCLUDED.holder_pid, holder_session_start = EXCLUDED.holder_session_start
        WHERE $4::boolean OR l.expires_at <= clock_timestamp()
           OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a
                           WHERE a.pid = l.holder_pid AND (a.backend_start = l.holder_session_start OR a.backend_start IS NULL))
       RETURNING generation::text AS generation`,
      [this.name, this.holder, this.ttlMs, options.force === true],
    );
    this.gen = rows[0]?.generation ?? null;
    return this.gen;
  }

  /**
   * Renews the lease this instance holds (autocommit, or inside a transaction: then the row stays
   * locked until it ends, see {@link fence}).
   * @throws LeaseLostError when it holds none, or the row has another holder / generation (taken over)
   */
  async renew(client: Client): Promise<void> {
    const gen = this.gen;
    if (gen === null) throw new LeaseLostError(this.name, null);
    const { rowCount } = await client.query(
      `UPDATE ${this.table}
          SET renewed_at = clock_timestamp(), expires_at = clock_timestamp() + $4 * interval '1 millisecond',
              (holder_pid, holder_session_start) = (SELECT ${SESSION})
        WHERE name = $1 AND holder = $2 AND generation = $3::bigint`,
      [this.name, this.holder, gen, this.ttlMs],
    );
    if (rowCount !== 1) {
      this.gen = null;
      throw new LeaseLostError(this.name, gen);
    }
  }

  /**
   * The fencing check of a transaction that changes what the lease guards (marking outbox rows
   * published): {@link renew} inside the caller's open transaction. On a throw the caller must roll
   * back; on success the lease row stays locked by this transaction until COMMIT/ROLLBACK.
   * @throws LeaseLostError as {@link renew}
   */
  async fence(client: Client): Promise<void> {
    await this.renew(client);
  }

  /** Gives the lease up (expires it now) when this instance holds it, so a standby takes over at its next try. Never throws. */
  async release(client: Client | null): Promise<void> {
    const gen = this.gen;
    this.gen = null;
    if (gen === null || client === null) return;
    await client.query(`UPDATE ${this.table} SET expires_at = clock_timestamp() WHERE name = $1 AND holder = $2 AND generation = $3::bigint`, [this.name, this.holder, gen]).catch(() => undefined);
  }

  /** The lease's row, or null when it was never taken (monitoring, tests). */
  async read(client: Client): Promise<LeaseRow | null> {
    const { rows } = await client.query<{ name: string; holder: string; generation: string; expires_at: Date; live: boolean }>(
      `SELECT name, holder, generation::text AS generation, expires_at, expires_at > clock_timestamp() AS live FROM ${this.table} WHERE name = $1`,
      [this.name],
    );
    const r = rows[0];
    return r ? { name: r.name, holder: r.holder, generation: r.generation, expiresAt: r.expires_at.toISOString(), live: r.live } : null;
  }
}
