import { BoolVar, FileVar, IntVar, SecretVar, TextVar } from '../env-var';
import { CommonEnv, WithDatabase, WithGamingDay, WithEventsTopic, WithKafka, WithLogging, WithMigrations, WithMigrationsDatabase, WithReadModel } from './common';
import { WithAnchorVerification, WithAnchors } from './anchors';
import { WithSigningSecret, WithTokenPolicy, WithTokenVerification } from './tokens';
import { WithBetsBatchBudget, WithEdgeLimits, WithHeavyReads } from './edge';
import { WithSharedLimits } from './limits';
import { WithTracing } from './tracing';
import { WithGamingDayClose } from './gaming-day-close';
import { WithWalletLimits } from './wallet';

/** A ratio `N` or `N/D` of positive integers (at most 18 digits each): no sign, no decimal point. */
const RATIO = /^[1-9]\d{0,17}(\/[1-9]\d{0,17})?$/;

/**
 * Whether a confidence `N/D` is within 90/100 … 9999/10000, inclusive (exact: cross-multiplied): an
 * honest table's false-alarm rate between 1 gaming day in 10 and 1 in 10,000. The same bounds as
 * `FAIRNESS_CONFIDENCE_BOUNDS` of `@ledger/significant-events` (verify refuses an attestation outside them).
 */
const saneConfidence = (text: string): boolean => {
  const [n, d = '1'] = text.split('/');
  return BigInt(n) * 100n >= 90n * BigInt(d) && BigInt(n) * 10000n <= 9999n * BigInt(d);
};

/**
 * The ledger API's configuration (`apps/ledger`; docs/architecture.md §5), read once at start by
 * `main.ts` (or the tests' harness) and served to the Nest app by `@nestjs/config`'s `ConfigService`.
 * The anchors' variables and `KAFKA_BROKERS` serve `GET /audit/anchors/verify` (docs/architecture.md §10).
 */
