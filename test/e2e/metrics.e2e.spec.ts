/**
 * `GET /metrics` after real requests through the API (docs/architecture.md §8): the request counter
 * by route template, the latency histogram, and the event-store append latency and batch size, all
 * non-zero; no raw id in a route label.
 */
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';

jest.setTimeout(180_000);

/** Sum of the samples of `name` in a Prometheus text body whose labels contain every `must` fragment. */
function sample(text: string, name: string, ...must: string[]): number {
  return text
    .split('\n')
    .filter((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && must.every((m) => l.includes(m)))
    .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

describe('GET /metrics after requests', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('shows request counts by route template, latency and append histograms with non-zero values', async () => {
    const shoeId = runId('met');
    const dev = (path: string, body: unknown = {}) => h.client.post('table-device', 'device-1', path, body);
    await dev(`/tables/T-CLASSIC-01/shoes`, { shoeId, dealerId: 'dealer-1' });
    await dev(`/shoes/${shoeId}/commencement`, { card: '2C' });
    await dev(`/shoes/${shoeId}/burns`, { card: '3C' });

    const res = await fetch(`${h.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();

    expect(sample(text, 'ledger_http_requests_total', 'route="/shoes/:shoeId/burns"', 'status="201"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'ledger_http_request_duration_seconds_count', 'route="/shoes/:shoeId/commencement"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'ledger_http_request_duration_seconds_sum')).toBeGreaterThan(0);
    expect(sample(text, 'ledger_append_duration_seconds_count', 'outcome="APPENDED"')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'ledger_append_duration_seconds_sum')).toBeGreaterThan(0);
    expect(sample(text, 'ledger_append_batch_events_sum')).toBeGreaterThanOrEqual(3);
    // ids never reach a label
    expect(text).not.toContain(shoeId);
  });
});
