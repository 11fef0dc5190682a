import { dailySeries, holdForPlot, parseReportQuery, ratio, reportQueryString, totalsByCurrency, type ReportRowLike } from '../../apps/console/src/lib/report';

function row(over: Partial<ReportRowLike>): ReportRowLike {
  return {
    currency: 'EUR',
    turnover: '0',
    payouts: '0',
    ggr: '0',
    hold: null,
    voidedStakes: '0',
    correctionPayoutDelta: '0',
    betsSettled: '0',
    betsRefunded: '0',
    betsResettled: '0',
    roundsResulted: '0',
    roundsVoided: '0',
    corrections: '0',
    ...over,
  };
}

describe('ratio (exact, as PostgreSQL round(numeric, 6))', () => {
  it('rounds half away from zero with BigInt', () => {
    expect(ratio(-929770n, 9773700n)).toBe('-0.095130');
    expect(ratio(352750n, 2802000n)).toBe('0.125892');
    expect(ratio(1n, 2000000n)).toBe('0.000001'); // 0.0000005 → up
    expect(ratio(-1n, 2000000n)).toBe('-0.000001'); // away from zero
    expect(ratio(1n, 3000000n)).toBe('0.000000');
    expect(ratio(-1n, 3000000n)).toBe('0.000000'); // no "-0"
    expect(ratio(5n, 1n)).toBe('5.000000');
    expect(ratio(1n, 0n)).toBeNull();
  });
});

describe('totalsByCurrency', () => {
  it('adds every amount and count per currency with BigInt, never across currencies', () => {
    const rows = [
      row({ tableId: 'A', turnover: '3322000', payouts: '3586220', ggr: '-264220', voidedStakes: '33400', correctionPayoutDelta: '-38590', betsSettled: '1332', corrections: '2' }),
      row({ tableId: 'B', currency: 'USD', turnover: '100', payouts: '50', ggr: '50', betsSettled: '1' }),
      row({ tableId: 'C', turnover: '2802000', payouts: '2449250', ggr: '352750', voidedStakes: '204600', correctionPayoutDelta: '0', betsSettled: '1119', corrections: '1' }),
    ];
    const t = totalsByCurrency(rows);
    expect(t.map((x) => x.currency)).toEqual(['EUR', 'USD']);
    expect(t[0]).toMatchObject({ rows: 2, turnover: '6124000', payouts: '6035470', ggr: '88530', voidedStakes: '238000', correctionPayoutDelta: '-38590', betsSettled: '2451', corrections: '3', hold: ratio(88530n, 6124000n) });
    expect(t[1]).toMatchObject({ rows: 1, turnover: '100', payouts: '50', ggr: '50', hold: '0.500000' });
  });

  it('stays exact beyond 2^53 minor units', () => {
    const big = '9007199254740993'; // 2^53 + 1: a double would round it
    const t = totalsByCurrency([row({ turnover: big, ggr: big }), row({ turnover: big, ggr: '1' })]);
    expect(t[0].turnover).toBe('18014398509481986');
    expect(t[0].ggr).toBe('9007199254740994');
  });

  it('refuses rows without currency and amounts that are not integers', () => {
    expect(() => totalsByCurrency([row({ currency: undefined })])).toThrow(/without currency/);
    expect(() => totalsByCurrency([row({ turnover: '12.5' })])).toThrow(/not an integer/);
  });
});

describe('dailySeries', () => {
  it('per currency, days ascending, same-day rows added, hold recomputed, plot values exact integers', () => {
    const s = dailySeries([
      row({ gamingDay: '2026-12-02', turnover: '200', payouts: '150', ggr: '50' }),
      row({ gamingDay: '2026-12-01', turnover: '100', payouts: '120', ggr: '-20' }),
      row({ gamingDay: '2026-12-02', turnover: '300', payouts: '300', ggr: '0' }),
      row({ gamingDay: '2026-12-01', currency: 'JPY', turnover: '7', payouts: '0', ggr: '7' }),
    ]);
    expect([...s.keys()]).toEqual(['EUR', 'JPY']);
    expect(s.get('EUR')!.map((p) => [p.gamingDay, p.turnover, p.payouts, p.ggr, p.hold])).toEqual([
      ['2026-12-01', '100', '120', '-20', '-0.200000'],
      ['2026-12-02', '500', '450', '50', '0.100000'],
    ]);
    expect(s.get('EUR')![1].plot).toEqual({ turnover: 500, payouts: 450, ggr: 50, holdPercent: 10 });
    expect(s.get('JPY')![0].plot.holdPercent).toBe(100);
  });

  it('needs groupBy=day,currency rows', () => {
    expect(() => dailySeries([row({ gamingDay: undefined })])).toThrow(/gamingDay/);
  });

  it('holdForPlot places the percentage from the string', () => {
    expect(holdForPlot('-0.095130')).toBeCloseTo(-9.513, 10);
    expect(holdForPlot(null)).toBeNull();
    expect(() => holdForPlot('1e3')).toThrow();
  });
});

describe('report query in the URL', () => {
  it('keeps currency among the groups, the API order, and drops empty or unknown keys', () => {
    const q = parseReportQuery('?groupBy=day,table,bogus&tableId=T-1&shoeId=&fromDay=2026-12-01');
    expect(q).toEqual({ groupBy: ['table', 'day', 'currency'], tableId: 'T-1', fromDay: '2026-12-01' });
    expect(reportQueryString(q)).toBe('groupBy=table%2Cday%2Ccurrency&tableId=T-1&fromDay=2026-12-01');
    expect(parseReportQuery('')).toEqual({ groupBy: ['table', 'currency'] });
    expect(reportQueryString(parseReportQuery(reportQueryString(q)))).toBe(reportQueryString(q));
    expect(reportQueryString({ groupBy: ['day'] }, { format: 'csv' })).toBe('groupBy=day%2Ccurrency&format=csv');
  });
});
