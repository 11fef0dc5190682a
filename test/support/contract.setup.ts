import { appendFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ResponseContract } from './openapi-contract';

/**
 * Jest setup of the e2e project (jest.config.js `setupFilesAfterEnv`; the attack specs
 * test/attack/*.e2e.spec.ts are in it too): `fetch` — what every e2e and attack spec and the
 * simulator's LedgerClient call — is wrapped so that every answer from a loopback HTTP server (the
 * ledger under test) is checked against docs/openapi.json ({@link ResponseContract}, the
 * document as a contract, docs/architecture.md §4). A test during which an answer broke the
 * document fails with the list of violations (answers of `beforeAll` count for the next test, or
 * fail the file in `afterAll`). The counts of each spec file are appended to
 * `.stack/contract-responses.jsonl`.
 */

const original = globalThis.fetch;
let contract: ResponseContract | undefined;
let pending: string[] = [];

/** True for a URL of a server on this machine (the ledger under test). */
function isLoopback(url: URL): boolean {
  return (url.protocol === 'http:' || url.protocol === 'https:') && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
  const res = await original(input, init);
  const raw = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const url = new URL(raw);
  if (!isLoopback(url)) return res;
  contract ??= await ResponseContract.create();
  const method = (init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET')).toUpperCase();
  const contentType = res.headers.get('content-type') ?? '';
  // a stream (SSE) never ends: its status and type are checked, its body is the spec's to read
  const body = contentType.startsWith('text/event-stream') || method === 'HEAD' ? null : await res.clone().text();
  const verdict = contract.check({ method, url: url.pathname + url.search, status: res.status, contentType, body });
  pending.push(...verdict.problems);
  return res;
};

/** The violations seen since the last call, as one error (none: nothing thrown). */
function flush(when: string): void {
  if (pending.length === 0) return;
  const list = pending;
  pending = [];
  throw new Error(`${list.length} answer(s) do not match docs/openapi.json (${when}):\n- ${list.slice(0, 30).join('\n- ')}`);
}

afterEach(() => flush('during this test or the setup before it'));

afterAll(() => {
  if (contract) {
    const total = Object.values(contract.counts).reduce((a, b) => a + b, 0);
    const dir = join(__dirname, '../../.stack');
    mkdirSync(dir, { recursive: true });
    appendFileSync(join(dir, 'contract-responses.jsonl'), `${JSON.stringify({ spec: relative(join(__dirname, '../..'), expect.getState().testPath ?? ''), total, ...contract.counts })}\n`);
  }
  flush('after the last test');
});
