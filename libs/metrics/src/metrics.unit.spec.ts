import { counter, gauge, metricValue, registry } from './index';

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
