/**
 * The report signing key can live apart from the API (docs/anchors.md, "The report signer"): the
 * signer (`npm run signer`, a process of its own) holds the private key; the API is started with
 * `REPORT_SIGNER_URL` (its Unix socket) and the shared token, and no private key file. A pit
 * manager's close of an ended gaming day is then signed by the signer's key, its signature verifies
 * with the signer's public key, the API serves the close as genuine, and the signer logged what it
 * signed; so is an export bundle's manifest. With the signer gone, a close is refused (503) rather
 * than signed some other way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { publicKeyId } from '@ledger/anchors';
import { canonicalJson } from '@ledger/event-store';
import { verifyReport } from '../../apps/ledger/src/kernel/closes/close-report';
import { LedgerHarness, startLedger } from '../support/ledger-harness';

jest.setTimeout(180_000);

const ROOT = resolve(__dirname, '../..');
const TABLE = 'T-CLASSIC-01';

/** Starts `npm run signer` (tsx scripts/signer.ts); resolves once it says it listens. */
function startSigner(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/signer.ts'], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((res, rej) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('report signer listening')) res({ child, output: () => out });
    });
    child.stderr!.on('data', (d) => (out += d));
    child.on('exit', (code) => rej(new Error(`the signer exited ${code}: ${out}`)));
  });
}

describe('the report signer: closes signed by a process that holds the key, the API holding none', () => {
  let dir: string;
  let h: LedgerHarness;
  let signer: { child: ChildProcess; output: () => string };
  let keyId: string;
  let publicKeyPem: string;
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${h.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.client.token('pit-manager', 'pm-1')}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'report-signer-e2e-'));
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(join(dir, 'report-private.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const pub = createPublicKey(privateKey);
    keyId = publicKeyId(pub);
    publicKeyPem = pub.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(join(dir, 'token'), randomBytes(32).toString('hex'), { mode: 0o600 });
    const socket = join(dir, 'signer.sock');
    signer = await startSigner({ SIGNER_KEY_FILE: join(dir, 'report-private.pem'), SIGNER_TOKEN_FILE: join(dir, 'token'), SIGNER_LISTEN: `unix:${socket}` });
    // the API: the signer's socket and token, no private key file (REPORT_SIGNING_KEY_FILE unset)
    h = await startLedger({ env: { REPORT_SIGNER_URL: `unix:${socket}`, REPORT_SIGNER_TOKEN_FILE: join(dir, 'token'), REPORT_SIGNING_KEY_FILE: undefined } });
    await h.startRelay();
    await h.startProjector();
  });
  afterAll(async () => {
    await h?.close();
    if (signer && signer.child.exitCode === null) signer.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('a close is signed by the signer, verifies with its public key, and is served as genuine', async () => {
    const day = '2020-01-02';
    const closed = await call(`/gaming-days/${day}/close`, { tableIds: [TABLE] });
    expect(closed.status).toBe(201);
    expect(closed.body.keyId).toBe(keyId);
    const bytes = Buffer.from(closed.body.bytes, 'utf8');
    expect(verifyReport(bytes, closed.body.signature, createPublicKey(publicKeyPem))).toBe(true);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(closed.body.sha256);
    // the API checks the close with the signer's public key on every read: it serves it
    const fetched = await h.client.get('auditor', 'aud-1', `/gaming-days/${day}/close?tableId=${TABLE}`);
    expect(fetched.closes.map((c: { signature: string; keyId: string }) => [c.keyId, c.signature])).toEqual([[keyId, closed.body.signature]]);
    // the signer logged what it signed
    const signedLines = signer
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"signed"'))
      .map((l) => JSON.parse(l));
    expect(signedLines).toContainEqual(expect.objectContaining({ kind: 'gaming-day-close', keyId, sha256: closed.body.sha256, gamingDay: day, tableIds: [TABLE] }));
  });

  it("an export bundle's manifest is signed by the signer too", async () => {
    const auth = { authorization: `Bearer ${h.client.token('auditor', 'aud-1')}` };
    const ids: string[] = [];
    for (const kind of ['events', 'settlements', 'decisions', 'rejections', 'access-log']) {
      const res = await fetch(`${h.baseUrl}/exports/${kind}?from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z`, { headers: auth });
      await res.text();
      ids.push(res.headers.get('ledger-export-receipt')!);
    }
    const res = await fetch(`${h.baseUrl}/exports/manifest?receipts=${ids.join(',')}`, { headers: auth });
    expect(res.status).toBe(200);
    const m = (await res.json()) as { signed: { keyId: string }; keyId: string; signature: string };
    expect([m.keyId, m.signed.keyId]).toEqual([keyId, keyId]);
    expect(verify(null, Buffer.from(canonicalJson(m.signed), 'utf8'), createPublicKey(publicKeyPem), Buffer.from(m.signature, 'base64'))).toBe(true);
    expect(signer.output()).toContain('"kind":"export-manifest"');
  });

  it('with the signer stopped, a close is refused, not signed another way', async () => {
    const exited = new Promise((r) => signer.child.once('exit', r));
    signer.child.kill('SIGTERM');
    await exited;
    const refused = await call(`/gaming-days/2020-01-03/close`, { tableIds: [TABLE] });
    expect([refused.status, refused.body.error.code]).toEqual([503, 'GAMING_DAY.NO_SIGNING_KEY']);
  });
});
