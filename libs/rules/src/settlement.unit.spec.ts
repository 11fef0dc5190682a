import { MAX_STAKE_MINOR, parseOdds, Payoff, RulesError, settle } from '@ledger/rules';

function rulesErrorOf(fn: () => unknown): RulesError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RulesError);
    return e as RulesError;
  }
  throw new Error('expected a RulesError, nothing was thrown');
}

const win = (odds: string): Payoff => ({ kind: 'WIN', odds: parseOdds(odds) });
const PUSH: Payoff = { kind: 'PUSH' };
const LOSE: Payoff = { kind: 'LOSE' };

describe('settlement (docs/domain-rules.md §3, §4)', () => {
  it.each([
    [300n, 285n],
    [1700n, 1615n],
    [100n, 95n],
    [20n, 19n],
  ])('Given a Banker stake of %i minor units at 0.95:1, When it wins, Then it wins exactly %i and drops nothing', (stake, winnings) => {
    const s = settle(stake, win('0.95:1'));
    expect(s).toEqual({ result: 'WIN', stake, winnings, payout: stake + winnings, net: winnings, dropped: { num: 0n, den: 1n } });
  });

  it('Given a stake of 5 at 0.5:1, When it wins, Then it wins 2 and drops 1/2 of a minor unit', () => {
    expect(settle(5n, win('0.5:1'))).toEqual({ result: 'WIN', stake: 5n, winnings: 2n, payout: 7n, net: 2n, dropped: { num: 1n, den: 2n } });
  });

  it('Given a stake of 5 at 1:2 (written the other way), When it wins, Then the same 2 with 1/2 dropped', () => {
    expect(settle(5n, win('1:2'))).toMatchObject({ winnings: 2n, dropped: { num: 1n, den: 2n } });
  });

  it('Given a stake of 1 at 0.5:1, When it wins, Then the winnings round to 0 but it is still a WIN with the stake returned', () => {
    expect(settle(1n, win('0.5:1'))).toEqual({ result: 'WIN', stake: 1n, winnings: 0n, payout: 1n, net: 0n, dropped: { num: 1n, den: 2n } });
  });

  it('Given a stake of 1 at 0.95:1, When it wins, Then WIN, winnings 0, stake returned, 19/20 dropped', () => {
    expect(settle(1n, win('0.95:1'))).toMatchObject({ result: 'WIN', winnings: 0n, payout: 1n, dropped: { num: 19n, den: 20n } });
  });

  it('Given a stake of 7 at 0.95:1, When it wins, Then 6 with 13/20 dropped (6.65 rounded down)', () => {
    expect(settle(7n, win('0.95:1'))).toMatchObject({ winnings: 6n, payout: 13n, dropped: { num: 13n, den: 20n } });
  });

  it('Given a push, When settled, Then the stake comes back and nothing is won', () => {
    expect(settle(250n, PUSH)).toEqual({ result: 'PUSH', stake: 250n, winnings: 0n, payout: 250n, net: 0n, dropped: { num: 0n, den: 1n } });
  });

  it('Given a loss, When settled, Then the payout is 0 and the net is minus the stake', () => {
    expect(settle(250n, LOSE)).toEqual({ result: 'LOSE', stake: 250n, winnings: 0n, payout: 0n, net: -250n, dropped: { num: 0n, den: 1n } });
  });

  it('Given the largest stake 2^53 − 1 at 100:1, When it wins, Then the bigint arithmetic is exact', () => {
    const s = settle(MAX_STAKE_MINOR, win('100:1'));
    expect(s.winnings).toBe(MAX_STAKE_MINOR * 100n);
    expect(s.payout).toBe(MAX_STAKE_MINOR * 101n);
  });

  describe.each([
    ['a win', win('0.95:1')],
    ['a push', PUSH],
    ['a loss', LOSE],
  ])('invalid stakes on %s', (_kind, payoff) => {
    it.each<[string, unknown]>([
      ['0', 0n],
      ['−1', -1n],
      ['2^53', 2n ** 53n],
      ['the number 300 (not a bigint)', 300],
      ['the string "300"', '300'],
    ])('Given a stake of %s, When settled, Then MONEY.INVALID_STAKE', (_name, stake) => {
      expect(rulesErrorOf(() => settle(stake as bigint, payoff)).code).toBe('MONEY.INVALID_STAKE');
    });
  });
});
