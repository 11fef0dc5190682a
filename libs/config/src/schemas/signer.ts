import { FileVar, IntVar, RequiredUnless, TextVar } from '../env-var';
import { CommonEnv, WithLogging } from './common';

/** Where the report signer listens unless `SIGNER_LISTEN` says otherwise. */
export const DEFAULT_SIGNER_LISTEN = 'unix:.stack/signer/signer.sock';
/** Development mode without `SIGNER_TOKEN_FILE`: the token file the signer generates (mode 0600) and reads. */
export const DEFAULT_DEV_SIGNER_TOKEN_FILE = '.stack/signer/token';

const development = (env: Record<string, unknown>) => env.LEDGER_ENV === 'development';

/**
 * The report signer's configuration (`npm run signer`, `scripts/signer.ts`; docs/anchors.md, "The
 * report signer"): the private key it holds, the token its callers show, where it listens. Read once
 * at start.
 */
export class SignerEnv extends WithLogging(CommonEnv) {
  /**
   * Ed25519 private key (PEM PKCS#8) the signer signs the gaming-day reports and the export
   * manifests with: the report signing key, held by this process only (the API then sets
   * `REPORT_SIGNER_URL`, not `REPORT_SIGNING_KEY_FILE`). Unset in development mode: the development
   * key `.stack/anchors/anchor-private.pem` (generated if missing); required otherwise.
   */
  @FileVar('the path of a PEM private key file (Ed25519, PKCS#8)', { optional: true })
  @RequiredUnless(development, 'SIGNER_KEY_FILE is required outside development mode (LEDGER_ENV=development)')
  SIGNER_KEY_FILE?: string;

  /**
   * File holding the shared secret (one line, at least 32 bytes) every request to the signer must
   * carry as its bearer token; the API reads the same file (`REPORT_SIGNER_TOKEN_FILE`). Unset in
   * development mode: `.stack/signer/token` (generated if missing); required otherwise.
   */
  @FileVar('the path of a file holding the shared secret', { optional: true })
  @RequiredUnless(development, 'SIGNER_TOKEN_FILE is required outside development mode (LEDGER_ENV=development)')
  SIGNER_TOKEN_FILE?: string;

  /**
   * Where the signer listens: `unix:<path>` (a Unix domain socket, created mode 0660: give the API's
   * user the socket's group) or `<loopback host>:<port>` (`127.0.0.1:7070`; no other address).
   * @default unix:.stack/signer/signer.sock
   */
  @TextVar(/^(unix:[^\0\r\n]{1,100}|(127\.0\.0\.1|localhost|\[::1\]):\d{1,5})$/, 'unix:<path> or <loopback host>:<port>')
  SIGNER_LISTEN: string = DEFAULT_SIGNER_LISTEN;

  /**
   * The largest signing request the signer reads, in bytes (a close report of many tables and
   * dealers, a manifest of many checkpoints); larger ones are refused (413 `SIGNER.TOO_LARGE`).
   * @default 16777216
   */
  @IntVar(1024, 268_435_456, 'bytes')
  SIGNER_MAX_BODY_BYTES: number = 16_777_216;
}
