import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { hostname } from 'node:os';
import { anchorVerifySettings, readPublicKeys } from '@ledger/anchors';
import type { LedgerApiEnv } from '@ledger/config';
import type { PgEventStore } from '@ledger/event-store';
import type { LedgerEvent } from '@ledger/events';
import type { GamingDayConfig } from '@ledger/projections';
import { BUILT_IN_PAYTABLES } from '@ledger/rules';
import { significantSettingsOf } from '@ledger/significant-events';
import { loadVerificationKeys } from '@ledger/tokens';
import { EVENT_STORE } from '../kernel/tokens';
import { CloseRecords } from '../kernel/closes/close-records';
import { ReportSigningKey } from '../kernel/closes/report-signing-key';
import { TablesRegistry } from '../kernel/tables/tables.registry';
import { configurationFingerprint } from './configuration-fingerprint';
import { appendToGamingDay } from './day-append';

/** The actor of every `ConfigurationAttested` event. */
export const CONFIGURATION_ATTESTOR = { id: 'configuration-attestor', role: 'system' } as const;

/**
 * The API's configuration attestation (docs/significant-events.md, "Configuration at start"): at
 * start, when `CONFIGURATION_ATTESTATION` is true (the default), a `ConfigurationAttested` event —
 * its tables (`TABLES_FILE`: settings, limits by digest, paytable `id@version`), the paytables it
 * knows (by content digest), and the ids of its keys: the anchors' verification keys
 * (`ANCHOR_PUBLIC_KEY_FILE`), the reports' signing key, the tokens' verification keys (ids and
 * digests only, never a secret) and the significant-event settings in force (`SIGNIFICANT_MONITOR`,
 * the `WIN.LARGE` thresholds, `OCCURRED_AT_MAX_SKEW_MS`, `FAIRNESS_ALERT_CONFIDENCE`,
 * `SIGNIFICANT_FLOOD_WINDOW_SECONDS`: what verify detects raises again with) — appended through the
 * one append function to the current gaming day's stream. The significant-event monitor compares it
 * with the previous one and raises the `CONFIG.*` kinds whose part changed. A failed attestation is logged, never fatal.
 */
@Injectable()
export class ConfigurationAttestor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ConfigurationAttestor');
  private readonly enabled: boolean;
  private readonly dayRule: GamingDayConfig;
  private started: Promise<LedgerEvent<'ConfigurationAttested'> | null> = Promise.resolve(null);

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    private readonly records: CloseRecords,
    private readonly tables: TablesRegistry,
    private readonly reportKey: ReportSigningKey,
    @Inject(ConfigService) private readonly config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.enabled = config.get('CONFIGURATION_ATTESTATION', { infer: true });
    this.dayRule = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.started = this.attest().then(
      (e) => {
        this.logger.log(`configuration attested: ${e.data.tables.length} tables, ${e.data.paytables.length} paytables, keys ${JSON.stringify(e.data.keys)}`);
        return e;
      },
      (err: unknown) => {
        this.logger.warn(`configuration attestation failed: ${(err as Error).message}`);
        return null;
      },
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.started;
  }

  /** The start attestation's event (null when attestation is off or it failed: see the log). */
  whenStarted(): Promise<LedgerEvent<'ConfigurationAttested'> | null> {
    return this.started;
  }

  /**
   * Reads what the API started with and appends one `ConfigurationAttested` to the current gaming day's stream.
   * @returns the event recorded
   * @throws what the append throws
   */
  async attest(): Promise<LedgerEvent<'ConfigurationAttested'>> {
    // the report key first: in development mode it is the anchors' development key, created at its first use
    const reportKeyId = await this.reportKeyId();
    const data = configurationFingerprint({
      host: hostname(),
      tables: this.tables.list(),
      paytables: BUILT_IN_PAYTABLES,
      anchorKeyIds: this.anchorKeyIds(),
      reportKeyId,
      tokenKeys: loadVerificationKeys({
        LEDGER_ENV: this.config.get('LEDGER_ENV', { infer: true }),
        JWT_SECRET: this.config.get('JWT_SECRET', { infer: true }),
        JWT_PUBLIC_KEY_FILE: this.config.get('JWT_PUBLIC_KEY_FILE', { infer: true }),
        JWT_JWKS_FILE: this.config.get('JWT_JWKS_FILE', { infer: true }),
      }).keys,
      significant: significantSettingsOf({
        SIGNIFICANT_MONITOR: this.config.get('SIGNIFICANT_MONITOR', { infer: true }),
        SIGNIFICANT_WIN_MULTIPLE: this.config.get('SIGNIFICANT_WIN_MULTIPLE', { infer: true }),
        SIGNIFICANT_WIN_AMOUNT_MINOR: this.config.get('SIGNIFICANT_WIN_AMOUNT_MINOR', { infer: true }),
        OCCURRED_AT_MAX_SKEW_MS: this.config.get('OCCURRED_AT_MAX_SKEW_MS', { infer: true }),
        FAIRNESS_ALERT_CONFIDENCE: this.config.get('FAIRNESS_ALERT_CONFIDENCE', { infer: true }),
        SIGNIFICANT_FLOOD_WINDOW_SECONDS: this.config.get('SIGNIFICANT_FLOOD_WINDOW_SECONDS', { infer: true }),
      }),
    });
    return appendToGamingDay({ store: this.store, records: this.records, dayRule: this.dayRule, at: new Date().toISOString(), type: 'ConfigurationAttested', data, actor: CONFIGURATION_ATTESTOR });
  }

  /** The anchors' verification key ids (`ANCHOR_PUBLIC_KEY_FILE`); none when a file cannot be read (logged). */
  private anchorKeyIds(): string[] {
    const files = anchorVerifySettings({
      ANCHOR_FILE: this.config.get('ANCHOR_FILE', { infer: true }),
      ANCHOR_PUBLIC_KEY_FILE: this.config.get('ANCHOR_PUBLIC_KEY_FILE', { infer: true }),
      ANCHOR_TOPIC: this.config.get('ANCHOR_TOPIC', { infer: true }),
      LEDGER_EVENTS_TOPIC: this.config.get('LEDGER_EVENTS_TOPIC', { infer: true }),
    }).publicKeyFiles;
    try {
      return [...readPublicKeys(files).keys()];
    } catch (err) {
      this.logger.warn(`configuration attestation: no anchor key read: ${(err as Error).message}`);
      return [];
    }
  }

  /** The reports' signing key id, or null when none can be had now (logged by the key). */
  private async reportKeyId(): Promise<string | null> {
    try {
      return (await this.reportKey.signer()).keyId;
    } catch {
      return null;
    }
  }
}
