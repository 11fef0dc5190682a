import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { loadOrCreateDevelopmentKey, readSigningKey, type AnchorSigningKey } from '@ledger/anchors';
import { DEFAULT_DEV_REPORT_SIGNING_KEY_FILE, type LedgerApiEnv } from '@ledger/config';
import { ApiError } from '../api-error';

/**
 * The Ed25519 key the frozen gaming-day reports (docs/reports.md §2) and the export bundles'
 * manifests (docs/reports.md §5) are signed with: the anchor signing key (`libs/anchors/src/keys.ts`)
 * from `REPORT_SIGNING_KEY_FILE`; in development mode without it, the anchors' development key
 * (generated if missing). Read at the first use.
 */
@Injectable()
export class ReportSigningKey {
  private readonly logger = new Logger('ReportSigningKey');
  private key: AnchorSigningKey | null = null;
  private readonly file: string | undefined;
  private readonly development: boolean;

  constructor(config: ConfigService<LedgerApiEnv, true>) {
    this.file = config.get('REPORT_SIGNING_KEY_FILE', { infer: true });
    this.development = config.get('LEDGER_ENV', { infer: true }) === 'development';
  }

  /**
   * @param missing the code to answer when there is no key: the close's (default) or the export manifest's
   * @throws ApiError 503 `missing` (`GAMING_DAY.NO_SIGNING_KEY`, `EXPORT.NO_SIGNING_KEY`) when none is configured (outside development) or it cannot be read
   */
  get(missing: 'GAMING_DAY.NO_SIGNING_KEY' | 'EXPORT.NO_SIGNING_KEY' = 'GAMING_DAY.NO_SIGNING_KEY'): AnchorSigningKey {
    if (this.key) return this.key;
    try {
      if (this.file) this.key = readSigningKey(this.file, 'REPORT_SIGNING_KEY_FILE');
      else if (this.development) this.key = loadOrCreateDevelopmentKey(DEFAULT_DEV_REPORT_SIGNING_KEY_FILE);
    } catch (err) {
      this.logger.error((err as Error).message);
    }
    if (!this.key) throw ApiError.of(missing);
    return this.key;
  }
}
