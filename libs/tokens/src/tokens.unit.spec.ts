import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { sign, type SignOptions } from 'jsonwebtoken';
import { ConfigError } from '@ledger/config';
import { DEV_JWT_SECRET, hs256Key, jwtSecret, loadSigningKey, loadVerificationKeys, mintToken, parseJwks, TokenRejectedError, TokenVerifier, type TokenPolicy, type VerificationKey } from '@ledger/tokens';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const now = Math.floor(NOW / 1000);
const POLICY: TokenPolicy = { issuer: 'baccarat-ledger', audience: 'baccarat-ledger-api', maxLifetimeSeconds: 12 * 3600, clockToleranceSeconds: 30 };
const SECRET = 'production-secret-that-is-long-enough-0123456789';
const rsa = (bits = 2048) => generateKeyPairSync('rsa', { modulusLength: bits });
const pem = (k: KeyObject) => k.export({ type: k.type === 'private' ? 'pkcs8' : 'spki', format: 'pem' }).toString();
const CLAIMS = { sub: 'pm-1', role: 'pit-manager', iss: POLICY.issuer, aud: POLICY.audience, iat: now - 60, exp: now + 3600 };
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

function refusal(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('accepted');
}

function reason(verifier: TokenVerifier, token: string): string {
  try {
    verifier.verify(token);
  } catch (e) {
    if (e instanceof TokenRejectedError) return e.reason;
    throw e;
  }
  throw new Error('token accepted');
}

