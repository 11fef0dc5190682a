/**
 * `TRUST_PROXY` (docs/architecture.md §10, "Limits at the edge"; docs/operations.md, "Several API
 * instances"): whose address the per-address rate budget counts against.
 * - Without it, a forged `X-Forwarded-For` changes nothing: every request counts against the
 *   socket's address, whatever address it names, and the budget ends after `RATE_LIMIT_PER_ADDRESS`.
 * - With `TRUST_PROXY=loopback` (the spec's requests come from the loopback, as from a proxy there),
 *   two forwarded addresses get a budget each.
 * Failed before `TRUST_PROXY` existed: the second case (every request counted against 127.0.0.1).
 */
import { LedgerHarness, startLedger } from '../support/ledger-harness';

jest.setTimeout(120_000);

const BUDGET = 3;

async function madeUp(h: LedgerHarness, forwardedFor: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${h.baseUrl}/made-up/trust-proxy`, { headers: { 'x-forwarded-for': forwardedFor } });
  return { status: res.status, body: await res.json() };
}

describe('trust proxy and the per-address budget', () => {
  let plain: LedgerHarness;
  let behind: LedgerHarness;
  beforeAll(async () => {
    plain = await startLedger({ env: { RATE_LIMIT_PER_ADDRESS: String(BUDGET), TRUST_PROXY: undefined } });
    behind = await startLedger({ env: { RATE_LIMIT_PER_ADDRESS: String(BUDGET), TRUST_PROXY: 'loopback' } });
  });
  afterAll(async () => {
    await plain?.close();
    await behind?.close();
  });

  it('Given no TRUST_PROXY, When each request names another forwarded address, Then they all count against the socket address: the budget ends all the same', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= BUDGET; i++) statuses.push((await madeUp(plain, `203.0.113.${10 + i}`)).status);
    expect(statuses).toEqual([...Array<number>(BUDGET).fill(404), 429]);
  });

  it('Given TRUST_PROXY=loopback, When two forwarded addresses send, Then each has its own budget', async () => {
    const first: number[] = [];
    for (let i = 0; i <= BUDGET; i++) first.push((await madeUp(behind, '203.0.113.1, 203.0.113.50')).status);
    expect(first).toEqual([...Array<number>(BUDGET).fill(404), 429]);
    const refused = await madeUp(behind, '203.0.113.50');
    // another client address: its own budget (the first list's client was 203.0.113.50, the proxy's neighbour 203.0.113.1 is not trusted)
    expect(refused.status).toBe(429);
    const second: number[] = [];
    for (let i = 0; i <= BUDGET; i++) second.push((await madeUp(behind, '203.0.113.2')).status);
    expect(second).toEqual([...Array<number>(BUDGET).fill(404), 429]);
  });
});
