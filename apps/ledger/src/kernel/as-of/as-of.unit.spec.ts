import { isAsOfText, parseAsOf } from './as-of';

describe('asOf (docs/reports.md §3)', () => {
  it('takes a global position or an ISO time', () => {
    expect(parseAsOf('0')).toEqual({ kind: 'position', position: 0n });
    expect(parseAsOf('9223372036854775807')).toEqual({ kind: 'position', position: 9223372036854775807n });
    expect(parseAsOf('2026-03-01T12:00:00+01:00')).toEqual({ kind: 'time', at: '2026-03-01T11:00:00.000Z' });
    expect(parseAsOf(undefined)).toBeNull();
  });
  it('refuses anything else', () => {
    for (const v of ['-1', '01', '9223372036854775808', '1.5', 'now', '2026-02-30', '', ' 1']) expect([v, isAsOfText(v)]).toEqual([v, false]);
    expect(() => parseAsOf('x')).toThrow();
  });
});
