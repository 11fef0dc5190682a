import { WithTracing } from './tracing';
import { IntVar, OneOfVar } from '../env-var';
import { CommonEnv, WithDatabase, WithKafka, WithLogging, WithRelayHttp, WithRelayDatabase, type EnvClass } from './common';
import { WithAnchorPublisher, WithAnchors } from './anchors';
import { WithRecordSigningKey } from './record-signing';

/** Where a test makes a process die with 137 (`before-send`: rows claimed, nothing sent; `after-send`: sent, not marked). */
export const CRASH_POINTS = ['before-send', 'after-send'] as const;
/** `before-send` | `after-send`. */
export type CrashPointName = (typeof CRASH_POINTS)[number];

/** `RELAY_LEASE_TTL_MS` (the relay, its anchor publisher, `npm run -s republish`). */
export function WithRelayLease<B extends EnvClass>(Base: B) {
  class RelayLeaseEnv extends Base {
    /**
     * Lease time-to-live of the relay's leadership (and its anchor publisher's, and of
     * `npm run -s republish` while it holds the relay's lease), in milliseconds (docs/guarantees.md §4):
     * a holder that stops renewing (frozen, partitioned) loses the lease this long after its last
     * renewal, by PostgreSQL's clock, and a standby relay takes over within this plus
     * `RELAY_STANDBY_RETRY_MS`. A holder that is killed or loses its connection loses it at once.
     * @default 5000
     */
    @IntVar(1000, 120_000, 'ms')
    RELAY_LEASE_TTL_MS: number = 5000;
  }
  return RelayLeaseEnv;
}

/**
 * The outbox relay's configuration (`apps/relay`; docs/architecture.md §5), read once at start: the
 * relay itself, and its anchor publisher (docs/architecture.md §10).
 */
export class RelayEnv extends WithTracing(WithRelayHttp(WithRelayLease(WithRecordSigningKey(WithAnchorPublisher(WithAnchors(WithKafka(WithRelayDatabase(WithDatabase(WithLogging(CommonEnv)))))))))) {
  /**
   * Outbox rows the relay claims and publishes per transaction (sent in produce requests of at most
   * 512 KiB of values, one in flight). Larger batches spread the claim, the lease renewal and the
   * mark transaction over more rows when a backlog drains; a live relay's batches are as small as
   * what arrived.
   * @default 2000
   */
  @IntVar(1, 5000, 'rows')
  RELAY_BATCH_SIZE: number = 2000;

  /**
   * Fallback poll of the outbox when no NOTIFY arrived (LISTEN/NOTIFY wakes the relay at once), in milliseconds.
   * @default 200
   */
  @IntVar(10, 60_000, 'ms')
  RELAY_POLL_INTERVAL_MS: number = 200;

  /**
   * How often a standby relay tries to take the lease, in milliseconds.
   * @default 1000
   */
  @IntVar(100, 60_000, 'ms')
  RELAY_STANDBY_RETRY_MS: number = 1000;

  /**
   * Published outbox rows are deleted this long after their publication, in milliseconds (default 7 days)
   * (docs/guarantees.md §4); 0 deletes them at the next pruning. Unpublished rows are never deleted.
   * @default 604800000
   */
  @IntVar(0, 3_153_600_000_000, 'ms')
  OUTBOX_RETENTION_MS: number = 604_800_000;

  /**
   * Pause between two prunings of the outbox by the leading relay, in milliseconds (each deletes at
   * most 20,000 rows, 1,000 per statement).
   * @default 60000
   */
  @IntVar(1000, 3_600_000, 'ms')
  OUTBOX_PRUNE_INTERVAL_MS: number = 60_000;

  /** Tests only: the relay exits with 137 at this point of a batch. */
  @OneOfVar(CRASH_POINTS, { optional: true })
  RELAY_CRASH_POINT?: CrashPointName;
}
