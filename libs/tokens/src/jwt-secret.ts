import { ConfigError, loadConfig, TokenToolEnv, type EnvSource } from '@ledger/config';

/**
 * The public HS256 development secret: it is in the repository, so anyone can sign with it. Only a
 * process in development mode (`LEDGER_ENV=development`: the demo, the bench, the tests) uses it,
 * when no key is configured, and the API then logs a warning; outside development mode the API and
 * `npm run token` refuse to start without a key of their own, and refuse this one
 * (docs/architecture.md §10).
 */
export const DEV_JWT_SECRET = 'dev-only-secret-change-me-baccarat-ledger';

/**
 * The HS256 secret the tools and tests sign with: `JWT_SECRET`, or in development mode the
 * development secret. Reads the tools' configuration ({@link TokenToolEnv}) of `env`.
 * @param env the environment; the process's own when omitted
 * @throws ConfigError naming `JWT_SECRET` outside development mode when it is unset (or bad), or when
 *   the tools sign with `JWT_PRIVATE_KEY_FILE` (RS256) instead of a secret
 */
export function jwtSecret(env?: EnvSource): string {
  const config = loadConfig(TokenToolEnv, env);
  if (config.JWT_SECRET !== undefined) return config.JWT_SECRET;
  if (config.JWT_PRIVATE_KEY_FILE === undefined && config.LEDGER_ENV === 'development') return DEV_JWT_SECRET;
  throw new ConfigError([{ variable: 'JWT_SECRET', message: 'not set: these tokens are signed with JWT_PRIVATE_KEY_FILE (RS256); use loadSigningKey' }], 'TokenToolEnv');
}
