/**
 * The built console served by the API at `/console` (console-static.controller.ts) and the AsyncAPI
 * document at `/asyncapi`: public static files with the SPA fallback (a deep link answers
 * index.html), no path traversal, the cache and security headers; the AsyncAPI document with its
 * schema files inlined. Needs `dist/console` (scripts/test.sh builds it before the e2e tier).
 */
import { request } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LedgerHarness, startLedger } from '../support/ledger-harness';

jest.setTimeout(120_000);

const DIST = join(__dirname, '../../dist/console');

/** A GET with the path sent exactly as written (fetch would normalise `..` away). */
function rawGet(baseUrl: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console at /console and the AsyncAPI document at /asyncapi', () => {
  let h: LedgerHarness;
  const index = readFileSync(join(DIST, 'index.html'), 'utf8');
  const asset = readdirSync(join(DIST, 'assets')).find((f) => f.endsWith('.js'))!;

  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('serves index.html without a token, not cached, with a Content-Security-Policy', async () => {
    for (const path of ['/console', '/console/']) {
      const res = await fetch(`${h.baseUrl}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toBe(index);
    }
  });

  it('answers index.html for a deep link (single-page app), so a reload of any page works', async () => {
    for (const path of ['/console/shoes/S-1/rounds/R-1', '/console/tables', '/console/audit/events?shoeId=S-1', '/console/shoes/demo.1-T-CLASSIC-01/rounds']) {
      const res = await fetch(`${h.baseUrl}${path}`);
      expect([path, res.status, res.headers.get('cache-control')]).toEqual([path, 200, 'no-cache']);
      expect(await res.text()).toBe(index);
    }
  });

  it('serves the hashed assets as immutable, with their content type; a missing asset is 404, not index.html', async () => {
    const res = await fetch(`${h.baseUrl}/console/assets/${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toBe(readFileSync(join(DIST, 'assets', asset), 'utf8'));
    const missing = await fetch(`${h.baseUrl}/console/assets/nope-123.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('ROUTE.NOT_FOUND');
  });

  it('refuses path traversal however it is spelled', async () => {
    const pkg = readFileSync(join(__dirname, '../../package.json'), 'utf8');
    for (const path of [
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/..%2fpackage.json',
      '/console/..%2f..%2fpackage.json',
      '/console/assets/..%2f..%2f..%2fpackage.json',
      '/console/%2e%2e%2f%2e%2e%2fpackage.json',
      '/console/..%5c..%5cpackage.json',
      '/console/.env',
      '/console/%00index.html',
    ]) {
      const res = await rawGet(h.baseUrl, path);
      expect([path, res.body.includes('"baccarat-round-ledger"')]).toEqual([path, false]);
      expect(res.body).not.toBe(pkg);
      expect([path, res.status, JSON.parse(res.body).error.code]).toEqual([path, 404, 'ROUTE.NOT_FOUND']);
    }
  });

  it('GET /asyncapi answers the AsyncAPI document as JSON with its schema files inlined and every $ref resolvable', async () => {
    const res = await fetch(`${h.baseUrl}/asyncapi`, { headers: { authorization: `Bearer ${h.client.token('betting-platform', 'bp-1')}` } });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, any>;
    expect(typeof doc.asyncapi).toBe('string');
    expect(Object.keys(doc.channels).length).toBeGreaterThan(0);
    const refs: string[] = [];
    const walk = (n: unknown) => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === 'object') for (const [k, v] of Object.entries(n)) k === '$ref' && typeof v === 'string' ? refs.push(v) : walk(v);
    };
    walk(doc);
    expect(refs.filter((r) => !r.startsWith('#/'))).toEqual([]);
    const resolve = (ref: string) =>
      ref
        .slice(2)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<any>((o, k) => (o === undefined ? undefined : o[k]), doc);
    expect(refs.filter((r) => resolve(r) === undefined)).toEqual([]);
    expect(refs.length).toBeGreaterThan(10);
    const none = await fetch(`${h.baseUrl}/asyncapi`);
    expect(none.status).toBe(401);
  });
});