describe('TokenVerifier (docs/architecture.md §10)', () => {
  const hs = new TokenVerifier([hs256Key(SECRET, false)], POLICY, () => NOW);
  const hsToken = (claims: Record<string, unknown>, opts: SignOptions = {}) => sign(claims, SECRET, { algorithm: 'HS256', ...opts });

  it('accepts a token with the right key, iss, aud and a lifetime within the maximum', () => {
    expect(hs.verify(hsToken(CLAIMS))).toMatchObject({ sub: 'pm-1', role: 'pit-manager', iat: now - 60, exp: now + 3600 });
    expect(hs.verify(hsToken({ ...CLAIMS, aud: ['other', POLICY.audience] })).sub).toBe('pm-1');
    expect(hs.verify(hsToken({ ...CLAIMS, iat: now - 100, exp: now - 100 + 12 * 3600 })).sub).toBe('pm-1');
  });

  it('refuses alg none, and HS384/HS512 even with the right secret (the algorithm is pinned)', () => {
    expect(reason(hs, `${b64({ alg: 'none', typ: 'JWT' })}.${b64(CLAIMS)}.`)).toMatch(/algorithm "none" is not accepted/);
    expect(reason(hs, hsToken(CLAIMS, { algorithm: 'HS384' }))).toMatch(/algorithm "HS384"/);
    expect(reason(hs, hsToken(CLAIMS, { algorithm: 'HS512' }))).toMatch(/algorithm "HS512"/);
  });

  it('refuses another secret, the development secret, a wrong or missing iss or aud', () => {
    expect(reason(hs, sign(CLAIMS, 'another-secret-of-more-than-32-bytes!!', { algorithm: 'HS256' }))).toMatch(/invalid signature/);
    expect(reason(hs, sign(CLAIMS, DEV_JWT_SECRET, { algorithm: 'HS256' }))).toMatch(/invalid signature/);
    expect(reason(hs, hsToken({ ...CLAIMS, iss: 'someone-else' }))).toMatch(/issuer invalid/);
    expect(reason(hs, hsToken({ ...CLAIMS, aud: 'another-api' }))).toMatch(/audience invalid/);
    const { iss: _i, ...noIss } = CLAIMS;
    const { aud: _a, ...noAud } = CLAIMS;
    expect(reason(hs, hsToken(noIss))).toMatch(/issuer invalid/);
    expect(reason(hs, hsToken(noAud))).toMatch(/audience invalid/);
  });

  it('refuses a token without exp or iat, over the maximum lifetime, expired, or issued in the future', () => {
    const { exp: _e, ...noExp } = CLAIMS;
    const { iat: _t, ...noIat } = CLAIMS;
    expect(reason(hs, hsToken(noExp))).toBe('a token must carry iat and exp');
    expect(reason(hs, hsToken(noIat, { noTimestamp: true }))).toBe('a token must carry iat and exp');
    expect(reason(hs, hsToken({ ...CLAIMS, iat: now, exp: now + 12 * 3600 + 1 }))).toBe('token lifetime 43201 s (exp - iat) exceeds the maximum 43200 s');
    expect(reason(hs, hsToken({ ...CLAIMS, iat: now, exp: now + 100 * 365 * 86_400 }))).toMatch(/exceeds the maximum/);
    expect(reason(hs, hsToken({ ...CLAIMS, iat: now - 7200, exp: now - 3600 }))).toMatch(/jwt expired/);
    expect(reason(hs, hsToken({ ...CLAIMS, iat: now + 3600, exp: now + 7200 }))).toBe('token issued in the future (iat)');
    expect(reason(hs, hsToken({ ...CLAIMS, nbf: now + 3600 }))).toMatch(/not active/);
  });

  it('verifies RS256 with the public key only, and refuses HS256 "signed" with that public key (algorithm confusion)', () => {
    const { publicKey, privateKey } = rsa();
    const rs = new TokenVerifier(loadVerificationKeys({ LEDGER_ENV: 'production', JWT_PUBLIC_KEY_FILE: 'pub.pem' }, () => pem(publicKey)).keys, POLICY, () => NOW);
    expect(rs.verify(sign(CLAIMS, privateKey, { algorithm: 'RS256' })).sub).toBe('pm-1');
    const forged = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(CLAIMS)}`;
    expect(reason(rs, `${forged}.${require('node:crypto').createHmac('sha256', pem(publicKey)).update(forged).digest('base64url')}`)).toMatch(/algorithm "HS256" is not accepted \(only RS256\)/);
    expect(reason(rs, sign(CLAIMS, rsa().privateKey, { algorithm: 'RS256' }))).toMatch(/invalid signature/);
    expect(reason(rs, sign(CLAIMS, DEV_JWT_SECRET, { algorithm: 'HS256' }))).toMatch(/algorithm "HS256"/);
  });

  it('picks the JWKS key named by kid, and refuses a token naming none or an unknown one', () => {
    const a = rsa();
    const b = rsa();
    const jwks = JSON.stringify({
      keys: [
        { ...a.publicKey.export({ format: 'jwk' }), kid: 'k-a', use: 'sig', alg: 'RS256' },
        { ...b.publicKey.export({ format: 'jwk' }), kid: 'k-b' },
      ],
    });
    const keys: VerificationKey[] = parseJwks(jwks);
    const v = new TokenVerifier(keys, POLICY, () => NOW);
    expect(v.verify(sign(CLAIMS, b.privateKey, { algorithm: 'RS256', keyid: 'k-b' })).sub).toBe('pm-1');
    expect(reason(v, sign(CLAIMS, b.privateKey, { algorithm: 'RS256', keyid: 'k-a' }))).toMatch(/invalid signature/);
    expect(reason(v, sign(CLAIMS, b.privateKey, { algorithm: 'RS256' }))).toMatch(/names no key/);
    expect(reason(v, sign(CLAIMS, b.privateKey, { algorithm: 'RS256', keyid: 'k-zzz' }))).toMatch(/unknown key id "k-zzz"/);
  });

  it('refuses what is not a JWS', () => {
    expect(reason(hs, 'not-a-jwt')).toBe('malformed token');
    expect(reason(hs, 'a.b.c')).toBe('malformed token');
  });
});

describe('the keys (docs/architecture.md §10)', () => {
  it('outside development mode: no key → ConfigError naming JWT_SECRET; the development secret or a short one refused', () => {
    expect(refusal(() => loadVerificationKeys({ LEDGER_ENV: 'production' })).problems[0].variable).toBe('JWT_SECRET');
    expect(refusal(() => loadVerificationKeys({ LEDGER_ENV: 'production', JWT_SECRET: DEV_JWT_SECRET })).problems[0].message).toMatch(/public development secret/);
    expect(refusal(() => loadVerificationKeys({ LEDGER_ENV: 'production', JWT_SECRET: 'x'.repeat(31) })).problems[0].variable).toBe('JWT_SECRET');
    expect(refusal(() => loadSigningKey({ LEDGER_ENV: 'production' })).problems[0].variable).toBe('JWT_SECRET');
  });

  it('in development mode without a key: the development secret, flagged so the API warns', () => {
    const set = loadVerificationKeys({ LEDGER_ENV: 'development' });
    expect(set).toMatchObject({ source: 'development secret', developmentSecret: true });
    expect(set.keys[0].algorithm).toBe('HS256');
    expect(loadVerificationKeys({ LEDGER_ENV: 'development', JWT_SECRET: SECRET })).toMatchObject({ source: 'JWT_SECRET', developmentSecret: false });
    expect(loadSigningKey({ LEDGER_ENV: 'development' }).developmentSecret).toBe(true);
  });

  it('refuses, naming the variable: a private key given to the API, a short RSA key, an Ed25519 key, two keys', () => {
    const { privateKey } = rsa();
    expect(refusal(() => loadVerificationKeys({ LEDGER_ENV: 'production', JWT_PUBLIC_KEY_FILE: 'k.pem' }, () => pem(privateKey))).problems[0]).toMatchObject({
      variable: 'JWT_PUBLIC_KEY_FILE',
      message: expect.stringMatching(/private key/),
    });
    expect(refusal(() => loadVerificationKeys({ LEDGER_ENV: 'production', JWT_PUBLIC_KEY_FILE: 'k.pem' }, () => pem(rsa(1024).publicKey))).problems[0].message).toMatch(/1024 bits/);
    const ed = generateKeyPairSync('ed25519');
    expect(refusal(() => loadVerificationKeys({ LEDGER_ENV: 'production', JWT_PUBLIC_KEY_FILE: 'k.pem' }, () => pem(ed.publicKey))).problems[0].message).toMatch(/ed25519 key: expected an RSA key/);
    expect(refusal(() => loadVerificationKeys({ LEDGER_ENV: 'production', JWT_PUBLIC_KEY_FILE: 'k.pem' }, () => 'garbage')).problems[0].message).toMatch(/not a PEM public key/);
    expect(refusal(() => loadVerificationKeys({ LEDGER_ENV: 'production', JWT_SECRET: SECRET, JWT_JWKS_FILE: 'j.json' })).problems[0].message).toMatch(/only one of/);
    expect(refusal(() => loadVerificationKeys({ LEDGER_ENV: 'production', JWT_PUBLIC_KEY_FILE: '/no/such.pem' })).problems[0].message).toMatch(/cannot read/);
  });

  it('refuses a JWKS file with private members, duplicate or missing kids, or non-RSA keys', () => {
    const jwk = rsa().publicKey.export({ format: 'jwk' });
    const priv = rsa().privateKey.export({ format: 'jwk' });
    expect(refusal(() => parseJwks(JSON.stringify({ keys: [{ ...priv, kid: 'a' }] }))).problems[0].message).toMatch(/private key material/);
    expect(
      refusal(() =>
        parseJwks(
          JSON.stringify({
            keys: [
              { ...jwk, kid: 'a' },
              { ...jwk, kid: 'a' },
            ],
          }),
        ),
      ).problems[0].message,
    ).toMatch(/unique/);
    expect(refusal(() => parseJwks(JSON.stringify({ keys: [jwk] }))).problems[0].message).toMatch(/unique non-empty "kid"/);
    expect(refusal(() => parseJwks(JSON.stringify({ keys: [{ ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), kid: 'e' }] }))).problems[0].message).toMatch(/kty "OKP"/);
    expect(refusal(() => parseJwks('{"keys":[]}')).problems[0].variable).toBe('JWT_JWKS_FILE');
    expect(refusal(() => parseJwks('not json')).problems[0].variable).toBe('JWT_JWKS_FILE');
  });

  it('mints what the verifier accepts: RS256 with a kid, HS256, with the tables claim', () => {
    const { publicKey, privateKey } = rsa();
    const { key } = loadSigningKey({ LEDGER_ENV: 'production', JWT_PRIVATE_KEY_FILE: 'p.pem', JWT_KEY_ID: 'k1' }, () => pem(privateKey));
    const token = mintToken({ sub: 'd1', role: 'table-device', tables: ['T-CLASSIC-01'] }, key);
    const jwks = JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1' }] });
    const claims = new TokenVerifier(parseJwks(jwks), POLICY).verify(token);
    expect(claims).toMatchObject({ sub: 'd1', role: 'table-device', tables: ['T-CLASSIC-01'], iss: 'baccarat-ledger', aud: 'baccarat-ledger-api' });
    expect(claims.exp - claims.iat).toBe(8 * 3600);
    const hsClaims = new TokenVerifier([hs256Key(SECRET)], POLICY).verify(mintToken({ sub: 'b1', role: 'betting-platform' }, hs256Key(SECRET), { ttlSeconds: 60 }));
    expect(hsClaims.tables).toBeUndefined();
    expect(hsClaims.exp - hsClaims.iat).toBe(60);
  });

  it('jwtSecret(): JWT_SECRET, else the development secret in development mode only', () => {
    expect(jwtSecret({ LEDGER_ENV: 'development' })).toBe(DEV_JWT_SECRET);
    expect(jwtSecret({ JWT_SECRET: SECRET })).toBe(SECRET);
    expect(refusal(() => jwtSecret({})).problems[0].variable).toBe('JWT_SECRET');
  });
});