export class LedgerApiEnv extends WithWalletLimits(
  WithGamingDayClose(
    WithTracing(
      WithGamingDay(
        WithHeavyReads(
          WithBetsBatchBudget(
            WithSharedLimits(
              WithEdgeLimits(
                WithAnchorVerification(
                  WithAnchors(WithKafka(WithTokenVerification(WithSigningSecret(WithTokenPolicy(WithMigrations(WithReadModel(WithEventsTopic(WithMigrationsDatabase(WithDatabase(WithLogging(CommonEnv))))))))))),
                ),
              ),
            ),
          ),
        ),
      ),
    ),
  ),
) {
  /**
   * Rows an export (`GET /exports/{kind}`, docs/reports.md §5) reads from PostgreSQL per batch
   * (keyset cursor): the most rows of an export the API holds in memory at once.
   * @default 1000
   */
  @IntVar(1, 100_000, 'rows')
  EXPORT_BATCH_ROWS: number = 1000;

  /**
   * Live streams (`GET /live/tables`) pit managers may hold open at once, over all of them (and
   * over all API instances with `LIMITS_REDIS_URL`): their
   * own share, which auditors' streams never use (a pit manager can always watch the floor). One
   * more: 429 `RATE.LIVE_STREAMS_BUSY` with scope `role`. Each caller holds at most 4.
   * @default 300
   */
  @IntVar(1, 100_000, 'streams')
  LIVE_STREAMS_PIT_MANAGERS: number = 300;

  /**
   * Live streams auditors may hold open at once, over all of them (their own share; see
   * `LIVE_STREAMS_PIT_MANAGERS`).
   * @default 200
   */
  @IntVar(1, 100_000, 'streams')
  LIVE_STREAMS_AUDITORS: number = 200;

  /**
   * TCP port the API listens on.
   * @default 3000
   */
  @IntVar(1, 65_535)
  PORT: number = 3000;

  /**
   * Address the API listens on.
   * @default 127.0.0.1
   */
  @TextVar(/^[A-Za-z0-9.:_-]{1,253}$/, 'a host name or an IP address')
  HOST: string = '127.0.0.1';

  /**
   * The tables: variant, decks, paytable, currency, limits per bet code (validated at start).
   * @default config/tables.json
   */
  @FileVar('the path of an existing JSON file')
  TABLES_FILE: string = 'config/tables.json';

  /**
   * Log one line per HTTP request (with the correlation id).
   * @default false
   */
  @BoolVar()
  HTTP_ACCESS_LOG: boolean = false;

  /**
   * Shoe states kept folded in memory (LRU), in shoes.
   * @default 256
   */
  @IntVar(1, 100_000, 'shoes')
  SHOE_CACHE_SIZE: number = 256;

  /**
   * Memory budget of the folded shoe states kept in memory, in bytes: the sum of their estimated
   * sizes (~440 B per bet, ~170 B per settlement, docs/architecture.md §3) never exceeds it; the
   * least recently used shoes are dropped first, and a shoe larger than the whole budget is not kept
   * (each command on it then folds from its snapshot). 48 MiB by default: a third of the API's
   * heap (`--max-old-space-size`, SERVICE_HEAP_MIB in libs/config/src/heap.ts), the rest left to
   * the requests in flight (a 10,000-bet batch and its settlement).
   * @default 50331648
   */
  @IntVar(1_048_576, 68_719_476_736, 'bytes')
  SHOE_CACHE_MAX_BYTES: number = 50_331_648;

  /**
   * Events between two snapshots of a shoe stream's folded state (table `stream_snapshots`,
   * docs/architecture.md §3), at least: a snapshot is written after the append that ends a round
   * once this many events, or half the stream's version at the last snapshot if more, were appended
   * since the last one (or after any append once four times as many were), and a cache miss folds
   * only the events after the latest genuine snapshot. 0: none written (a miss folds the whole stream).
   * @default 2000
   */
  @IntVar(0, 10_000_000, 'events')
  SHOE_SNAPSHOT_EVERY: number = 2000;

  /**
   * HMAC-SHA256 key of the shoe snapshots, at least 32 bytes (`openssl rand -base64 48`): a snapshot
   * whose MAC does not verify is refused and the stream folded from its events (docs/guarantees.md
   * §8), so the database login alone cannot plant a state. Every API instance of a ledger should
   * share it; when unset, each process draws a random key at start, so snapshots serve only the
   * process that wrote them (others' are skipped, not refused).
   */
  @SecretVar(32, 'a secret of at least 32 bytes', { optional: true })
  SHOE_SNAPSHOT_KEY?: string;

  /**
   * How long a requested management decision waits for a second pit manager's approval before it
   * expires (docs/domain-rules.md §6), in ms.
   * @default 1800000
   */
  @IntVar(1_000, 604_800_000, 'ms')
  DECISION_TTL_MS: number = 1_800_000;

  /**
   * How often the API records the expiry of pending decisions past their time, in ms.
   * @default 30000
   */
  @IntVar(200, 3_600_000, 'ms')
  DECISION_EXPIRY_SWEEP_MS: number = 30_000;

  /**
   * How long an `Idempotency-Key` is kept, in days (docs/guarantees.md §3): a retry by the same
   * caller within it gets the first answer; after it the key may be used again, and the API deletes
   * expired keys (at start, then hourly).
   * @default 7
   */
  @IntVar(1, 3650, 'days')
  IDEMPOTENCY_RETENTION_DAYS: number = 7;

  /**
   * How far in the future (by the ledger's clock) a write's `occurredAt` may be, in milliseconds;
   * also how much earlier than the shoe's opening a later fact may say it happened (clock skew
   * between a device and the ledger). Further out: 422 `TIME.OCCURRED_AT_OUT_OF_RANGE`.
   * @default 5000
   */
  @IntVar(0, 3_600_000, 'ms')
  OCCURRED_AT_MAX_SKEW_MS: number = 5000;

  /**
   * How old the `occurredAt` of a shoe's opening may be, in milliseconds; the facts and bets after
   * it may not be earlier than it. Older: 422 `TIME.OCCURRED_AT_OUT_OF_RANGE`.
   * @default 86400000
   */
  @IntVar(60_000, 2_592_000_000, 'ms')
  OCCURRED_AT_MAX_AGE_MS: number = 86_400_000;

  /**
   * How often the API attests its clocks, in ms (docs/architecture.md §9, "Time the ledger vouches
   * for"; 13 Miss. Code R. 8-4.5 asks every clock synchronised at least once every 24 hours): at
   * start and then at this interval it appends a `ClockAttested` event (what the machine's time
   * synchronisation reports, its own clock and the database's). 0: never (the test suites only;
   * the alert `LedgerClockAttestationMissing` fires after 25 hours without one).
   * @default 86400000
   */
  @IntVar(0, 86_400_000, 'ms')
  CLOCK_ATTESTATION_INTERVAL_MS: number = 86_400_000;

  /**
   * Whether the API attests its configuration at start (docs/significant-events.md, "Configuration
   * at start"): a `ConfigurationAttested` event with fingerprints of its tables, of the paytables it
   * knows, the ids of its keys (never a secret) and its significant-event settings, which the
   * significant-event monitor compares with the previous one (`CONFIG.TABLES_CHANGED`,
   * `CONFIG.PAYTABLES_CHANGED`, `CONFIG.KEYS_ROTATED`, `CONFIG.SIGNIFICANT_SETTINGS_CHANGED`) and
   * verify detects raises again with (without one: the defaults of those settings).
   * `false`: the test suites and load runs only (as `CLOCK_ATTESTATION_INTERVAL_MS` 0).
   * @default true
   */
  @BoolVar()
  CONFIGURATION_ATTESTATION: boolean = true;

  // --- the significant events raised as ledger facts (docs/significant-events.md, "Raised as facts")

  /**
   * Run the significant-event monitor in this API process: a consumer (group
   * `SIGNIFICANT_MONITOR_GROUP`) of `LEDGER_EVENTS_TOPIC` that appends a `SignificantEventRaised` for
   * each significant event of the catalogue a ledger event raises. Several API instances share the
   * topic's partitions; a cause delivered twice raises once. `false`: nothing is raised.
   * @default true
   */
  @BoolVar()
  SIGNIFICANT_MONITOR: boolean = true;

  /**
   * The Kafka consumer group of the significant-event monitor.
   * @default ledger-significant-events
   */
  @TextVar(/^[A-Za-z0-9._-]{1,200}$/, 'a consumer group id (letters, digits, . _ -)')
  SIGNIFICANT_MONITOR_GROUP: string = 'ledger-significant-events';

  /**
   * The window of the flood bound, in seconds (docs/significant-events.md, "Floods are bounded"):
   * the significant events raised by refusals (`CARD.WRONG`, `CARD.ACCOUNTING_ANOMALY`,
   * `DEVICE.CLOCK_SKEW`, `READ_MODEL.DIVERGED`) and a device's skewed facts are raised at most twice
   * per (code, device or caller, window aligned to the epoch): the window's first cause at once, the
   * rest by one raise when the window ends, carrying how many causes it stands for.
   * @default 60
   */
  @IntVar(1, 3600, 's')
  SIGNIFICANT_FLOOD_WINDOW_SECONDS: number = 60;

  /**
   * How often the API reads the projector's quarantine and projection incidents to raise
   * `RECORD.QUARANTINED` and `PROJECTION.HALTED` (the projector's role cannot append events), in ms
   * (docs/significant-events.md, "Causes").
   * @default 5000
   */
  @IntVar(100, 3_600_000, 'ms')
  SIGNIFICANT_PROJECTOR_POLL_MS: number = 5000;

  /**
   * How long a significant event of severity high or above may stay unacknowledged before it is
   * overdue, in seconds: the gauge `ledger_significant_events_overdue{severity}` counts the overdue
   * ones (counted from the stored events) and the alert `LedgerSignificantEventsOverdue` fires on it
   * (docs/significant-events.md, docs/operations.md).
   * @default 3600
   */
  @IntVar(60, 2_592_000, 's')
  SIGNIFICANT_ACK_DEADLINE_SECONDS: number = 3600;

  // --- the thresholds of the significant-event catalogue (docs/significant-events.md), which names
  // each kind's variables; a device's clock skew is bounded by OCCURRED_AT_MAX_SKEW_MS above.

  /**
   * A win whose winnings are at least this multiple of its stake is a significant event
   * (`WIN.LARGE`, docs/significant-events.md): a ratio `N` or `N/D` of positive integers, exact
   * (never a float). 100/1 catches the rarest paytable row (Tiger's twin pairs, 100:1).
   * @default 100/1
   */
  @TextVar(RATIO, 'a ratio N or N/D of positive integers')
  SIGNIFICANT_WIN_MULTIPLE: string = '100/1';

  /**
   * A win whose winnings are at least this amount, in minor units of the bet's currency (the same
   * number for every currency), is a significant event (`WIN.LARGE`, docs/significant-events.md):
   * a positive integer of decimal digits.
   * @default 1000000
   */
  @TextVar(/^[1-9]\d{0,17}$/, 'a positive integer of minor units (decimal digits, at most 18)')
  SIGNIFICANT_WIN_AMOUNT_MINOR: string = '1000000';

  /**
   * Requests refused over their budgets (429 `RATE.*`) in one minute, over all callers, at which
   * the refusals are a significant event (`RATE.LIMIT_STORM`, docs/significant-events.md).
   * @default 600
   */
  @IntVar(1, 10_000_000, 'refusals per minute')
  RATE_LIMIT_STORM_PER_MINUTE: number = 600;

  /**
   * Confidence of the fairness monitor per table per gaming day (docs/fairness.md §4): each
   * goodness-of-fit test of a table's frequencies against the PAR engine's probabilities runs at
   * the Bonferroni level (1 − confidence) / (tests budgeted a day), so an honest table raises the
   * alert (`STATISTICS.OUT_OF_BOUNDS`, docs/significant-events.md) on at most 1 − confidence of its
   * gaming days. A ratio `N/D`, exact (never a float), from 90/100 (false alarms on up to 1 gaming
   * day in 10 per table) to 9999/10000 (1 in 10,000): beyond, the tests' level is so small that a
   * rigged table passes (a confidence of 1 − 10⁻¹⁷ signs "fair" for a dealer dealing Banker
   * naturals 1 round in 10); below, most alerts are false alarms. Attested at start
   * (`ConfigurationAttested.significant`): verify computes alerts and closes again with it.
   * @default 95/100
   */
  @TextVar(RATIO, 'a ratio N/D of positive integers from 90/100 to 9999/10000', { check: saneConfidence })
  FAIRNESS_ALERT_CONFIDENCE: string = '95/100';

  /**
   * Longest time the readiness probe's commit may take, in ms (`GET /health/ready`'s `syncCommit`,
   * docs/architecture.md §8): the probe commits a transaction that writes WAL on a session of its
   * own; with a synchronous standby (docs/operations.md, "A primary with a synchronous standby") a
   * commit waits for the standby, so a standby that is down or stuck makes every write hang. A
   * commit that does not come back within this bound is cancelled and the API answers 503 with
   * `syncCommit.code` `DATABASE.SYNC_COMMIT_STALLED`. At most 1000: with the cancel that follows a stalled commit (a short session, then up to 300 ms for the commit to come back) it stays within the check's own bound of 1500, so a stall is reported with its code.
   * @default 1000
   */
  @IntVar(50, 1000, 'ms')
  READY_SYNC_COMMIT_TIMEOUT_MS: number = 1000;
}
