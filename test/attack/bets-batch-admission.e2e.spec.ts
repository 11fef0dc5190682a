/**
 * The bets batches' byte budget (docs/architecture.md §10, "Limits at the edge";
 * `BETS_BATCH_BYTES_IN_FLIGHT`, `BETS_BATCH_QUEUE_TIMEOUT_MS`): several platforms sending big
 * batches at once are worked on within the budget, one after the other when each is over it, so the
 * API's memory stays bounded; a batch that waited too long in line is refused, 429
 * `RATE.BETS_BATCH_BUSY` with `Retry-After: 1`, nothing of it recorded, and the same batch sent again
 * later is recorded whole. The real API (in-process, the wiring of main.ts) on the real PostgreSQL.
 */
import { DEV_JWT_SECRET, hs256Key, mintToken } from '@ledger/tokens';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

jest.setTimeout(180_000);

const KEY = hs256Key(DEV_JWT_SECRET);
const TABLE = 'T-CLASSIC-01';
/** Bets per batch: a body of several hundred kB, far over the budget below, and seconds of work for three. */
const BETS = 5000;

interface Answer {
  status: number;
  code: string | null;
  retryAfter: string | null;
}

describe('bets batches within a byte budget', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    // every batch is over the whole budget: each runs alone, the others wait at most 100 ms
    h = await startLedger({ env: { BETS_BATCH_BYTES_IN_FLIGHT: '1024', BETS_BATCH_QUEUE_TIMEOUT_MS: '100' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  const dev = (path: string, body: unknown) => h.client.post('table-device', 'device-1', path, body);

  async function postBatch(path: string, bets: unknown[]): Promise<Answer> {
    const bearer = mintToken({ sub: 'platform-admission', role: 'betting-platform' }, KEY, { ttlSeconds: 3600 });
    const res = await fetch(`${h.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` }, body: JSON.stringify({ bets }) });
    const body = (await res.json()) as { error?: { code: string } };
    return { status: res.status, code: body.error?.code ?? null, retryAfter: res.headers.get('retry-after') };
  }

  async function recorded(shoeId: string, betIds: readonly string[]): Promise<number> {
    const [{ n }] = await h.ds.query(`SELECT count(*)::int AS n FROM events WHERE stream_id = $1 AND type = 'BetPlaced' AND data->>'betId' = ANY ($2)`, [`shoe-${shoeId}`, betIds]);
    return n;
  }

  it('refuses what waited too long (RATE.BETS_BATCH_BUSY, Retry-After 1) with nothing of it recorded, records the rest whole, and takes the refused batch when sent again', async () => {
    const shoeId = runId('adm');
    const roundId = `${shoeId}-r1`;
    await dev(`/tables/${TABLE}/shoes`, { shoeId, dealerId: 'dealer-1' });
    await dev(`/shoes/${shoeId}/commencement`, { card: '2C' });
    for (const card of ['3C', '4C']) await dev(`/shoes/${shoeId}/burns`, { card });
    await dev(`/shoes/${shoeId}/rounds`, { roundId });
    const batches = [0, 1, 2].map((k) => Array.from({ length: BETS }, (_, i) => ({ betId: `${shoeId}-k${k}-${i}`, accountId: `acct-${i % 50}`, betCode: 'PLAYER', stake: '500', currency: 'EUR' })));
    const path = `/shoes/${shoeId}/rounds/${roundId}/bets/batch`;

    const answers = await Promise.all(batches.map((b) => postBatch(path, b)));

    const refused = answers.flatMap((a, k) => (a.status === 429 ? [k] : []));
    const accepted = answers.flatMap((a, k) => (a.status === 201 ? [k] : []));
    // one ran at once; of the two in line, at least the last waited its whole 100 ms
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(accepted.length + refused.length).toBe(3);
    for (const k of refused) {
      expect(answers[k]).toEqual({ status: 429, code: 'RATE.BETS_BATCH_BUSY', retryAfter: '1' });
      expect(
        await recorded(
          shoeId,
          batches[k].map((b) => b.betId),
        ),
      ).toBe(0);
    }
    for (const k of accepted)
      expect(
        await recorded(
          shoeId,
          batches[k].map((b) => b.betId),
        ),
      ).toBe(BETS);

    // nothing else in flight now: the refused batch goes through when sent again
    const again = await postBatch(path, batches[refused[0]]);
    expect(again.status).toBe(201);
    expect(
      await recorded(
        shoeId,
        batches[refused[0]].map((b) => b.betId),
      ),
    ).toBe(BETS);
  });
});
