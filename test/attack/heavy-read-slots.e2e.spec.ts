/**
 * Attacks on the heavy reads' slots (docs/architecture.md §10, "Limits at the edge"; README, "Limits
 * at the edge"): a heavy read must give its slot back — and its connection of the heavy reads' pool,
 * and its snapshot transaction — whatever the client does with the answer. Through HTTP against the
 * real API (in-process), PostgreSQL and Kafka, with the default slots (`HEAVY_READS_PER_CALLER` 1,
 * `HEAVY_READS_MAX_CONCURRENT` 4), an idle timeout of a second (`HEAVY_READ_IDLE_TIMEOUT_MS`) and
 * exports read 20 rows a batch (`EXPORT_BATCH_ROWS`). The heavy download is `GET /exports/events` of
 * a period that holds about 24 MB of events (appended by the owner's store: far more than the socket
 * buffers of a connection take in, so a reader that stops reading stops the export):
 * - (a) more downloads than the API has slots are aborted by their clients: some after the first few
 *   KB, some before their first byte (each held on a lock of `query_log`, which an export writes
 *   before its first byte, until its client has gone);
 * - (b) more downloads than the API has slots are stalled by their clients: they read a few KB, then
 *   never read again and never close;
 * - (c) an export past its statement timeout (the events table locked by the owner).
 * After each, the recall of a round, a chain check and an export answer 200 for a caller that
 * aborted or stalled and for another caller (polled while they answer 429 `RATE.HEAVY_READ_BUSY`),
 * no heavy read is left in flight and no connection of the heavy reads' pool is left idle in a
 * transaction.
 *
 * Failed on the code before: a download whose client went away while the export read a batch (or
 * before its first byte) wrote into the closed response and waited for a `drain` that never came,
 * holding its slot and its snapshot transaction until the API restarted (the filed `curl … | head`);
 * a stalled download waited for `drain` for ever; four of them answered every heavy read of every
 * caller 429 (`api: at most 4`).
 * The failure timers below only detect a hang (the old code's behaviour); no assertion depends on speed.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NewEvent } from '@ledger/events';
import { metricValue } from '@ledger/metrics';
import { generateShoeScript, runShoeScript, type SimTable } from '@ledger/simulator';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';
import { waitApplied } from '../support/shoe-steps';

jest.setTimeout(420_000);

/** How long a read may answer 429 before the test calls it a hang (the old code's failure), in ms. */
const HANG_MS = 60_000;
/** `HEAVY_READ_IDLE_TIMEOUT_MS` of the API under attack. */
const IDLE_MS = 1_000;
/** `HEAVY_READS_MAX_CONCURRENT` (the default). */
const API_SLOTS = 4;
/** Bulk events appended for the heavy download: count × filler bytes ≈ 24 MB. */
const BULK_EVENTS = 1_500;
const FILLER_BYTES = 16_000;

const CLASSIC = 'T-CLASSIC-01';
const TIGER = 'T-TIGER-01';
const tables: SimTable[] = JSON.parse(readFileSync(join(__dirname, '../../config/tables.json'), 'utf8')).tables;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One download over its own connection, once its status line and headers have come. */
interface Download {
  status: number;
  req: ClientRequest;
  res: IncomingMessage;
}

/** Opens `GET path` on a connection of its own; resolves when the answer's headers have come. */
function openDownload(baseUrl: string, path: string, bearer: string): Promise<Download> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${bearer}` }, agent: false }, (res) => {
      res.on('error', () => undefined);
      resolve({ status: res.statusCode ?? 0, req, res });
    });
    // after the answer came, an error is the cut this spec provokes (or the server's own cut)
    req.on('error', reject);
    req.end();
  });
}

/** Reads at least `bytes` of the body, then stops reading (the socket is no longer read). */
function readAtLeast(res: IncomingMessage, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let got = 0;
    const onData = (chunk: Buffer) => {
      got += chunk.length;
      if (got < bytes) return;
      res.off('data', onData);
      res.pause();
      resolve(got);
    };
    res.on('data', onData);
    res.once('end', () => reject(new Error(`the download ended after ${got} bytes, before ${bytes}: the export is too small to attack`)));
  });
}

/** The answer of a JSON or text read. */
interface Answer {
  status: number;
  body: any;
  text: string;
}

async function get(baseUrl: string, path: string, bearer: string): Promise<Answer> {
  const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${bearer}` } });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: res.status, body, text };
}

/**
 * `GET path` until it answers something else than 429 `RATE.HEAVY_READ_BUSY` (a slot still held);
 * `'hang'` when it still answers 429 after {@link HANG_MS}.
 */
async function whenSlotFree(baseUrl: string, path: string, bearer: string): Promise<Answer | 'hang'> {
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    const a = await get(baseUrl, path, bearer);
    if (a.status !== 429) return a;
    expect(a.body?.error?.code).toBe('RATE.HEAVY_READ_BUSY');
    if (Date.now() > deadline) return 'hang';
    await sleep(250);
  }
}

