import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { hostname } from 'node:os';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import type { PgEventStore } from '@ledger/event-store';
import type { ClockAttestedData, LedgerEvent } from '@ledger/events';
import { catalogueGauge } from '@ledger/metrics';
import { DATA_SOURCE, EVENT_STORE } from '../kernel/tokens';
import { first } from '../kernel/sql';
import { CloseRecords } from '../kernel/closes/close-records';
import { readTimeSync, SYSTEM_PROBES, type TimeSyncProbes } from '../kernel/clock/time-sync';
import type { GamingDayConfig } from '@ledger/projections';
import { appendToGamingDay } from './day-append';

const lastAttested = catalogueGauge('clockAttested');
const databaseOffset = catalogueGauge('clockDatabaseOffset');

/** The actor of every `ClockAttested` event. */
export const CLOCK_ATTESTOR = { id: 'clock-attestor', role: 'system' } as const;

/**
 * The API's clock attestation (docs/architecture.md §9, "Time the ledger vouches for"; 13 Miss. Code
 * R. 8-4.5): at start, then every `CLOCK_ATTESTATION_INTERVAL_MS` (a day by default; 0: never), a
 * `ClockAttested` event — what the machine's time synchronisation reports ({@link readTimeSync}), the
 * API's clock and PostgreSQL's `clock_timestamp()` and their offset — appended through the one append
 * function to the current gaming day's stream (hash-chained, on Kafka, anchored, verified like every
 * event). Sets `ledger_clock_last_attested_timestamp_seconds` and `ledger_clock_database_offset_seconds`.
 * A failed attestation is logged, never fatal: the API starts without a time-sync service, and the
 * alert `LedgerClockAttestationMissing` (docker/prometheus/alerts.yml) fires after 25 hours without one.
 */
@Injectable()
export class ClockAttestor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ClockAttestor');
  private readonly everyMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<LedgerEvent<'ClockAttested'> | null> | null = null;
  private started: Promise<LedgerEvent<'ClockAttested'> | null> = Promise.resolve(null);
  private readonly dayRule: GamingDayConfig;

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    private readonly records: CloseRecords,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.everyMs = config.get('CLOCK_ATTESTATION_INTERVAL_MS', { infer: true });
    this.dayRule = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
  }

  onApplicationBootstrap(): void {
    if (this.everyMs === 0) return;
    this.started = this.attestLogged('START');
    this.timer = setInterval(() => void this.attestLogged('PERIODIC'), this.everyMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.started;
    await this.running;
  }

  /** The start attestation's event (null when attestation is off or it failed: see the log). */
  whenStarted(): Promise<LedgerEvent<'ClockAttested'> | null> {
    return this.started;
  }

  /**
   * Reads the clocks and appends one `ClockAttested` event to the current gaming day's stream.
   * @param probes how the time-sync service is read (tests give their own)
   * @returns the event recorded
   * @throws what the database read or the append throws (ConcurrencyError after three lost races)
   */
  async attest(reason: ClockAttestedData['reason'], probes: TimeSyncProbes = SYSTEM_PROBES): Promise<LedgerEvent<'ClockAttested'>> {
    const sync = await readTimeSync(probes);
    // the API's clock at the middle of the database's round trip: the offset is not biased by it
    const before = Date.now();
    const row = await first<{ at: string }>(this.ds, `SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`);
    const ledgerMs = before + Math.floor((Date.now() - before) / 2);
    const databaseClock = row!.at;
    const data: ClockAttestedData = {
      host: hostname().slice(0, 200) || 'unknown',
      reason,
      source: sync.source,
      synchronised: sync.synchronised,
      ledgerClock: new Date(ledgerMs).toISOString(),
      databaseClock,
      offsetMs: Date.parse(databaseClock) - ledgerMs,
    };
    const event = await this.append(data);
    lastAttested.set(Date.parse(data.ledgerClock) / 1000);
    databaseOffset.set(data.offsetMs / 1000);
    return event;
  }

  private append(data: ClockAttestedData): Promise<LedgerEvent<'ClockAttested'>> {
    return appendToGamingDay({ store: this.store, records: this.records, dayRule: this.dayRule, at: data.ledgerClock, type: 'ClockAttested', data, actor: CLOCK_ATTESTOR });
  }

  private attestLogged(reason: ClockAttestedData['reason']): Promise<LedgerEvent<'ClockAttested'> | null> {
    const run = (async () => {
      await this.running;
      try {
        const e = await this.attest(reason);
        const d = e.data;
        this.logger.log(`clocks attested (${reason}): ${d.source}; database − ledger ${d.offsetMs} ms`);
        return e;
      } catch (err) {
        this.logger.warn(`clock attestation (${reason}) failed: ${(err as Error).message}`);
        return null;
      }
    })();
    this.running = run;
    return run;
  }
}
