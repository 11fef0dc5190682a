import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicKeyId } from '../checkpoint';
import { readSigningKey } from '../keys';
import { ReportSignerClient } from './client';
import { checkSigningRequest, signedBytes } from './requests';
import { parseSignerListen, startReportSigner, type RunningReportSigner } from './server';

/**
 * The report signer signs only what the ledger signs, and only for a caller with its token: a
 * well-formed close report or export manifest is signed (and logged); anything else — no token, a
 * wrong one, another route, a body that is not JSON or not of a known kind, a body of the right kind
 * with a field too many or a value of the wrong form, a manifest naming another key, an oversized
 * body — is refused with its code and signs nothing. Real HTTP over a Unix socket in a temporary folder.
 */

const TOKEN = 'a-shared-token-of-at-least-32-bytes-0123456789';

function closeBody(): Record<string, unknown> {
  return {
    header: {
      title: 'Gaming-day close',
      report: 'gaming-day-close',
      reportVersion: 1,
      period: { from: '2026-01-02', to: '2026-01-02' },
      filters: {},
      software: { name: 'x', version: '1' },
      generatedAt: '2026-01-03T06:00:00.000Z',
      noActivity: true,
    },
    gamingDay: '2026-01-02',
    tableIds: ['T-CLASSIC-01'],
    throughPosition: '42',
    trigger: 'MANAGER',
    early: null,
    gamingDayRule: { timeZone: 'UTC', cutoffHour: 6 },
    rows: [],
    totals: [],
    adjustments: [],
  };
}

function manifestBody(keyId: string): Record<string, unknown> {
  return {
    format: 'baccarat-ledger-export/2',
    header: { title: 'Export bundle', report: 'export.bundle', reportVersion: 2, period: { from: 'a', to: 'b' }, filters: {}, software: { name: 'x', version: '1' }, generatedAt: '2026-01-03T06:00:00.000Z', noActivity: false },
    ledgerId: 'ledger@1',
    period: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' },
    positions: { first: '1', last: '9' },
    files: [{ name: 'events.ndjson' }],
    anchors: [],
    keyId,
    signedAt: '2026-01-03T06:00:00.000Z',
  };
}