/** Polls `probe` until it is true; false when it is still false after {@link HANG_MS}. */
async function eventually(probe: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await sleep(250);
  }
}

describe('heavy reads always give their slot back: aborted and stalled downloads, a statement timeout', () => {
  let h: LedgerHarness;
  let shoeId: string;
  let roundId: string;
  /** A small period (the dealt shoe) and the ~24 MB one (the bulk). */
  let small: { from: string; to: string };
  let big: { from: string; to: string };
  const open: Download[] = [];
  const bearer = (sub: string) => h.client.token('auditor', sub);
  const bigExport = () => `/exports/events?from=${encodeURIComponent(big.from)}&to=${encodeURIComponent(big.to)}`;
  const smallExport = () => `/exports/events?from=${encodeURIComponent(small.from)}&to=${encodeURIComponent(small.to)}`;

  /** Recall, a shoe chain check, a table chain check and an export: each 200 (after waiting while 429) for `sub`. */
  async function everyHeavyReadAnswers(sub: string): Promise<void> {
    const recall = await whenSlotFree(h.baseUrl, `/shoes/${shoeId}/rounds/${roundId}/recall`, bearer(sub));
    expect(recall === 'hang' ? 'recall still 429' : [recall.status, recall.body?.round?.roundId]).toEqual([200, roundId]);
    const shoeChain = await whenSlotFree(h.baseUrl, `/shoes/${shoeId}/chain`, bearer(sub));
    expect(shoeChain === 'hang' ? 'shoe chain still 429' : [shoeChain.status, shoeChain.body?.ok]).toEqual([200, true]);
    const tableChain = await whenSlotFree(h.baseUrl, `/tables/${CLASSIC}/chain`, bearer(sub));
    expect(tableChain === 'hang' ? 'table chain still 429' : [tableChain.status, tableChain.body?.ok]).toEqual([200, true]);
    const exported = await whenSlotFree(h.baseUrl, smallExport(), bearer(sub));
    expect(exported === 'hang' ? 'export still 429' : exported.status).toBe(200);
    const lines = (exported as Answer).text.trimEnd().split('\n');
    expect(JSON.parse(lines[lines.length - 1])).toEqual({ trailer: { rows: lines.length - 2 } });
  }

  /** Nothing held: no heavy read in flight, no connection of the heavy reads' pool idle in a transaction. */
  async function nothingHeld(): Promise<void> {
    expect(await eventually(async () => (await metricValue('ledger_heavy_reads_in_flight')) === 0)).toBe(true);
    const idle = async () =>
      (await h.ds.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ledger-api-heavy-reads' AND state LIKE 'idle in transaction%'`))[0].n as number;
    expect(await eventually(async () => (await idle()) === 0)).toBe(true);
  }

  beforeAll(async () => {
    h = await startLedger({ env: { HEAVY_READ_IDLE_TIMEOUT_MS: String(IDLE_MS), EXPORT_BATCH_ROWS: '20', HEAVY_READ_STATEMENT_TIMEOUT_MS: '5000' } });
    const relay = await h.startRelay();
    await h.startProjector();

    // a short shoe, projected: a round to recall, chains to check, a small period to export
    small = { from: new Date(Date.now() - 1).toISOString(), to: '' };
    shoeId = runId('slots');
    const table = tables.find((t) => t.tableId === CLASSIC) ?? tables[0];
    await runShoeScript(generateShoeScript(table, 'heavy-slots', { shoeId, dealerId: 'dealer-1', accounts: 2, betChance: 0.8, maxRounds: 2 }), h.client);
    roundId = `${shoeId}-R001`;
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    await waitApplied(h.client, stored[stored.length - 1].eventId);
    await sleep(5);
    small.to = new Date().toISOString();
    await sleep(5);

    // the bulk of the heavy download, never published (the relay stops first): nothing for the projector
    await relay.stop();
    big = { from: new Date().toISOString(), to: '' };
    const streamId = `shoe-${runId('bulk')}`;
    for (let version = 0; version < BULK_EVENTS; version += 100) {
      const events: NewEvent[] = Array.from({ length: 100 }, (_, i) => ({ eventId: randomUUID(), type: 'DealerChanged', data: { dealerId: `dealer-${version + i}`, filler: 'x'.repeat(FILLER_BYTES) } }) as unknown as NewEvent);
      await h.store.append({ streamId, tableId: TIGER, expectedVersion: version, events, metadata: { actor: { id: 'bulk', role: 'table-device' }, correlationId: randomUUID() } });
    }
    await sleep(5);
    big.to = new Date().toISOString();
  });

  afterAll(async () => {
    for (const d of open) d.req.destroy();
    await h?.close();
  });

  it('(a) downloads aborted after a few KB and before their first byte, more than the slots: every heavy read answers again, for them and for another caller', async () => {
    const run = randomUUID().slice(0, 6);
    const abortedBefore = await metricValue('ledger_heavy_reads_cut_total', { reason: 'aborted' });
    // after a few KB: one caller after the other (each waits for a slot, as a retrying client would)
    for (let i = 0; i < API_SLOTS + 2; i++) {
      const sub = `aud-abort-${run}-${i % 2}`;
      let d: Download | null = null;
      const deadline = Date.now() + HANG_MS;
      while (!d) {
        const tried = await openDownload(h.baseUrl, bigExport(), bearer(sub));
        if (tried.status === 200) d = tried;
        else {
          tried.res.resume();
          expect(tried.status).toBe(429);
          expect(Date.now() < deadline ? 'waiting' : 'the slot of an aborted download never came back').toBe('waiting');
          await sleep(250);
        }
      }
      await readAtLeast(d.res, 4096);
      d.req.destroy();
    }

    // the aborted downloads above have all given their slot back (on a loaded machine an export may
    // still be inside a batch query when its client goes: it stops at its next write)
    await nothingHeld();
    // before the first byte: each export is held on query_log (written before the first byte) until its client has gone
    const holder = h.ds.createQueryRunner();
    await holder.connect();
    await holder.query('BEGIN');
    // the holder waits, idle in its transaction, as long as the exports take to queue behind it
    await holder.query('SET LOCAL idle_in_transaction_session_timeout = 0');
    await holder.query('LOCK TABLE query_log IN ACCESS EXCLUSIVE MODE');
    const waitingOnQueryLog = async () => (await h.ds.query(`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'query_log' AND NOT l.granted`))[0].n as number;
    const early: ClientRequest[] = [];
    try {
      for (let i = 0; i < API_SLOTS; i++) {
        const req = httpRequest(`${h.baseUrl}${bigExport()}`, { headers: { authorization: `Bearer ${bearer(`aud-early-${run}-${i}`)}` }, agent: false });
        req.on('error', () => undefined);
        req.end();
        early.push(req);
      }
      // every slot taken, every export waiting on the lock, before its first byte
      expect(await eventually(async () => (await waitingOnQueryLog()) === API_SLOTS)).toBe(true);
      const full = await get(h.baseUrl, `/shoes/${shoeId}/chain`, bearer(`aud-other-${run}`));
      expect([full.status, full.body?.error?.code, full.body?.error?.details?.scope]).toEqual([429, 'RATE.HEAVY_READ_BUSY', 'api']);
      for (const req of early) req.destroy();
    } finally {
      // a failed COMMIT must not hide the failure that brought us here
      await holder.query('COMMIT').catch(() => undefined);
      await holder.release();
    }

    await everyHeavyReadAnswers(`aud-abort-${run}-0`);
    await everyHeavyReadAnswers(`aud-early-${run}-0`);
    await everyHeavyReadAnswers(`aud-other-${run}`);
    await nothingHeld();
    // every aborted download was seen closing before its end (counted)
    expect((await metricValue('ledger_heavy_reads_cut_total', { reason: 'aborted' })) - abortedBefore).toBe(API_SLOTS + 2 + API_SLOTS);
  });

  it('(b) downloads that stop reading and never close, more than the slots: cut after the idle timeout, every heavy read answers again, for them and for another caller', async () => {
    const run = randomUUID().slice(0, 6);
    const cutBefore = await metricValue('ledger_heavy_reads_cut_total', { reason: 'stalled' });
    const downloads = await Promise.all(Array.from({ length: API_SLOTS + 2 }, (_, i) => openDownload(h.baseUrl, bigExport(), bearer(`aud-stall-${run}-${i}`))));
    open.push(...downloads);
    const stalled = downloads.filter((d) => d.status === 200);
    for (const d of downloads) {
      if (d.status === 200) continue;
      d.res.resume();
      expect(d.status).toBe(429);
    }
    expect(stalled.length).toBeGreaterThanOrEqual(1);
    // a few KB each, then never read again
    await Promise.all(stalled.map((d) => readAtLeast(d.res, 4096)));

    const staller = `aud-stall-${run}-${downloads.indexOf(stalled[0])}`;
    await everyHeavyReadAnswers(staller);
    await everyHeavyReadAnswers(`aud-other-${run}`);
    await nothingHeld();
    // each stalled download was cut by the API (counted), not finished
    expect((await metricValue('ledger_heavy_reads_cut_total', { reason: 'stalled' })) - cutBefore).toBe(stalled.length);
  });

  it('(c) an export past its statement timeout: 503 DATABASE.TIMEOUT, and every heavy read answers again', async () => {
    const run = randomUUID().slice(0, 6);
    const holder = h.ds.createQueryRunner();
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE events IN ACCESS EXCLUSIVE MODE');
    let timedOut: Answer;
    try {
      timedOut = await get(h.baseUrl, bigExport(), bearer(`aud-timeout-${run}`));
    } finally {
      await holder.query('COMMIT');
      await holder.release();
    }
    expect([timedOut.status, timedOut.body?.error?.code]).toEqual([503, 'DATABASE.TIMEOUT']);
    await everyHeavyReadAnswers(`aud-timeout-${run}`);
    await everyHeavyReadAnswers(`aud-other-${run}`);
    await nothingHeld();
  });
});
