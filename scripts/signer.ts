/**
 * The report signer (docs/anchors.md, "The report signer"): a process apart from the API that holds
 * the report signing key and signs, for a caller showing the shared token, only well-formed requests
 * of the two kinds the ledger signs (a gaming-day close's report, an export bundle's manifest),
 * logging each signature (JSON lines on stdout) and each refusal.
 *
 *   SIGNER_KEY_FILE=/etc/ledger/report-private.pem SIGNER_TOKEN_FILE=/etc/ledger/signer-token \
 *   SIGNER_LISTEN=unix:/run/ledger/signer.sock npm run signer
 *
 * The API then sets `REPORT_SIGNER_URL=unix:/run/ledger/signer.sock` and `REPORT_SIGNER_TOKEN_FILE`
 * (the same token), and no `REPORT_SIGNING_KEY_FILE`. In development mode, unset, the key is the
 * development key `.stack/anchors/anchor-private.pem` and the token `.stack/signer/token` (both
 * generated if missing). Exit 1 on a bad configuration; stops on SIGINT / SIGTERM.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import pino from 'pino';
import { loadOrCreateDevelopmentKey, readSigningKey, startReportSigner } from '@ledger/anchors';
import { ConfigError, DEFAULT_DEV_REPORT_SIGNING_KEY_FILE, DEFAULT_DEV_SIGNER_TOKEN_FILE, loadConfig, SignerEnv } from '@ledger/config';

/** The shortest shared token the signer accepts, in bytes. */
const MIN_TOKEN_BYTES = 32;

/** Development mode: `.stack/signer/token`, a random token written (mode 0600) if missing. */
function developmentTokenFile(): string {
  if (!existsSync(DEFAULT_DEV_SIGNER_TOKEN_FILE)) {
    mkdirSync(dirname(DEFAULT_DEV_SIGNER_TOKEN_FILE), { recursive: true, mode: 0o700 });
    writeFileSync(DEFAULT_DEV_SIGNER_TOKEN_FILE, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  }
  return DEFAULT_DEV_SIGNER_TOKEN_FILE;
}

async function main(): Promise<void> {
  let config: Readonly<SignerEnv>;
  try {
    config = loadConfig(SignerEnv, process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`signer: ${err.message}\n`);
    process.exit(1);
  }
  const logger = pino({ name: 'report-signer', level: config.LOG_LEVEL });
  const tokenFile = config.SIGNER_TOKEN_FILE ?? developmentTokenFile();
  const token = readFileSync(tokenFile, 'utf8').trim();
  if (Buffer.byteLength(token, 'utf8') < MIN_TOKEN_BYTES) {
    process.stderr.write(`signer: SIGNER_TOKEN_FILE must hold a token of at least ${MIN_TOKEN_BYTES} bytes\n`);
    process.exit(1);
  }
  const key = config.SIGNER_KEY_FILE ? readSigningKey(config.SIGNER_KEY_FILE, 'SIGNER_KEY_FILE') : loadOrCreateDevelopmentKey(DEFAULT_DEV_REPORT_SIGNING_KEY_FILE);
  if (!config.SIGNER_KEY_FILE) logger.warn({ file: key.file, tokenFile }, 'development mode: the development report signing key and token');
  if (config.SIGNER_LISTEN.startsWith('unix:')) mkdirSync(dirname(config.SIGNER_LISTEN.slice('unix:'.length)), { recursive: true, mode: 0o750 });
  const signer = await startReportSigner({ key, token, listen: config.SIGNER_LISTEN, logger, maxBodyBytes: config.SIGNER_MAX_BODY_BYTES });
  const stop = () => {
    void signer.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

void main().catch((err: unknown) => {
  process.stderr.write(`signer: ${(err as Error).message}\n`);
  process.exit(1);
});