describe('the report signer', () => {
  let dir: string;
  let signer: RunningReportSigner;
  let keyId: string;
  const logged: Array<{ level: string; fields: Record<string, unknown>; msg?: string }> = [];
  const logger = {
    debug: () => undefined,
    info: (fields: Record<string, unknown>, msg?: string) => void logged.push({ level: 'info', fields, msg }),
    warn: (fields: Record<string, unknown>, msg?: string) => void logged.push({ level: 'warn', fields, msg }),
    error: (fields: Record<string, unknown>, msg?: string) => void logged.push({ level: 'error', fields, msg }),
  };

  /** A raw request to the signer's socket: the status and the parsed body. */
  function send(o: { method?: string; path?: string; token?: string | null; contentType?: string; body?: string }): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = { 'content-type': o.contentType ?? 'application/json' };
    if (o.token !== null) headers.authorization = `Bearer ${o.token ?? TOKEN}`;
    return new Promise((resolve, reject) => {
      const req = request({ socketPath: signer.url.slice('unix:'.length), method: o.method ?? 'POST', path: o.path ?? '/v1/sign', headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      req.on('error', reject);
      req.end(o.body);
    });
  }
  const sign = (value: unknown, token?: string | null) => send({ body: JSON.stringify(value), token });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'report-signer-'));
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(join(dir, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const key = readSigningKey(join(dir, 'key.pem'));
    keyId = key.keyId;
    signer = await startReportSigner({ key, token: TOKEN, listen: `unix:${join(dir, 'signer.sock')}`, logger, maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await signer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on a socket only its owner and group reach, or on a loopback port only', () => {
    expect(statSync(join(dir, 'signer.sock')).mode & 0o777).toBe(0o660);
    expect(parseSignerListen('127.0.0.1:7070')).toEqual({ host: '127.0.0.1', port: 7070 });
    expect(() => parseSignerListen('0.0.0.0:7070')).toThrow(/loopback/);
    expect(() => parseSignerListen('10.0.0.5:7070')).toThrow(/loopback/);
    expect(() => parseSignerListen('unix:')).toThrow();
  });

  it('signs a well-formed close report and export manifest, logging what it signed', async () => {
    const client = new ReportSignerClient(signer.url, TOKEN);
    const key = await client.key();
    expect(key.keyId).toBe(keyId);
    expect(publicKeyId(key.publicKey)).toBe(keyId);
    const v2 = closeBody();
    const layout2 = { ...v2, header: { ...(v2.header as object), reportVersion: 2 }, clockSkew: [{ tableId: 'T-CLASSIC-01', deviceEvents: 0, largest: null }] };
    // layout 3: the day's fairness verdict per table (a close of today's API: refused before, 503 NO_SIGNING_KEY)
    const layout3 = { ...layout2, header: { ...(v2.header as object), reportVersion: 3 }, fairness: [{ tableId: 'T-CLASSIC-01', rounds: 0, alert: false }] };
    for (const [kind, body] of [
      ['gaming-day-close', closeBody()],
      ['gaming-day-close', layout2],
      ['gaming-day-close', layout3],
      ['export-manifest', manifestBody(keyId)],
    ] as const) {
      const a = await client.sign(kind, body);
      expect(a.keyId).toBe(keyId);
      expect(verify(null, signedBytes(body), key.publicKey, Buffer.from(a.signature, 'base64'))).toBe(true);
      expect(logged).toContainEqual({ level: 'info', msg: 'signed', fields: expect.objectContaining({ kind, keyId, sha256: a.sha256 }) });
    }
    expect(logged).toContainEqual({ level: 'info', msg: 'signed', fields: expect.objectContaining({ gamingDay: '2026-01-02', tableIds: ['T-CLASSIC-01'], throughPosition: '42' }) });
  });

  it('refuses a caller without the token, or with another one', async () => {
    expect(await sign({ kind: 'gaming-day-close', body: closeBody() }, null)).toMatchObject({ status: 401, body: { error: { code: 'SIGNER.UNAUTHORIZED' } } });
    expect(await sign({ kind: 'gaming-day-close', body: closeBody() }, `${TOKEN}x`)).toMatchObject({ status: 401, body: { error: { code: 'SIGNER.UNAUTHORIZED' } } });
    expect(await send({ method: 'GET', path: '/v1/key', token: 'wrong', body: undefined })).toMatchObject({ status: 401 });
    await expect(new ReportSignerClient(signer.url, 'wrong').sign('gaming-day-close', closeBody())).rejects.toThrow(/401 SIGNER.UNAUTHORIZED/);
  });

  it('refuses malformed requests, and signs none of them', async () => {
    const before = logged.filter((l) => l.msg === 'signed').length;
    const close = closeBody();
    const cases: Array<[string, { status: number; code: string }, () => Promise<{ status: number; body: any }>]> = [
      ['another route', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => send({ path: '/v1/sign-anything', body: JSON.stringify({ kind: 'gaming-day-close', body: close }) })],
      ['GET /v1/sign', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => send({ method: 'GET', body: undefined })],
      ['not JSON', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => send({ body: '{"kind":' })],
      ['not application/json', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => send({ contentType: 'text/plain', body: JSON.stringify({ kind: 'gaming-day-close', body: close }) })],
      ['a JSON array', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign([close])],
      ['raw bytes to sign', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'bytes', body: { base64: 'aGVsbG8=' } })],
      ['an unknown kind', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'checkpoint', body: close })],
      ['a field beside kind and body', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'gaming-day-close', body: close, keyId })],
      ['a close with a field too many', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'gaming-day-close', body: { ...close, note: 'x' } })],
      ['a layout-1 close with a clock skew', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'gaming-day-close', body: { ...close, clockSkew: [] } })],
      [
        'a layout-2 close with a fairness verdict',
        { status: 400, code: 'SIGNER.MALFORMED_REQUEST' },
        () => sign({ kind: 'gaming-day-close', body: { ...close, header: { ...(close.header as object), reportVersion: 2 }, clockSkew: [], fairness: [] } }),
      ],
      [
        'a layout-3 close without its fairness verdict',
        { status: 400, code: 'SIGNER.MALFORMED_REQUEST' },
        () => sign({ kind: 'gaming-day-close', body: { ...close, header: { ...(close.header as object), reportVersion: 3 }, clockSkew: [] } }),
      ],
      ['a layout-2 close without its clock skew', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'gaming-day-close', body: { ...close, header: { ...(close.header as object), reportVersion: 2 } } })],
      ['a close without its tables', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'gaming-day-close', body: { ...close, tableIds: [] } })],
      ['a close with a bad day', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'gaming-day-close', body: { ...close, gamingDay: '2026-1-2' } })],
      ['a close with another report header', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'gaming-day-close', body: { ...close, header: { ...(close.header as object), report: 'reconciliation' } } })],
      ['a manifest body sent as a close', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'gaming-day-close', body: manifestBody(keyId) })],
      ['a manifest naming another key', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'export-manifest', body: manifestBody('ed25519:0000000000000000') })],
      ['a manifest of another format', { status: 400, code: 'SIGNER.MALFORMED_REQUEST' }, () => sign({ kind: 'export-manifest', body: { ...manifestBody(keyId), format: 'other/1' } })],
      ['an oversized body', { status: 413, code: 'SIGNER.TOO_LARGE' }, () => sign({ kind: 'gaming-day-close', body: { ...close, rows: [{ pad: 'x'.repeat(70 * 1024) }] } })],
    ];
    for (const [what, expected, run] of cases) {
      const r = await run();
      expect([what, r.status, r.body.error?.code]).toEqual([what, expected.status, expected.code]);
    }
    expect(logged.filter((l) => l.msg === 'signed').length).toBe(before);
    expect(logged.filter((l) => l.msg === 'signing request refused').length).toBeGreaterThanOrEqual(cases.length);
  });

  it('checkSigningRequest names what is wrong', () => {
    expect(() => checkSigningRequest({ kind: 'gaming-day-close', body: { ...closeBody(), trigger: 'ANYONE' } }, keyId)).toThrow(/trigger must be MANAGER or AUTOMATIC/);
    expect(() => checkSigningRequest({ kind: 'gaming-day-close', body: { ...closeBody(), extra: 1 } }, keyId)).toThrow(/unexpected extra/);
    expect(() => checkSigningRequest({ kind: 'export-manifest', body: manifestBody('ed25519:ffffffffffffffff') }, keyId)).toThrow(new RegExp(`keyId must be the signer's key, ${keyId}`));
    expect(checkSigningRequest({ kind: 'export-manifest', body: manifestBody(keyId) }, keyId).kind).toBe('export-manifest');
  });

  it('checks an export receipt seal body: exact fields, its format, a UUID, a hash, counts', () => {
    const receipt = {
      receipt: 'baccarat-ledger-export-receipt/1',
      id: '0b7c9a2e-5d41-4b8e-9f3a-2c6d8e1f4a70',
      actorId: 'aud-1',
      kind: 'events',
      format: 'jsonl',
      period: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' },
      positions: { first: '1', periodLast: '9', through: '9' },
      header: { report: 'export.events' },
      rows: 9,
      bytes: 1200,
      sha256: 'a'.repeat(64),
    };
    expect(checkSigningRequest({ kind: 'export-receipt', body: receipt }, keyId).kind).toBe('export-receipt');
    expect(() => checkSigningRequest({ kind: 'export-receipt', body: { ...receipt, extra: 1 } }, keyId)).toThrow(/unexpected extra/);
    expect(() => checkSigningRequest({ kind: 'export-receipt', body: { ...receipt, receipt: 'other/1' } }, keyId)).toThrow(/receipt must be baccarat-ledger-export-receipt\/1/);
    expect(() => checkSigningRequest({ kind: 'export-receipt', body: { ...receipt, sha256: 'x' } }, keyId)).toThrow(/sha256/);
    expect(() => checkSigningRequest({ kind: 'export-receipt', body: { ...receipt, rows: -1 } }, keyId)).toThrow(/rows must be a non-negative integer/);
  });
});
