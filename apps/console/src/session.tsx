import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, setBearer, unwrap } from './api/client';

/** The four roles of a token (README "The HTTP API"). */
export type Role = 'table-device' | 'betting-platform' | 'pit-manager' | 'auditor';

/** Who is signed in, as `GET /me` answers it, with the gaming day's settings. */
export interface Principal {
  readonly sub: string;
  readonly role: Role;
  readonly tables: readonly string[] | null;
  readonly expiresAt: string;
  readonly gamingDay: { readonly timeZone: string; readonly cutoffHour: number };
}

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
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- until GET /me is in docs/openapi.json
        const me = (await unwrap((api.GET as any)('/me'))) as Principal;
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
 * What each role may do in the console, mirroring the API's role checks (README "The HTTP API";
 * test/e2e/authorization-matrix.e2e.spec.ts). The console hides what a role may not do; the API
 * refuses it anyway.
 */
export const CAN = {
  readAudit: (r: Role) => r === 'pit-manager' || r === 'auditor',
  requestDecision: (r: Role) => r === 'pit-manager',
  decide: (r: Role) => r === 'pit-manager',
} as const;
