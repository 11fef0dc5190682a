import { IntVar, OneOfVar } from '../env-var';
import { CommonEnv, WithDatabase, WithKafka, WithLogging, WithRelayDatabase } from './common';

/** Where a test makes a process die with 137 (`before-send`: rows claimed, nothing sent; `after-send`: sent, not marked). */
export const CRASH_POINTS = ['before-send', 'after-send'] as const;
/** `before-send` | `after-send`. */
export type CrashPointName = (typeof CRASH_POINTS)[number];

/** The outbox relay's configuration (`apps/relay`; docs/architecture.md §5), read once at start. */
export class RelayEnv extends WithKafka(WithRelayDatabase(WithDatabase(WithLogging(CommonEnv)))) {
  /**
   * Outbox rows the relay claims and publishes per transaction.
   * @default 500
   */
  @IntVar(1, 500, 'rows')
  RELAY_BATCH_SIZE: number = 500;

  /**
   * Fallback poll of the outbox when no NOTIFY arrived (LISTEN/NOTIFY wakes the relay at once), in milliseconds.
   * @default 200
   */
  @IntVar(10, 60_000, 'ms')
  RELAY_POLL_INTERVAL_MS: number = 200;

  /** Tests only: the relay exits with 137 at this point of a batch. */
  @OneOfVar(CRASH_POINTS, { optional: true })
  RELAY_CRASH_POINT?: CrashPointName;
}
