/**
 * `GET /live/tables` under abuse (README "Limits at the edge"):
 *
 * - the streams of one role cannot exhaust the API for the other: auditors from several identities
 *   fill their own share (`LIVE_STREAMS_AUDITORS`, small here) and get 429
 *   `RATE.LIVE_STREAMS_BUSY` with scope `role`, while a pit manager still opens a stream;
 * - a stream does not outlive its token: it ends at the token's `exp` with `event: expired`, and the
 *   expired token is refused when the client reconnects.
 *
 * Real API, PostgreSQL and Kafka (no projector is needed: the streams are only opened and held).
 */
import { DEV_JWT_SECRET, hs256Key, mintToken } from '@ledger/tokens';
import { LedgerHarness, startLedger } from '../support/ledger-harness';

jest.setTimeout(120_000);

/** An open stream: its status, the text received so far, and whether the server ended it. */
interface OpenStream {
  readonly status: number;
  readonly body: string;
  text: string;
  ended: boolean;
  close(): void;
}

async function openStream(url: string, token: string): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: abort.signal });
  if (res.status !== 200) return { status: res.status, body: await res.text(), text: '', ended: true, close: () => abort.abort() };
  const s: OpenStream = { status: 200, body: '', text: '', ended: false, close: () => abort.abort() };
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) s.text += decoder.decode(chunk, { stream: true });
      s.ended = true;
    } catch {
      // aborted by the test
    }
  })();
  return s;
}

async function until(test: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!test() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return test();
}

describe('live streams: a share per role, and no stream past its token', () => {
  let h: LedgerHarness;
  const open: OpenStream[] = [];

  beforeAll(async () => {
    h = await startLedger({ env: { LIVE_STREAMS_AUDITORS: '3', LIVE_STREAMS_PIT_MANAGERS: '2' } });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await h?.close();
  });

  it('Given auditors holding every auditor place, When another auditor and a pit manager subscribe, Then the auditor gets 429 (scope role) and the pit manager watches', async () => {
    const url = `${h.baseUrl}/live/tables`;
    for (const sub of ['aud-flood-1', 'aud-flood-1', 'aud-flood-2']) open.push(await openStream(url, h.client.token('auditor', sub)));
    expect(open.map((s) => s.status)).toEqual([200, 200, 200]);
    const more = await openStream(url, h.client.token('auditor', 'aud-flood-3'));
    expect(more.status).toBe(429);
    expect(JSON.parse(more.body).error).toMatchObject({ code: 'RATE.LIVE_STREAMS_BUSY', details: { scope: 'role', limit: 3 } });
    const pm = await openStream(url, h.client.token('pit-manager', 'pm-floor'));
    open.push(pm);
    expect(pm.status).toBe(200);
    // a freed auditor place is taken again
    open[0].close();
    let again: OpenStream;
    const deadline = Date.now() + 10_000;
    do {
      await new Promise((r) => setTimeout(r, 100));
      again = await openStream(url, h.client.token('auditor', 'aud-flood-3'));
    } while (again.status !== 200 && Date.now() < deadline);
    open.push(again);
    expect(again.status).toBe(200);
  });

  it('Given a token that expires in 3 s, When its stream is held, Then the stream ends at the expiry with `event: expired`, and the token is refused after', async () => {
    const token = mintToken({ sub: 'pm-short', role: 'pit-manager' }, hs256Key(DEV_JWT_SECRET), { ttlSeconds: 3 });
    const s = await openStream(`${h.baseUrl}/live/tables`, token);
    open.push(s);
    expect(s.status).toBe(200);
    expect(await until(() => s.ended, 20_000)).toBe(true);
    expect(s.text).toContain('event: expired');
    const reconnect = await openStream(`${h.baseUrl}/live/tables`, token);
    expect(reconnect.status).toBe(401);
  });
});
