/**
 * Real bearer tokens for the console's sign-in page: minted with `mintToken` of `@ledger/tokens` and
 * the development secret, as `npm run -s token` mints them (scripts/mint-token.ts); the API of the
 * browser tier runs in development mode and accepts them. The console itself never holds a key.
 */
import { tokensLib } from './ledger-dist';

/** The four roles of a token (README "The HTTP API"). */
export type ConsoleRole = 'table-device' | 'betting-platform' | 'pit-manager' | 'auditor';
/** Every role, in the order the scenarios usually go through them. */
export const ROLES: readonly ConsoleRole[] = ['table-device', 'betting-platform', 'pit-manager', 'auditor'];

/**
 * A bearer token for `role` and `sub` (HS256 with the development secret, `iss`/`aud` the API's
 * defaults, 1 h), as `npm run -s token -- --role <role> --sub <sub> [--tables …]` prints it. A
 * table-device token must name its tables; `tables` defaults to T-CLASSIC-01 for it.
 */
export function mintConsoleToken(role: ConsoleRole, sub: string, tables?: readonly string[]): string {
  const { mintToken, hs256Key, jwtSecret } = tokensLib();
  const t = tables ?? (role === 'table-device' ? ['T-CLASSIC-01'] : undefined);
  return mintToken({ sub, role, tables: t }, hs256Key(jwtSecret({ LEDGER_ENV: 'development' })), { ttlSeconds: 3600 });
}

/** The page part of {@link mintConsoleToken}'s use, as a Playwright `Page` (structural: no import of the runner). */
interface SignInPage {
  goto(url: string): Promise<unknown>;
  getByLabel(text: string): { fill(value: string): Promise<void> };
  getByRole(role: 'button', options: { name: string }): { click(): Promise<void> };
  waitForURL(url: (u: URL) => boolean, options?: { timeout?: number }): Promise<void>;
}

/**
 * Signs in the way a user does: opens `/console/sign-in` (relative to the page's base URL, or
 * under `origin`), pastes `token` into the "Token" field, clicks "Sign in", and waits until the
 * console has left the sign-in page (the API accepted the token: `GET /me`).
 * @throws the page's timeout error when the console stays on the sign-in page
 */
export async function signInWithToken(page: SignInPage, token: string, origin = ''): Promise<void> {
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/console/') && !u.pathname.startsWith('/console/sign-in'), { timeout: 15_000 });
}
