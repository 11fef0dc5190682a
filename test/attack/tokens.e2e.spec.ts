/**
 * Attacks on the bearer tokens (docs/architecture.md §10): tokens must not be forgeable from what
 * the repository holds. Each case failed on the code before this suite: the API started without a
 * key and accepted anything signed with the public development secret, for as long as its `exp`
 * said (a 100-year pit-manager token was accepted), and checked neither `iss` nor `aud`.
 *
 * Asymmetric keys are RS256: `jsonwebtoken` 9, the JWT library of the API, cannot verify EdDSA
 * ("Unknown key type ed25519"), so the "public key only" case is an RSA public key.
 */
import { spawn } from 'node:child_process';
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sign } from 'jsonwebtoken';
import { ConfigError, type EnvSource } from '@ledger/config';
import { DEV_JWT_SECRET, hs256Key, mintToken, type SigningKey } from '@ledger/tokens';
import { createLedgerApp } from '../../apps/ledger/src/bootstrap';
import { LedgerHarness, runId, startLedger, TEST_DATABASE_URL } from '../support/ledger-harness';

jest.setTimeout(120_000);

const ROOT = resolve(__dirname, '../..');
const NO_KEY: EnvSource = { JWT_SECRET: undefined, JWT_PUBLIC_KEY_FILE: undefined, JWT_JWKS_FILE: undefined };
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const nowS = () => Math.floor(Date.now() / 1000);
const GOOD = { iss: 'baccarat-ledger', aud: 'baccarat-ledger-api' };

