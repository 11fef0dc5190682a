/**
 * `GET /live/tables` (README "The HTTP API"): server-sent events fed by the projector's
 * `pg_notify` on commit, no polling. A subscriber hears of a round once it is resulted AND
 * projected, never before: a read right after each event already shows what the event announced
 * (`lastGlobalPosition` of the shoe ≥ the event's position; the tables page shows the round).
 * Also: the keep-alive comment, the bound of streams per caller (429 `RATE.LIVE_STREAMS_BUSY`),
 * the subscription in the query log, and a LISTEN connection that comes back after PostgreSQL
 * drops it (then every table is announced). Real PostgreSQL, Kafka, relay and projector.
 */
import { generateShoeScript, runShoeScript, type SimTable } from '@ledger/simulator';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { LedgerHarness, runId, startLedger, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';

jest.setTimeout(240_000);

const tables: SimTable[] = JSON.parse(readFileSync('config/tables.json', 'utf8')).tables;

/** One server-sent event or comment as read from the stream. */
interface Sse {
  readonly event: string | null;
  readonly data: string | null;
  readonly comment: string | null;
  readonly at: number;
}

/** An open event stream: what arrived so far, and a way to wait for a matching item. */
class EventStream {
  readonly items: Sse[] = [];
  private waiters: { test: (e: Sse) => boolean; resolve: (e: Sse) => void }[] = [];
  private readonly abort = new AbortController();
  status = 0;
  contentType = '';

  static async open(url: string, token: string, onEvent?: (e: Sse) => Promise<void>): Promise<EventStream> {
    const s = new EventStream();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: s.abort.signal });
    s.status = res.status;
    s.contentType = res.headers.get('content-type') ?? '';
    if (res.status !== 200) {
      (s as { body?: unknown }).body = await res.json();
      return s;
    }
    void s.read(res.body!, onEvent);
    return s;
  }

  private async read(body: ReadableStream<Uint8Array>, onEvent?: (e: Sse) => Promise<void>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event: string | null = null;
          let data: string | null = null;
          let comment: string | null = null;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comment = line.slice(1).trim();
            else if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data = line.slice(5).trim();
          }
          const e = { event, data, comment, at: Date.now() };
          // each event handled before the next is read: a check made on arrival sees the state of that moment
          if (onEvent && event) await onEvent(e);
          this.items.push(e);
          for (const w of [...this.waiters]) if (w.test(e)) (this.waiters.splice(this.waiters.indexOf(w), 1), w.resolve(e));
        }
      }
    } catch {
      /* aborted */
    }
  }

  /** The first item (already arrived or to come) that passes `test`. */
  next(test: (e: Sse) => boolean, timeoutMs = 60_000): Promise<Sse> {
    const had = this.items.find(test);
    if (had) return Promise.resolve(had);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no such event within the time allowed')), timeoutMs);
      this.waiters.push({ test, resolve: (e) => (clearTimeout(t), resolve(e)) });
    });
  }

  close(): void {
    this.abort.abort();
  }
}

const tableEvents = (s: EventStream) => s.items.filter((e) => e.event === 'table').map((e) => JSON.parse(e.data!));

