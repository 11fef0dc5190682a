import { createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { errorSpec, formatErrorMessage } from '@ledger/errors';
import type { StructuredLogger } from '@ledger/logging';
import { publicKeyPem, type AnchorSigningKey } from '../keys';
import { checkSigningRequest, signBody, signingSubject, SigningRefusal } from './requests';

/**
 * The report signer (docs/anchors.md, "The report signer"; `npm run signer`): a small HTTP server
 * that holds the report signing key so that the API does not. It answers two routes, each only to a
 * caller that shows the shared token (`Authorization: Bearer <token>`):
 *
 * - `GET /v1/key` → `{ keyId, publicKeyPem }`;
 * - `POST /v1/sign` with `{ kind, body }` (`application/json`) → `{ keyId, signature, sha256 }`, for a
 *   well-formed request of a kind the ledger signs (`requests.ts`), logged with what it signed.
 *
 * Anything else is refused with a code of the error table (`SIGNER.*`) and logged. It listens on a
 * Unix domain socket (mode 0660: the socket's owner and group reach it) or on a loopback port, never
 * on another address.
 */

/** Options of {@link startReportSigner}. */
export interface ReportSignerOptions {
  /** The private key it signs with. */
  readonly key: AnchorSigningKey;
  /** The shared secret every request must carry as its bearer token. */
  readonly token: string;
  /** `unix:<path>` (a Unix domain socket) or `<loopback host>:<port>` (port 0: any free one). */
  readonly listen: string;
  readonly logger: StructuredLogger;
  /** The largest request body read, in bytes. @default 16 MiB */
  readonly maxBodyBytes?: number;
}

/** A running signer. */
export interface RunningReportSigner {
  /** Where the API reaches it: `unix:<path>` or `http://<host>:<port>` (the value of `REPORT_SIGNER_URL`). */
  readonly url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const DEFAULT_MAX_BODY = 16 * 1024 * 1024;

/** Where to listen, from `unix:<path>` or `<host>:<port>`. @throws Error when it is neither, or not a loopback address */
export function parseSignerListen(listen: string): { socketPath: string } | { host: string; port: number } {
  if (listen.startsWith('unix:')) {
    const socketPath = listen.slice('unix:'.length);
    if (socketPath === '') throw new Error('the signer socket path is empty');
    return { socketPath };
  }
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(listen);
  if (!m || Number(m[2]) > 65535) throw new Error(`${listen}: expected unix:<path> or <loopback host>:<port>`);
  if (!LOOPBACK.has(m[1])) throw new Error(`${listen}: the signer listens on a Unix socket or a loopback address only`);
  return { host: m[1], port: Number(m[2]) };
}

/** Starts the signer. @throws Error when `listen` is not a Unix socket or a loopback address, or it cannot listen there */
export async function startReportSigner(o: ReportSignerOptions): Promise<RunningReportSigner> {
  const where = parseSignerListen(o.listen);
  const server = createServer((req, res) => {
    handle(o, req, res).catch((err: unknown) => {
      o.logger.error({ err: (err as Error).message }, 'signer: request failed');
      if (!res.headersSent) answer(res, 500, { error: { code: 'INTERNAL', message: formatErrorMessage('INTERNAL') } });
    });
  });
  if ('socketPath' in where) removeStaleSocket(where.socketPath);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('socketPath' in where) server.listen(where.socketPath, resolve);
    else server.listen(where.port, where.host, resolve);
  });
  let url: string;
  if ('socketPath' in where) {
    chmodSync(where.socketPath, 0o660);
    url = `unix:${where.socketPath}`;
  } else {
    const a = server.address() as { port: number };
    url = `http://${where.host.includes(':') ? `[${where.host}]` : where.host}:${a.port}`;
  }
  o.logger.info({ url, keyId: o.key.keyId }, 'report signer listening');
  return { url, close: () => closeServer(server) };
}

function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // nothing there
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function authorized(req: IncomingMessage, token: string): boolean {
  const h = req.headers.authorization;
  if (typeof h !== 'string' || !h.startsWith('Bearer ')) return false;
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(h.slice('Bearer '.length)), digest(token));
}

async function handle(o: ReportSignerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    if (!authorized(req, o.token)) throw new SigningRefusal('SIGNER.UNAUTHORIZED', 'no or a wrong bearer token');
    if (req.method === 'GET' && req.url === '/v1/key') {
      answer(res, 200, { keyId: o.key.keyId, publicKeyPem: publicKeyPem(o.key.publicKey) });
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/sign') throw new SigningRefusal('SIGNER.MALFORMED_REQUEST', 'the signer answers GET /v1/key and POST /v1/sign only');
    if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(req.headers['content-type'] ?? '')) throw new SigningRefusal('SIGNER.MALFORMED_REQUEST', 'the body must be application/json');
    const text = await readBody(req, o.maxBodyBytes ?? DEFAULT_MAX_BODY);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new SigningRefusal('SIGNER.MALFORMED_REQUEST', 'the body is not JSON');
    }
    const request = checkSigningRequest(value, o.key.keyId);
    const signed = signBody(request.body, o.key.privateKey, o.key.keyId);
    o.logger.info({ kind: request.kind, keyId: signed.keyId, sha256: signed.sha256, bytes: Buffer.byteLength(text), ...signingSubject(request) }, 'signed');
    answer(res, 200, signed);
  } catch (err) {
    if (!(err instanceof SigningRefusal)) throw err;
    o.logger.warn({ code: err.code, problem: err.problem, method: req.method, url: req.url }, 'signing request refused');
    answer(res, errorSpec(err.code).status, { error: { code: err.code, message: formatErrorMessage(err.code, { problem: err.problem }), details: { problem: err.problem } } });
    req.resume();
  }
}

function readBody(req: IncomingMessage, max: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > max) return Promise.reject(new SigningRefusal('SIGNER.TOO_LARGE', `the body is over ${max} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        req.removeAllListeners('data');
        reject(new SigningRefusal('SIGNER.TOO_LARGE', `the body is over ${max} bytes`));
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}
