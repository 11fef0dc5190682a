import { createPublicKey, type KeyObject } from 'node:crypto';
import { request } from 'node:http';
import { publicKeyId } from '../checkpoint';
import type { SigningAnswer, SigningKind } from './requests';

/**
 * The API's side of the report signer (`server.ts`; docs/anchors.md, "The report signer"): asks it
 * for its public key and for signatures, over a Unix domain socket (`unix:<path>`) or a loopback
 * port (`http://127.0.0.1:<port>`), with the shared bearer token. Holds no private key.
 */
export class ReportSignerClient {
  private readonly target: { socketPath: string } | { host: string; port: number };

  /**
   * @param url `unix:<path>` or `http://<host>:<port>` (`REPORT_SIGNER_URL`)
   * @param token the shared secret (`REPORT_SIGNER_TOKEN_FILE`'s content)
   * @param timeoutMs how long one request may take
   * @throws Error when `url` is neither form
   */
  constructor(
    readonly url: string,
    private readonly token: string,
    private readonly timeoutMs = 10_000,
  ) {
    if (url.startsWith('unix:') && url.length > 'unix:'.length) this.target = { socketPath: url.slice('unix:'.length) };
    else {
      const u = new URL(url);
      if (u.protocol !== 'http:' || u.port === '') throw new Error(`${url}: expected unix:<path> or http://<host>:<port>`);
      this.target = { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) };
    }
  }

  /** The signer's key: its id and public key (the id checked against the key). @throws Error when it cannot be had */
  async key(): Promise<{ keyId: string; publicKey: KeyObject }> {
    const a = (await this.call('GET', '/v1/key')) as { keyId?: unknown; publicKeyPem?: unknown };
    if (typeof a.publicKeyPem !== 'string') throw new Error('the signer answered no public key');
    const publicKey = createPublicKey(a.publicKeyPem);
    if (publicKey.asymmetricKeyType !== 'ed25519' || publicKeyId(publicKey) !== a.keyId) throw new Error('the signer answered a key whose id is not its own');
    return { keyId: a.keyId as string, publicKey };
  }

  /** A signature of `body`'s canonical bytes. @throws Error naming the signer's refusal or the failure */
  async sign(kind: SigningKind, body: unknown): Promise<SigningAnswer> {
    const a = (await this.call('POST', '/v1/sign', { kind, body })) as Partial<SigningAnswer>;
    if (typeof a.keyId !== 'string' || typeof a.signature !== 'string' || typeof a.sha256 !== 'string') throw new Error('the signer answered no signature');
    return { keyId: a.keyId, signature: a.signature, sha256: a.sha256 };
  }

  private call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = { authorization: `Bearer ${this.token}` };
    if (text !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    return new Promise((resolve, reject) => {
      const req = request({ ...this.target, method, path, headers, timeout: this.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            return reject(new Error(`the signer at ${this.url} answered ${res.statusCode} with no JSON`));
          }
          if (res.statusCode === 200) return resolve(parsed);
          const e = (parsed as { error?: { code?: string; message?: string } }).error;
          reject(new Error(`the signer at ${this.url} refused ${method} ${path}: ${res.statusCode} ${e?.code ?? ''} ${e?.message ?? ''}`.trim()));
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`the signer at ${this.url} did not answer within ${this.timeoutMs} ms`)));
      req.on('error', (err) => reject(new Error(`the signer at ${this.url} cannot be reached: ${err.message}`)));
      req.end(text);
    });
  }
}
