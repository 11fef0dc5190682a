import { loadConfig, LedgerApiEnv } from '@ledger/config';
import { DEV_JWT_SECRET, hs256Key, mintToken, type VerifiedClaims } from '@ledger/tokens';
import { ApiError } from '../api-error';
import { assertTableAllowed } from './assert-table-allowed';
import { principalFromClaims, type Principal } from './principal';
import { announceKeys, DEVELOPMENT_SECRET_WARNING, tokenAuthentication } from './token-authentication';

const claims = (c: Record<string, unknown>): VerifiedClaims => ({ iat: 1, exp: 2, ...c }) as VerifiedClaims;

function apiError(f: () => unknown): ApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('no ApiError thrown');
}

describe('principalFromClaims (docs/architecture.md §10)', () => {
  it('exposes the tables a device token names', () => {
    expect(principalFromClaims(claims({ sub: 'd1', role: 'table-device', tables: ['T-CLASSIC-01', 'T-TIGER-01', 'T-CLASSIC-01'] }))).toEqual({
      id: 'd1',
      role: 'table-device',
      tables: ['T-CLASSIC-01', 'T-TIGER-01'],
      // the token's exp (s) as ms: a live stream ends then
      expiresAt: 2000,
    });
  });

  it('gives every table (null) to a token without the claim, except a table device (401)', () => {
    expect(principalFromClaims(claims({ sub: 'b1', role: 'betting-platform' })).tables).toBeNull();
    expect(principalFromClaims(claims({ sub: 'b1', role: 'betting-platform', tables: ['T-FAB4-01'] })).tables).toEqual(['T-FAB4-01']);
    const e = apiError(() => principalFromClaims(claims({ sub: 'd1', role: 'table-device' })));
    expect([e.status, e.code]).toEqual([401, 'AUTH.UNAUTHENTICATED']);
    expect(e.message).toMatch(/must name its tables/);
  });

  it.each([[[]], ['T-CLASSIC-01'], [[42]], [['bad id with spaces']], [Array.from({ length: 1001 }, (_, i) => `T-${i}`)]])('refuses a malformed tables claim %j (401)', (tables) => {
    const e = apiError(() => principalFromClaims(claims({ sub: 'd1', role: 'table-device', tables })));
    expect([e.status, e.code]).toEqual([401, 'AUTH.UNAUTHENTICATED']);
  });

  it('refuses a missing subject or an unknown role (401)', () => {
    for (const c of [{ role: 'auditor' }, { sub: '', role: 'auditor' }, { sub: 'x', role: 'system' }, { sub: 'x', role: ['auditor'] }]) {
      expect(apiError(() => principalFromClaims(claims(c))).status).toBe(401);
    }
  });
});

describe('assertTableAllowed', () => {
  const device: Principal = { id: 'd1', role: 'table-device', tables: ['T-CLASSIC-01'] };

  it('lets a caller act on a table its token names, or on any when it names none', () => {
    expect(() => assertTableAllowed(device, 'T-CLASSIC-01')).not.toThrow();
    expect(() => assertTableAllowed({ id: 'b1', role: 'betting-platform', tables: null }, 'T-TIGER-01')).not.toThrow();
  });

  it('refuses another table: 403 AUTH.TABLE_NOT_ALLOWED with the table and the allowed ones', () => {
    const e = apiError(() => assertTableAllowed(device, 'T-TIGER-01'));
    expect([e.status, e.code]).toEqual([403, 'AUTH.TABLE_NOT_ALLOWED']);
    expect(e.details).toEqual({ tableId: 'T-TIGER-01', allowedTables: ['T-CLASSIC-01'] });
    expect(e.message).toMatch(/d1 may not act on table T-TIGER-01/);
  });
});

describe('tokenAuthentication and the start-up log', () => {
  const lines = () => {
    const out: string[] = [];
    return { out, logger: { warn: (m: string) => out.push(`WARN ${m}`), log: (m: string) => out.push(`LOG ${m}`) } };
  };

  it('in development mode without a key: the development secret, with a warning (never silently)', () => {
    const auth = tokenAuthentication(loadConfig(LedgerApiEnv, { LEDGER_ENV: 'development' }));
    const { out, logger } = lines();
    announceKeys(auth, logger);
    expect(out).toEqual([`WARN ${DEVELOPMENT_SECRET_WARNING}`]);
    const token = mintToken({ sub: 'pm-1', role: 'pit-manager' }, hs256Key(DEV_JWT_SECRET));
    expect(auth.verifier.verify(token).sub).toBe('pm-1');
  });

  it('with a key: no warning, the source named; the configured iss, aud and lifetime enforced', () => {
    const secret = 'a-production-secret-of-more-than-32-bytes';
    const auth = tokenAuthentication(loadConfig(LedgerApiEnv, { JWT_SECRET: secret, JWT_ISSUER: 'casino-sso', JWT_AUDIENCE: 'ledger', JWT_MAX_LIFETIME_SECONDS: '600' }));
    const { out, logger } = lines();
    announceKeys(auth, logger);
    expect(out).toEqual(['LOG bearer tokens verified with JWT_SECRET (HS256)']);
    const key = hs256Key(secret);
    expect(auth.verifier.verify(mintToken({ sub: 'a', role: 'auditor' }, key, { issuer: 'casino-sso', audience: 'ledger', ttlSeconds: 600 })).sub).toBe('a');
    expect(() => auth.verifier.verify(mintToken({ sub: 'a', role: 'auditor' }, key, { issuer: 'casino-sso', audience: 'ledger', ttlSeconds: 601 }))).toThrow(/exceeds the maximum 600 s/);
    expect(() => auth.verifier.verify(mintToken({ sub: 'a', role: 'auditor' }, key, { audience: 'ledger', ttlSeconds: 60 }))).toThrow(/issuer invalid/);
    expect(() => auth.verifier.verify(mintToken({ sub: 'a', role: 'auditor' }, key, { issuer: 'casino-sso', ttlSeconds: 60 }))).toThrow(/audience invalid/);
    expect(() => auth.verifier.verify(mintToken({ sub: 'a', role: 'auditor' }, hs256Key(DEV_JWT_SECRET), { issuer: 'casino-sso', audience: 'ledger' }))).toThrow(/invalid signature/);
  });
});
