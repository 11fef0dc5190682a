import type { LedgerApiEnv } from '@ledger/config';
import { loadVerificationKeys, TokenVerifier, type VerificationKeySet } from '@ledger/tokens';

/** How the API authenticates bearer tokens: its keys and the verifier built on them. */
export interface TokenAuthentication {
  readonly keys: VerificationKeySet;
  readonly verifier: TokenVerifier;
}

/**
 * The API's token verification from its validated configuration, built once at start
 * (docs/architecture.md §10): the keys of `JWT_SECRET`, `JWT_PUBLIC_KEY_FILE` or `JWT_JWKS_FILE`
 * (the development secret only in development mode), and the policy `JWT_ISSUER`, `JWT_AUDIENCE`,
 * `JWT_MAX_LIFETIME_SECONDS`, `JWT_CLOCK_TOLERANCE_SECONDS`.
 * @throws ConfigError naming the variable (no key outside development mode, a bad key file, ...)
 */
export function tokenAuthentication(config: LedgerApiEnv, readFile?: (path: string) => string): TokenAuthentication {
  const keys = loadVerificationKeys(config, readFile);
  const verifier = new TokenVerifier(keys.keys, {
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    maxLifetimeSeconds: config.JWT_MAX_LIFETIME_SECONDS,
    clockToleranceSeconds: config.JWT_CLOCK_TOLERANCE_SECONDS,
  });
  return { keys, verifier };
}

/** The warning logged at start when the public development secret is in use. */
export const DEVELOPMENT_SECRET_WARNING =
  'JWT_SECRET is unset and LEDGER_ENV=development: bearer tokens are verified with the PUBLIC development secret from the repository, so anyone can forge them. Never run so in production: set JWT_SECRET, JWT_PUBLIC_KEY_FILE or JWT_JWKS_FILE.';

/**
 * Logs where the keys came from at start: a warning when the development secret is in use (never
 * silently), else one line naming the variable.
 */
export function announceKeys(auth: TokenAuthentication, logger: { warn(message: string): void; log(message: string): void }): void {
  if (auth.keys.developmentSecret) logger.warn(DEVELOPMENT_SECRET_WARNING);
  else logger.log(`bearer tokens verified with ${auth.keys.source} (${auth.keys.keys.map((k) => k.algorithm + (k.kid ? ` kid=${k.kid}` : '')).join(', ')})`);
}
