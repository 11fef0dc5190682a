import { registry } from '@ledger/metrics';
import { countVerification } from './verification-metrics';

/** The value of `ledger_verifications_total{kind,result}` in the process registry (0 when never counted). */
async function counted(kind: string, result: string): Promise<number> {
  const metric = registry.getSingleMetric('ledger_verifications_total');
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.find((v) => v.labels.kind === kind && v.labels.result === result)?.value ?? 0;
}

describe('countVerification: every verification counted by its result (docs/architecture.md §8)', () => {
  it('counts ok, mismatch (tamper evidence found) and error (the verification threw) apart, and passes the report on', async () => {
    const before = { ok: await counted('anchor', 'ok'), mismatch: await counted('anchor', 'mismatch'), error: await counted('anchor', 'error') };
    const good = { ok: true, checked: 3 };
    expect(await countVerification('anchor', async () => good)).toBe(good);
    const bad = { ok: false, problems: ['hash mismatch at version 7'] };
    expect(await countVerification('anchor', async () => bad)).toBe(bad);
    expect(await countVerification('anchor', async () => bad)).toBe(bad);
    await expect(countVerification('anchor', async () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(await counted('anchor', 'ok')).toBe(before.ok + 1);
    expect(await counted('anchor', 'mismatch')).toBe(before.mismatch + 2);
    expect(await counted('anchor', 'error')).toBe(before.error + 1);
    // another kind's series is untouched
    expect(await counted('chain', 'mismatch')).toBe(0);
  });
});
