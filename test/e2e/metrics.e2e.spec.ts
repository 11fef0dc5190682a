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

  it('shows the clock skew of a device whose clock runs a minute behind the ledger, by device and table, and its absolute value in the histogram', async () => {
    const shoeId = runId('skew');
    const behind = () => new Date(Date.now() - 60_000).toISOString();
    const dev = (path: string, body: Record<string, unknown>) => h.client.post('table-device', 'device-skewed-1', path, { ...body, occurredAt: behind() });
    await dev(`/tables/T-TIGER-01/shoes`, { shoeId, dealerId: 'dealer-1' });
    await dev(`/shoes/${shoeId}/commencement`, { card: '2C' });
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    const skews = stored.map((e) => Date.parse(e.occurredAt) - Date.parse(e.recordedAt));
    expect(skews.every((s) => s <= -60_000)).toBe(true);

    const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
    const last = sample(text, 'ledger_device_clock_skew_seconds', 'device_id="device-skewed-1"', 'table_id="T-TIGER-01"');
    expect(last).toBe(skews[skews.length - 1] / 1000);
    expect(sample(text, 'ledger_device_clock_skew_abs_seconds_count', 'table_id="T-TIGER-01"')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'ledger_device_clock_skew_abs_seconds_bucket', 'table_id="T-TIGER-01"', 'le="30"')).toBe(0);
    // a device that gives no occurredAt has no skew to measure: it is not a series
    expect(text).not.toContain('device_id="device-1"');
  });
});
