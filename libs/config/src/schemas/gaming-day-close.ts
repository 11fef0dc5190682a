import { ExclusiveWith, FileVar, RequiredUnless, TextVar, IntVar } from '../env-var';
import type { EnvClass } from './common';

/** Where development mode keeps its generated report signing key: the anchors' development key (`.stack/anchors`). */
export const DEFAULT_DEV_REPORT_SIGNING_KEY_FILE = '.stack/anchors/anchor-private.pem';

/**
 * `GAMING_DAY_CLOSE_GRACE_MINUTES`, `GAMING_DAY_CLOSE_SWEEP_MS`, `REPORT_SIGNING_KEY_FILE`,
 * `REPORT_SIGNER_URL`, `REPORT_SIGNER_TOKEN_FILE`: the gaming-day close of the API (docs/reports.md
 * §2): when a day is closed automatically, and the key (or the signer) its frozen reports are signed with.
 */
export function WithGamingDayClose<B extends EnvClass>(Base: B) {
  class GamingDayCloseEnv extends Base {
    /**
     * Minutes after a gaming day's end (the next day's cut-off hour, `GAMING_DAY_CUTOFF_HOUR`) before
     * the API closes it automatically for every table not closed yet (late facts of the day's last
     * rounds get in first).
     * @default 30
     */
    @IntVar(0, 1440, 'minutes')
    GAMING_DAY_CLOSE_GRACE_MINUTES: number = 30;

    /**
     * How often the API looks for a gaming day to close automatically, in ms; 0: never (only a pit
     * manager's `POST /gaming-days/{day}/close`). Several API instances may run it: the day's
     * stream of `GamingDayClosed` events keeps one close per day and table.
     * @default 60000
     */
    @IntVar(0, 86_400_000, 'ms')
    GAMING_DAY_CLOSE_SWEEP_MS: number = 60_000;

    /**
     * Ed25519 private key (PEM PKCS#8) the frozen gaming-day reports and the export bundles'
     * manifests (docs/reports.md §5) are signed with: the anchor signing key (the relay's
     * `ANCHOR_PRIVATE_KEY_FILE`), so one public key verifies all three. Or keep the key out of the
     * API: run `npm run signer` with it and set `REPORT_SIGNER_URL` instead. Unset, and no signer, in
     * development mode: `.stack/anchors/anchor-private.pem` (generated with its public key beside
     * it). Unset otherwise: no day can be closed (503 `GAMING_DAY.NO_SIGNING_KEY`), no bundle signed
     * (503 `EXPORT.NO_SIGNING_KEY`).
     */
    @TextVar(/^[^\0\r\n]{1,4096}$/, 'a file path', { optional: true })
    @ExclusiveWith(['REPORT_SIGNER_URL'])
    REPORT_SIGNING_KEY_FILE?: string;

    /**
     * The report signer that signs the closes and manifests for the API (`npm run signer`, which
     * holds the private key; docs/anchors.md, "The report signer"): `unix:<path>` of its socket or
     * `http://127.0.0.1:<port>`. Set, the API holds no private key: it asks the signer for its public
     * key and for each signature, and checks each signature before using it. Unset: the API signs
     * with `REPORT_SIGNING_KEY_FILE`.
     */
    @TextVar(/^(unix:[^\0\r\n]{1,100}|http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5})$/, 'unix:<path> or http://<loopback host>:<port>', { optional: true })
    REPORT_SIGNER_URL?: string;

    /**
     * File holding the bearer token the API shows the report signer (the signer's
     * `SIGNER_TOKEN_FILE`). Required with `REPORT_SIGNER_URL`.
     */
    @FileVar('the path of a file holding the shared secret', { optional: true })
    @RequiredUnless((env) => env.REPORT_SIGNER_URL === undefined, 'REPORT_SIGNER_TOKEN_FILE is required with REPORT_SIGNER_URL')
    REPORT_SIGNER_TOKEN_FILE?: string;
  }
  return GamingDayCloseEnv;
}
