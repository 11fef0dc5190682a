import { decimalText, expectedCountText, foldDay, lookAtShoeClose, parseConfidence, type FairnessEventRow } from './fairness-of-events';
import { outOfBoundsDrafts, outOfBoundsMismatch } from './fairness-raise';

/** The fold of a table day's events and the look at a shoe's close (docs/fairness.md §6). */
const row = (type: string, shoe: string, data: Record<string, unknown>, inDay = true): FairnessEventRow => ({ type, streamId: `shoe-${shoe}`, inDay, data });
const opened = (shoe: string, dealerId: string) => row('ShoeOpened', shoe, { shoeId: shoe, variant: 'classic', decks: 8, dealerId });
const round = (shoe: string, id: string, player: string[], banker: string[], inDay = true) => [
  row('RoundOpened', shoe, { roundId: id }, inDay),
  row('BettingClosed', shoe, { roundId: id }),
  row('RoundResulted', shoe, { roundId: id, outcome: { player, banker } }),
];
const confidence = { numerator: 95n, denominator: 100n };

describe('fairness from the stored events', () => {
  it('counts the resulted rounds opened in the day, with their dealer; voided rounds, rounds of another day and corrected cards as the events say', () => {
    const day = foldDay([
      opened('S1', 'd-1'),
      ...round('S1', 'R0', ['9S', 'KH'], ['8D', 'KC'], false),
      ...round('S1', 'R1', ['9S', 'KH'], ['8D', 'KC']),
      row('RoundOpened', 'S1', { roundId: 'R2' }),
      row('DealerChanged', 'S1', { previousDealerId: 'd-1', dealerId: 'd-2' }),
      row('BettingClosed', 'S1', { roundId: 'R2' }),
      row('RoundResulted', 'S1', { roundId: 'R2', outcome: { player: ['2S', '3H'], banker: ['9D', 'KC'] } }),
      ...round('S1', 'R3', ['2S', '3H'], ['9D', 'KC']),
      row('RoundVoided', 'S1', { roundId: 'R3' }),
      row('ResultCorrected', 'S1', { roundId: 'R1', outcome: { player: ['KS', 'KH'], banker: ['9D', 'KC'] } }),
    ]);
    expect(day.rounds).toEqual([
      { shoeId: 'S1', dealerId: 'd-1', playerCards: ['KS', 'KH'], bankerCards: ['9D', 'KC'] },
      { shoeId: 'S1', dealerId: 'd-2', playerCards: ['2S', '3H'], bankerCards: ['9D', 'KC'] },
    ]);
    expect(day.shoes.get('S1')).toEqual({ variant: 'classic', decks: 8, dealerId: 'd-2' });
  });

  it('looks at the shoe, its dealer and the table; a run of Banker naturals fails, and the drafts name each failing scope with its figures', () => {
    const rigged = Array.from({ length: 12 }, (_, i) => round('S2', `B${i}`, ['2S', '3H'], ['9D', 'KC'])).flat();
    const day = foldDay([opened('S1', 'd-1'), ...round('S1', 'A1', ['9S', 'KH'], ['8D', 'KC']), opened('S2', 'd-2'), ...rigged]);
    const look = lookAtShoeClose(day, { tableId: 'T-1', shoeId: 'S2', confidence })!;
    expect(look.scopes.map((s) => [s.scopeKey, s.counts.rounds])).toEqual([
      ['shoe:S2', 12],
      ['dealer:d-2', 12],
      ['table:T-1', 13],
    ]);
    expect(look.verdict.alert).toBe(true);
    const dayRule = { timeZone: 'UTC', cutoffHour: 6 };
    const drafts = outOfBoundsDrafts(look, { day: '2026-12-07', dayRule, confidence });
    expect(drafts.map((d) => d.scopeKey)).toEqual(['shoe:S2', 'dealer:d-2', 'table:T-1']);
    const shoe = drafts[0].details;
    expect(shoe).toMatchObject({ scope: 'shoe', gamingDay: '2026-12-07', timeZone: 'UTC', cutoffHour: '6', confidence: '95/100', variant: 'classic', decks: '8', rounds: '12' });
    expect(shoe.statistics.split(',')).toContain('NATURALS');
    expect(shoe['NATURALS.observed']).toBe('0,0,12,0');
    expect(Number(shoe['NATURALS.pValue'])).toBeLessThan(Number(shoe.alpha));
    expect(drafts[1].details.scopeDealerId).toBe('d-2');
    // an honest-looking shoe of one round: no draft
    expect(outOfBoundsDrafts(lookAtShoeClose(day, { tableId: 'T-1', shoeId: 'S1', confidence })!, { day: '2026-12-07', dayRule, confidence }).map((d) => d.scopeKey)).not.toContain('shoe:S1');
    expect(lookAtShoeClose(day, { tableId: 'T-1', shoeId: 'S9', confidence })).toBeNull();
  });

  it('writes p-values as plain decimals, expected counts exactly to 3 decimals, and reads a confidence n/d', () => {
    expect([decimalText(1), decimalText(0), decimalText(0.05), decimalText(1.23456789e-9)]).toEqual(['1', '0', '0.05', '0.00000000123457']);
    expect(expectedCountText(3, { numerator: '1', denominator: '3' })).toBe('1.000');
    expect(expectedCountText(2, { numerator: '1', denominator: '3' })).toBe('0.667');
    expect(parseConfidence('95/100')).toEqual(confidence);
    expect(() => parseConfidence('100/100')).toThrow();
  });
});

describe('a STATISTICS.OUT_OF_BOUNDS raise against the look computed again (verify step 7)', () => {
  const rigged = Array.from({ length: 12 }, (_, i) => round('S2', `B${i}`, ['2S', '3H'], ['9D', 'KC'])).flat();
  const look = lookAtShoeClose(foldDay([opened('S2', 'd-2'), ...rigged]), { tableId: 'T-1', shoeId: 'S2', confidence })!;
  const drafts = outOfBoundsDrafts(look, { day: '2026-12-07', dayRule: { timeZone: 'UTC', cutoffHour: 6 }, confidence });
  const computed = { day: '2026-12-07', drafts };
  const cause = { streamId: 'shoe-S2', tableId: 'T-1' };
  const genuine = { tableId: 'T-1', shoeId: 'S2', details: drafts[0].details };

  it('finds nothing wrong with the raise the events give', () => {
    expect(outOfBoundsMismatch(genuine, computed, cause)).toEqual([]);
  });

  it('reports a forged p-value, observed count, day, scope the events do not fail, or another table', () => {
    const forge = (details: Record<string, string>, over: Record<string, unknown> = {}) => outOfBoundsMismatch({ ...genuine, details: { ...genuine.details, ...details }, ...over }, computed, cause);
    expect(forge({ 'NATURALS.pValue': '0.0000001' })[0]).toMatch(/^its details are not those the events give for scope shoe:S2/);
    expect(forge({ 'NATURALS.observed': '0,0,11,1' })[0]).toMatch(/^its details are not those/);
    expect(forge({ gamingDay: '2026-12-06' })).toEqual(['it names gaming day 2026-12-06; its cause was recorded in 2026-12-07']);
    expect(forge({ scopeKey: 'table:T-9' })).toEqual(['the events give no failed test in scope table:T-9 at its cause: the alert is not what the statistics say']);
    expect(forge({}, { tableId: 'T-2' })).toEqual(["its table or shoe is not its cause's"]);
  });
});