async function call(h: LedgerHarness, token: string, method = 'GET', path = '/tables', body?: unknown): Promise<{ status: number; code?: string; message?: string }> {
  const res = await fetch(`${h.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  return { status: res.status, code: parsed?.error?.code, message: parsed?.error?.message };
}

/** Starts `dist/apps/ledger/src/main.js` (as `npm start` does) and waits for it to exit. */
function startApiProcess(env: EnvSource): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['-r', 'tsconfig-paths/register', 'dist/apps/ledger/src/main.js'], {
      cwd: ROOT,
      env: { ...process.env, TS_NODE_BASEURL: './dist', DATABASE_URL: TEST_DATABASE_URL, PORT: String(40_000 + Math.floor(Math.random() * 20_000)), ...NO_KEY, ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the API did not exit within 60 s:\n${output}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

async function refusedConfig(env: EnvSource): Promise<ConfigError> {
  const started = createLedgerApp({ logger: false, env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, ...NO_KEY, ...env } });
  await expect(started).rejects.toBeInstanceOf(ConfigError);
  return started.catch((e: ConfigError) => e) as Promise<ConfigError>;
}

describe('attack: start the API outside development mode without a key of its own', () => {
  it('refuses to start, naming JWT_SECRET (in-process)', async () => {
    for (const env of [{ LEDGER_ENV: 'production' }, { LEDGER_ENV: undefined }]) {
      const e = await refusedConfig(env);
      expect(e.problems.map((p) => p.variable)).toEqual(['JWT_SECRET']);
      expect(e.message).toMatch(/JWT_SECRET: required outside development mode \(LEDGER_ENV=development\)/);
    }
  });

  it('refuses the development secret from the repository, and a short secret, as its key', async () => {
    expect((await refusedConfig({ LEDGER_ENV: 'production', JWT_SECRET: DEV_JWT_SECRET })).message).toMatch(/JWT_SECRET: is the public development secret/);
    expect((await refusedConfig({ LEDGER_ENV: 'production', JWT_SECRET: 'sixteen-byte-key' })).message).toMatch(/JWT_SECRET: expected a secret of at least 32 bytes, got a value of 16 bytes/);
  });

  it('the API process (dist/, as npm start) exits 1 with a message naming the variable', async () => {
    const { code, output } = await startApiProcess({ LEDGER_ENV: 'production' });
    expect(code).toBe(1);
    expect(output).toMatch(/ledger-api: invalid configuration \(LedgerApiEnv\):\n\s+JWT_SECRET: required outside development mode/);
    const bad = await startApiProcess({ LEDGER_ENV: 'production', JWT_SECRET: randomBytes(24).toString('hex'), SHOE_CACHE_SIZE: 'lots' });
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/SHOE_CACHE_SIZE: expected an integer 1\.\.100000 \(shoes\), got "lots"/);
  });
});

describe('attack: forged tokens against a production-mode API with an HS256 secret', () => {
  const secret = randomBytes(48).toString('base64');
  const key: SigningKey = hs256Key(secret);
  let h: LedgerHarness;

  beforeAll(async () => {
    h = await startLedger({ env: { LEDGER_ENV: 'production', ...NO_KEY, JWT_SECRET: secret } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('accepts a token signed with its own secret (the control)', async () => {
    expect((await call(h, mintToken({ sub: 'aud-1', role: 'auditor' }, key))).status).toBe(200);
  });

  it('refuses tokens signed with the development secret (401), whatever their claims', async () => {
    const devKey = hs256Key(DEV_JWT_SECRET);
    const forged = [
      mintToken({ sub: 'pm-1', role: 'pit-manager' }, devKey),
      // the 100-year pit-manager token
      sign({ role: 'pit-manager' }, DEV_JWT_SECRET, { subject: 'pm-1', algorithm: 'HS256', expiresIn: '36500d' }),
    ];
    for (const token of forged) expect(await call(h, token)).toMatchObject({ status: 401, code: 'AUTH.UNAUTHENTICATED', message: expect.stringMatching(/invalid signature/) });
  });

  it('refuses alg none and the other HMAC algorithms (401)', async () => {
    const claims = { sub: 'pm-1', role: 'pit-manager', ...GOOD, iat: nowS(), exp: nowS() + 600 };
    const good = mintToken({ sub: 'pm-1', role: 'pit-manager' }, key);
    expect(await call(h, `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`)).toMatchObject({ status: 401, message: expect.stringMatching(/algorithm "none" is not accepted/) });
    expect(await call(h, `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.${good.split('.')[2]}`)).toMatchObject({ status: 401 });
    expect(await call(h, sign(claims, secret, { algorithm: 'HS512' }))).toMatchObject({ status: 401, message: expect.stringMatching(/algorithm "HS512"/) });
  });

  it('refuses a wrong or missing iss or aud (401)', async () => {
    const token = (over: Record<string, unknown>) => sign({ sub: 'pm-1', role: 'pit-manager', ...GOOD, exp: nowS() + 600, ...over } satisfies Record<string, unknown>, secret, { algorithm: 'HS256' });
    expect(await call(h, token({ iss: 'someone-else' }))).toMatchObject({ status: 401, message: expect.stringMatching(/issuer invalid/) });
    expect(await call(h, token({ aud: 'another-api' }))).toMatchObject({ status: 401, message: expect.stringMatching(/audience invalid/) });
    expect(await call(h, token({ iss: undefined }))).toMatchObject({ status: 401, message: expect.stringMatching(/issuer invalid/) });
    expect(await call(h, token({ aud: undefined }))).toMatchObject({ status: 401, message: expect.stringMatching(/audience invalid/) });
  });

  it('refuses a lifetime over the maximum (12 h), and a token without exp or iat (401)', async () => {
    expect(await call(h, mintToken({ sub: 'pm-1', role: 'pit-manager' }, key, { ttlSeconds: 12 * 3600 + 60 }))).toMatchObject({
      status: 401,
      message: expect.stringMatching(/token lifetime 43260 s \(exp - iat\) exceeds the maximum 43200 s/),
    });
    expect(await call(h, sign({ sub: 'pm-1', role: 'pit-manager', ...GOOD } satisfies Record<string, unknown>, secret, { algorithm: 'HS256' }))).toMatchObject({ status: 401, message: expect.stringMatching(/iat and exp/) });
    expect(await call(h, sign({ sub: 'pm-1', role: 'pit-manager', ...GOOD, exp: nowS() + 600 } satisfies Record<string, unknown>, secret, { algorithm: 'HS256', noTimestamp: true }))).toMatchObject({
      status: 401,
      message: expect.stringMatching(/iat and exp/),
    });
  });

  it('refuses a table-device token that names no tables (401)', async () => {
    expect(await call(h, mintToken({ sub: 'd1', role: 'table-device' }, key))).toMatchObject({ status: 401, message: expect.stringMatching(/must name its tables/) });
    expect((await call(h, mintToken({ sub: 'd1', role: 'table-device', tables: ['T-CLASSIC-01'] }, key))).status).toBe(200);
  });
});

describe('attack: a production-mode API holding only an RS256 public key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-keys-'));
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const rsKey: SigningKey = { algorithm: 'RS256', key: privateKey };
  let h: LedgerHarness;

  beforeAll(async () => {
    writeFileSync(join(dir, 'jwt-public.pem'), publicPem);
    h = await startLedger({ env: { LEDGER_ENV: 'production', ...NO_KEY, JWT_PUBLIC_KEY_FILE: join(dir, 'jwt-public.pem') } });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts tokens signed with the private key it never sees: a device opens a shoe on its table', async () => {
    const device = mintToken({ sub: 'device-rs', role: 'table-device', tables: ['T-CLASSIC-01'] }, rsKey);
    const shoeId = runId('S-rs');
    expect(await call(h, device, 'POST', '/tables/T-CLASSIC-01/shoes', { shoeId, dealerId: 'dealer-rs' })).toMatchObject({ status: 201 });
    expect((await call(h, mintToken({ sub: 'aud-rs', role: 'auditor' }, rsKey), 'GET', `/shoes/${shoeId}/events`)).status).toBe(200);
  });

  it('refuses HS256 "signed" with its public key (algorithm confusion), another RSA key, and the development secret (401)', async () => {
    const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'pm-1', role: 'pit-manager', ...GOOD, iat: nowS(), exp: nowS() + 600 })}`;
    const confused = `${input}.${createHmac('sha256', publicPem).update(input).digest('base64url')}`;
    expect(await call(h, confused)).toMatchObject({ status: 401, message: expect.stringMatching(/algorithm "HS256" is not accepted \(only RS256\)/) });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect(await call(h, mintToken({ sub: 'pm-1', role: 'pit-manager' }, { algorithm: 'RS256', key: other }))).toMatchObject({ status: 401, message: expect.stringMatching(/invalid signature/) });
    expect(await call(h, mintToken({ sub: 'pm-1', role: 'pit-manager' }, hs256Key(DEV_JWT_SECRET)))).toMatchObject({ status: 401 });
  });
});
