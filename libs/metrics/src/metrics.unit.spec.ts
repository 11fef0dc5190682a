import type { AddressInfo } from 'node:net';
import { counter, gauge, metricValue, registry, serveMetrics } from './index';

describe('metrics registry', () => {
  it('makes a counter once and reads back one series or the sum', async () => {
    const c = counter('ledger_test_things_total', 'things', ['reason']);
    expect(counter('ledger_test_things_total', 'things', ['reason'])).toBe(c);
    c.inc({ reason: 'a' });
    c.inc({ reason: 'b' }, 2);
    expect(await metricValue('ledger_test_things_total', { reason: 'b' })).toBe(2);
    expect(await metricValue('ledger_test_things_total')).toBe(3);
    expect(await registry.metrics()).toContain('ledger_test_things_total{reason="a"} 1');
  });

  it('refuses a name already used by another type, and reads 0 for an unknown metric', async () => {
    gauge('ledger_test_level', 'level');
    expect(() => counter('ledger_test_level', 'level')).toThrow(/not a counter/);
    expect(await metricValue('ledger_test_nothing_total')).toBe(0);
  });
});

describe('serveMetrics', () => {
  it('serves the registry at GET /metrics and nothing else', async () => {
    counter('ledger_test_served_total', 'served').inc(3);
    const server = await serveMetrics(0);
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const ok = await fetch(`${base}/metrics`);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('ledger_test_served_total 3');
      expect((await fetch(`${base}/other`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
