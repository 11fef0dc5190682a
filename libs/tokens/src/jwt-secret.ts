/**
 * The HS256 signing secret: env `JWT_SECRET`. A fixed development secret is used when unset so a
 * fresh checkout works; production deployments must set their own (the service logs a warning).
 */
export const DEV_JWT_SECRET = 'dev-only-secret-change-me-baccarat-ledger';

/** Returns `JWT_SECRET` or the development secret. */
export function jwtSecret(): string {
  return process.env.JWT_SECRET || DEV_JWT_SECRET;
}
