import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { api, ConsoleApiError, setBearer, unwrap } from './api/client';
import type { components } from './api/schema';

/** The four roles of a token (docs/http-api.md). */
export type Role = components['schemas']['MeResponse']['role'];

/** Who is signed in, as `GET /me` answers it (schema `MeResponse`), with the gaming day's settings. */
export type Principal = components['schemas']['MeResponse'];

interface SessionValue {
  readonly principal: Principal | null;
  /** Why the last session ended without the user signing out (said on the sign-in page), else null. */
  readonly ended: string | null;
  readonly signIn: (token: string) => Promise<void>;
  readonly signOut: () => void;
}

const SessionContext = createContext<SessionValue | null>(null);
const KEY = 'ledger-console-token';

/** What the sign-in page says when the token's expiry (`exp`, `GET /me` `expiresAt`) has passed. */
export const SESSION_EXPIRED = 'Your session expired: sign in again.';

/** The `exp` claim of a JWT as milliseconds, read without checking it (only to word a message); null if unreadable. */
export function tokenExpiryMs(token: string): number | null {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}

/** Why a token the API accepted before is refused now: its expiry passed, or the API says why (its code). */
function endedBecause(token: string, code: string): string {
  const exp = tokenExpiryMs(token);
  if (exp !== null && exp <= Date.now()) return SESSION_EXPIRED;
  return `The API no longer accepts your token (${code}): sign in again.`;
}

/**
 * Holds the bearer token for the tab (sessionStorage: gone when the tab closes; the console never
 * holds a signing key) and the principal the API says it belongs to.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [principal, setPrincipal] = useState<Principal | null>(null);
  const [ended, setEnded] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  /** The token of the session in use (set once the API accepted it). */
  const accepted = useRef<string | null>(null);

  const end = useCallback((why: string | null) => {
    accepted.current = null;
    sessionStorage.removeItem(KEY);
    setBearer(null);
    setPrincipal(null);
    setEnded(why);
  }, []);
  const signOut = useCallback(() => end(null), [end]);

  const signIn = useCallback(
    async (token: string) => {
      const t = token.trim();
      // a 401 to a call of an accepted session: it ended (expired, or the API refuses the token now)
      setBearer(t, (code) => {
        if (accepted.current === t) end(endedBecause(t, code));
      });
      try {
        const me: Principal = await unwrap(api.GET('/me'));
        sessionStorage.setItem(KEY, t);
        accepted.current = t;
        setEnded(null);
        setPrincipal(me);
      } catch (e) {
        setBearer(null);
        throw e;
      }
    },
    [end],
  );

  // said at the token's expiry, not only at the next call the API refuses
  useEffect(() => {
    if (!principal) return;
    const left = Date.parse(principal.expiresAt) - Date.now();
    const timer = setTimeout(() => end(SESSION_EXPIRED), Math.max(0, Math.min(left, 2_147_000_000)));
    return () => clearTimeout(timer);
  }, [principal, end]);

  useEffect(() => {
    const saved = sessionStorage.getItem(KEY);
    if (!saved) {
      setReady(true);
      return;
    }
    signIn(saved)
      .catch((e: unknown) => end(e instanceof ConsoleApiError && e.status === 401 ? endedBecause(saved, e.code) : null))
      .finally(() => setReady(true));
  }, [signIn, end]);

  const value = useMemo(() => ({ principal, ended, signIn, signOut }), [principal, ended, signIn, signOut]);
  if (!ready) return <p className="state">Loading…</p>;
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** The session; throws outside {@link SessionProvider}. */
export function useSession(): SessionValue {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** The signed-in principal (pages under the authenticated layout only). */
export function usePrincipal(): Principal {
  const { principal } = useSession();
  if (!principal) throw new Error('not signed in');
  return principal;
}

/**
 * What each role may do in the console, mirroring the API's role checks (docs/http-api.md;
 * test/e2e/authorization-matrix.e2e.spec.ts). The console hides what a role may not do; the API
 * refuses it anyway.
 */
export const CAN = {
  readAudit: (r: Role) => r === 'pit-manager' || r === 'auditor',
  requestDecision: (r: Role) => r === 'pit-manager',
  decide: (r: Role) => r === 'pit-manager',
  /** Upload a wallet file (it stores a match run: auditors only read, docs/reports.md §4). */
  matchWallet: (r: Role) => r === 'pit-manager',
} as const;
