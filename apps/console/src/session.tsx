import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, setBearer, unwrap } from './api/client';
import type { components } from './api/schema';

/** The four roles of a token (docs/http-api.md). */
export type Role = components['schemas']['MeResponse']['role'];

/** Who is signed in, as `GET /me` answers it (schema `MeResponse`), with the gaming day's settings. */
export type Principal = components['schemas']['MeResponse'];

interface SessionValue {
  readonly principal: Principal | null;
  readonly signIn: (token: string) => Promise<void>;
  readonly signOut: () => void;
}

const SessionContext = createContext<SessionValue | null>(null);
const KEY = 'ledger-console-token';

/**
 * Holds the bearer token for the tab (sessionStorage: gone when the tab closes; the console never
 * holds a signing key) and the principal the API says it belongs to.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [principal, setPrincipal] = useState<Principal | null>(null);
  const [ready, setReady] = useState(false);

  const signOut = useCallback(() => {
    sessionStorage.removeItem(KEY);
    setBearer(null);
    setPrincipal(null);
  }, []);

  const signIn = useCallback(
    async (token: string) => {
      setBearer(token.trim(), signOut);
      try {
        const me: Principal = await unwrap(api.GET('/me'));
        sessionStorage.setItem(KEY, token.trim());
        setPrincipal(me);
      } catch (e) {
        setBearer(null);
        throw e;
      }
    },
    [signOut],
  );

  useEffect(() => {
    const saved = sessionStorage.getItem(KEY);
    if (!saved) {
      setReady(true);
      return;
    }
    signIn(saved)
      .catch(() => sessionStorage.removeItem(KEY))
      .finally(() => setReady(true));
  }, [signIn]);

  const value = useMemo(() => ({ principal, signIn, signOut }), [principal, signIn, signOut]);
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
