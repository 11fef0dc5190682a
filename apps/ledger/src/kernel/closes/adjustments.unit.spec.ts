import { figureDeltas, nextDay, targetDay } from './adjustments';

const row = (currency: string, turnover: string, payouts: string, dropped = '0', corrections = '0') => ({
  currency,
  turnover,
  payouts,
  ggr: (BigInt(turnover) - BigInt(payouts)).toString(),
  hold: null,
  voidedStakes: '0',
  correctionPayoutDelta: '0',
  betsSettled: '1',
  betsRefunded: '0',
  betsResettled: '0',
  roundsResulted: '1',
  roundsVoided: '0',
  corrections,
  dropped,
});

describe('adjustments (docs/reports.md §2)', () => {
  it('next day crosses months and leap years', () => {
    expect(nextDay('2028-02-28')).toBe('2028-02-29');
    expect(nextDay('2027-02-28')).toBe('2027-03-01');
    expect(nextDay('2026-12-31')).toBe('2027-01-01');
  });

  it('a change goes to the day it was recorded on, or the first later day not closed before it', () => {
    const closes = new Map([
      ['2026-03-01|T1', 100n],
      ['2026-03-02|T1', 200n],
      ['2026-03-02|T2', 500n],
    ]);
    const closed = (d: string, t: string) => closes.get(`${d}|${t}`);
    expect(targetDay('2026-03-01', 'T1', 150n, closed)).toBe('2026-03-02'); // day 2's close (at 200) covers the change
    expect(targetDay('2026-03-01', 'T1', 250n, closed)).toBe('2026-03-03');
    expect(targetDay('2026-03-02', 'T1', 150n, closed)).toBe('2026-03-02'); // day 2 closed later, covering it
    expect(targetDay('2026-03-02', 'T2', 150n, closed)).toBe('2026-03-02');
    expect(targetDay('2026-03-02', 'T1', 250n, closed)).toBe('2026-03-03');
    expect(targetDay('2026-03-05', 'T1', 250n, closed)).toBe('2026-03-05');
  });

  it('figure deltas per currency: new − old, dropped exactly', () => {
    const d = figureDeltas([row('EUR', '1000', '1950', '1/2')], [row('EUR', '1000', '0', '0', '1')]);
    expect(d.get('EUR')).toMatchObject({ turnover: '0', payouts: '-1950', ggr: '1950', corrections: '1', dropped: '-1/2' });
    const gone = figureDeltas([row('USD', '500', '0')], []);
    expect(gone.get('USD')).toMatchObject({ turnover: '-500', ggr: '-500', betsSettled: '-1', roundsResulted: '-1' });
  });
});