describe('GET /live/tables: server-sent events after each projection commit', () => {
  let h: LedgerHarness;
  const streams: EventStream[] = [];
  const table = tables.find((t) => t.tableId === 'T-TIGER-01')!;

  beforeAll(async () => {
    h = await startLedger();
    await h.startRelay();
    await h.startProjector();
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await h?.close();
  });

  it('announces a resulted round once it is projected, and a read right after each event shows it', async () => {
    const token = h.client.token('pit-manager', 'pm-live');
    const checks: { position: string; shoePosition: string | null; rounds: { roundId: string; status: string }[] }[] = [];
    const shoeId = runId('live');
    const live = await EventStream.open(`${h.baseUrl}/live/tables`, token, async (e) => {
      const d = JSON.parse(e.data!);
      if (d.shoeId !== shoeId) return;
      // right after the event: the projection it announced is committed and readable
      const overview = await h.client.get('pit-manager', 'pm-live', '/tables/overview');
      const mine = overview.tables.find((t: any) => t.tableId === table.tableId);
      checks.push({ position: d.globalPosition, shoePosition: null, rounds: mine.lastResults });
      const state = await h.client.get('auditor', 'aud-live', `/shoes/${shoeId}/state`);
      checks[checks.length - 1].shoePosition = state.lastGlobalPosition;
    });
    streams.push(live);
    expect([live.status, live.contentType]).toEqual([200, 'text/event-stream; charset=utf-8']);

    const script = generateShoeScript(table, 'live-1', { shoeId, dealerId: 'dealer-9', accounts: 2, betChance: 0.5, maxRounds: 2 });
    await runShoeScript(script, h.client);
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    const resulted = stored.filter((e) => e.type === 'RoundResulted');
    expect(resulted.length).toBe(2);
    const last = stored[stored.length - 1];
    await live.next((e) => e.event === 'table' && BigInt(JSON.parse(e.data!).globalPosition) >= BigInt(last.globalPosition));
    const events = tableEvents(live).filter((d) => d.shoeId === shoeId);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((d) => d.tableId === table.tableId && /^\d+$/.test(d.globalPosition))).toBe(true);
    // every event came after its commit: the shoe's projected position had reached it when read
    expect(checks.every((c) => c.shoePosition !== null && BigInt(c.shoePosition) >= BigInt(c.position))).toBe(true);
    // the first event at or past a RoundResulted: the tables page already lists that round as resulted
    for (const r of resulted) {
      const at = checks.find((c) => BigInt(c.position) >= BigInt(r.globalPosition))!;
      expect(at.rounds.find((x) => x.roundId === (r.data as { roundId: string }).roundId)?.status).toBe('RESULTED');
    }
    // who watched: one query-log row per subscription
    const log = await h.client.get('auditor', 'aud-live', '/audit/access-log?actorId=pm-live&limit=1000');
    expect(log.items.filter((x: any) => x.route === 'GET /live/tables')).toHaveLength(1);
  });

  it('sends a keep-alive comment every 15 s', async () => {
    const live = streams[0];
    const opened = live.items[0]?.at ?? Date.now();
    const k = await live.next((e) => e.comment === 'keep-alive', 20_000);
    expect(k.at - opened).toBeGreaterThan(13_000);
  });

  it('holds at most 4 streams per caller: the 5th is 429 RATE.LIVE_STREAMS_BUSY; closing one frees its place', async () => {
    const token = h.client.token('auditor', 'aud-many');
    const four = [];
    for (let i = 0; i < 4; i++) four.push(await EventStream.open(`${h.baseUrl}/live/tables`, token));
    streams.push(...four);
    expect(four.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const fifth = await EventStream.open(`${h.baseUrl}/live/tables`, token);
    expect(fifth.status).toBe(429);
    expect((fifth as unknown as { body: any }).body.error).toMatchObject({ code: 'RATE.LIVE_STREAMS_BUSY', details: { scope: 'caller', limit: 4 } });
    // another caller is not affected
    const other = await EventStream.open(`${h.baseUrl}/live/tables`, h.client.token('auditor', 'aud-other'));
    streams.push(other);
    expect(other.status).toBe(200);
    four[0].close();
    const deadline = Date.now() + 10_000;
    let again: EventStream;
    do {
      await new Promise((r) => setTimeout(r, 100));
      again = await EventStream.open(`${h.baseUrl}/live/tables`, token);
    } while (again.status !== 200 && Date.now() < deadline);
    streams.push(again);
    expect(again.status).toBe(200);
  });

  it('comes back after PostgreSQL drops the listening connection, announcing every table, then goes on', async () => {
    const live = streams[0];
    const before = live.items.length;
    // as the API's own role: PostgreSQL lets a role end its own backends
    const app = new DataSource({ type: 'postgres', url: TEST_SERVICE_DATABASE_URLS.app });
    await app.initialize();
    try {
      const killed = await app.query(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'ledger-api:listen' AND datname = current_database() AND pid <> pg_backend_pid()`);
      expect(killed.length).toBeGreaterThan(0);
    } finally {
      await app.destroy();
    }
    const announced = () =>
      new Set(
        live.items
          .slice(before)
          .filter((e) => e.event === 'table' && JSON.parse(e.data!).shoeId === null)
          .map((e) => JSON.parse(e.data!).tableId),
      );
    const lastTable = tables[tables.length - 1].tableId;
    await live.next((e) => e.event === 'table' && live.items.indexOf(e) >= before && JSON.parse(e.data!).shoeId === null && JSON.parse(e.data!).tableId === lastTable, 30_000);
    expect(announced()).toEqual(new Set(tables.map((t) => t.tableId)));
    // and the next projection commit is heard again
    const shoeId = runId('live2');
    await runShoeScript(generateShoeScript(table, 'live-2', { shoeId, dealerId: 'dealer-9', accounts: 1, betChance: 0, maxRounds: 1 }), h.client);
    await live.next((e) => e.event === 'table' && JSON.parse(e.data!).shoeId === shoeId, 60_000);
  });
});
