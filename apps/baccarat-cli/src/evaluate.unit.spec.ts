import { BET_CODES, builtInPaytable, defaultPaytable, RulesError, Variant } from '@ledger/rules';
import { EvaluateError, EvaluateResult, evaluateLine, resolvePaytable } from './evaluate.command';

const classic = defaultPaytable('classic');
const line = (obj: unknown) => JSON.stringify(obj);

function ok(out: ReturnType<typeof evaluateLine>): EvaluateResult {
  expect(out).not.toBeNull();
  expect(out).not.toHaveProperty('error');
  return out as EvaluateResult;
}

function err(out: ReturnType<typeof evaluateLine>): EvaluateError['error'] & { line: number } {
  expect(out).toHaveProperty('error');
  const e = out as EvaluateError;
  return { ...e.error, line: e.line };
}

describe('evaluate: one input line → one output object', () => {
  describe('well-formed lines', () => {
    it('Given 2S KC 3H 6D AS 5C on a classic table, When evaluated, Then a 6–6 Tie on 5 cards with every classic bet netted', () => {
      expect(evaluateLine(line({ cards: ['2S', 'KC', '3H', '6D', 'AS', '5C'] }), 1, classic)).toEqual({
        line: 1,
        player: ['2S', '3H', 'AS'],
        banker: ['KC', '6D'],
        playerTotal: 6,
        bankerTotal: 6,
        winner: 'TIE',
        natural: false,
        playerPair: false,
        bankerPair: false,
        cardsConsumed: 5,
        net: { PLAYER: '0', BANKER: '0', TIE: '8', PLAYER_PAIR: '-1', BANKER_PAIR: '-1', EITHER_PAIR: '-1' },
      });
    });

    it('Given 10H for a ten and a natural, When evaluated, Then the card is reported as TH and Banker nets 0.95', () => {
      const o = ok(evaluateLine(line({ cards: ['10H', '9S', 'KD', 'KC', '2S', '2H'] }), 7, classic));
      expect(o.player).toEqual(['TH', 'KD']);
      expect(o.banker).toEqual(['9S', 'KC']);
      expect([o.winner, o.natural, o.cardsConsumed, o.net.BANKER, o.line]).toEqual(['BANKER', true, 4, '0.95', 7]);
    });

    it('Given 2S KC 2H 7D 5C, When evaluated, Then the Player Pair wins although the Player drew', () => {
      const o = ok(evaluateLine(line({ cards: ['2S', 'KC', '2H', '7D', '5C'] }), 1, classic));
      expect([o.playerPair, o.player.length, o.net.PLAYER_PAIR, o.net.EITHER_PAIR]).toEqual([true, 3, '11', '5']);
    });

    it.each(['classic', 'tiger', 'fabulous4'] as Variant[])("Given a %s table, When a line is evaluated, Then net has exactly the variant's bet codes in order", (variant) => {
      const o = ok(evaluateLine(line({ cards: ['KS', '4H', '2D', '2C', 'AS', '9C'] }), 1, defaultPaytable(variant)));
      expect(Object.keys(o.net)).toEqual([...BET_CODES[variant]]);
      for (const v of Object.values(o.net)) expect(v).toMatch(/^-?\d+(\.\d+)?$/);
    });

    it('Given a Banker 6 on two cards on a Tiger table, When evaluated, Then Banker 0.5, Tiger 12, Small Tiger 22', () => {
      const o = ok(evaluateLine(line({ cards: ['KS', '4H', '2D', '2C', 'AS', '9C'] }), 1, defaultPaytable('tiger')));
      expect(o.net).toMatchObject({ BANKER: '0.5', TIGER: '12', SMALL_TIGER: '22', BIG_TIGER: '-1' });
    });

    it('Given the no-commission classic paytable, When the Banker wins on 6, Then Banker nets 0.5', () => {
      const o = ok(evaluateLine(line({ cards: ['KS', '4H', '2D', '2C', 'AS', '9C'] }), 1, builtInPaytable('classic-no-commission@1')));
      expect(o.net.BANKER).toBe('0.5');
    });

    it('Given extra fields and lower-case cards, When evaluated, Then they are accepted', () => {
      const o = ok(evaluateLine(line({ round: 12, cards: ['9s', '2h', 'kd', '3c'] }), 1, classic));
      expect(o.player).toEqual(['9S', 'KD']);
    });

    it('Given a result, When serialised, Then it is plain JSON (no bigint, no Card objects)', () => {
      const o = evaluateLine(line({ cards: ['2S', 'KC', '3H', '6D', 'AS', '5C'] }), 1, classic);
      expect(JSON.parse(JSON.stringify(o))).toEqual(o);
    });
  });

  describe('skipped and malformed lines', () => {
    it.each(['', '   ', '\t'])('Given the blank line %j, When evaluated, Then it is skipped (null)', (text) => {
      expect(evaluateLine(text, 3, classic)).toBeNull();
    });

    it.each(['nope', '{"cards": [', "{'cards': []}", '{"cards": ["2S",]}'])('Given the bad JSON %j, When evaluated, Then INPUT.BAD_JSON on that line', (text) => {
      expect(err(evaluateLine(text, 4, classic))).toMatchObject({ code: 'INPUT.BAD_JSON', line: 4 });
    });

    it.each(['5', 'null', '[]', '"2S KC"', '{}', '{"cards": "2S KC 3H 6D"}', '{"cards": null}', '{"Cards": ["2S"]}', '[{"cards": []}]'])('Given %s (no cards array), When evaluated, Then INPUT.NO_CARDS', (text) => {
      expect(err(evaluateLine(text, 5, classic))).toMatchObject({ code: 'INPUT.NO_CARDS', line: 5 });
    });

    it.each<[string, unknown[]]>([
      ['1S', ['1S', 'KC', '3H', '6D']],
      ['ZZ', ['2S', 'ZZ', '3H', '6D']],
      ['KX', ['2S', 'KC', 'KX', '6D']],
      ['an empty string', ['2S', 'KC', '3H', '']],
      ['null', ['2S', null, '3H', '6D']],
      ['the number 5', ['2S', 'KC', 5, '6D']],
      ['a malformed card after the cards the round uses', ['9S', '2H', 'KD', '3C', 'XX']],
    ])('Given a malformed card (%s), When evaluated, Then CARD.MALFORMED', (_name, cards) => {
      const e = err(evaluateLine(line({ cards }), 6, classic));
      expect(e).toMatchObject({ code: 'CARD.MALFORMED', line: 6 });
      expect(e.message).toMatch(/card/);
    });

    it.each<[string, string[]]>([
      ['no cards', []],
      ['three cards', ['2S', 'KC', '3H']],
      ['four cards when the Player must draw', ['2S', 'KC', '3H', '6D']],
      ['five cards when the Banker must draw too', ['2S', '6H', 'KD', 'KC', '6C']],
    ])('Given %s, When evaluated, Then TABLEAU.INSUFFICIENT_CARDS', (_name, cards) => {
      expect(err(evaluateLine(line({ cards }), 8, classic))).toMatchObject({ code: 'TABLEAU.INSUFFICIENT_CARDS', line: 8 });
    });

    it('Given a stream of lines, When each is evaluated with its number, Then errors carry the right line numbers and blank lines count', () => {
      const input = ['{"cards":["9S","2H","KD","3C"]}', '', 'garbage', '{"cards":["2S"]}', '{"cards":["2H","9S","3C","KD"]}'];
      const out = input.map((t, i) => evaluateLine(t, i + 1, classic));
      expect(out.map((o) => (o === null ? null : 'error' in o ? `${o.line}:${o.error.code}` : `${o.line}:${o.winner}`))).toEqual(['1:PLAYER', null, '3:INPUT.BAD_JSON', '4:TABLEAU.INSUFFICIENT_CARDS', '5:BANKER']);
    });
  });

  describe('resolvePaytable (the --variant / --paytable options)', () => {
    it.each([
      ['classic', 'classic-standard@1'],
      ['tiger', 'tiger-standard@1'],
      ['fabulous4', 'fabulous4-standard@1'],
    ])('Given --variant %s alone, When resolved, Then the default paytable %s', (variant, ref) => {
      expect(resolvePaytable(variant).ref).toBe(ref);
    });

    it('Given --variant classic --paytable classic-no-commission@1, When resolved, Then that paytable', () => {
      expect(resolvePaytable('classic', 'classic-no-commission@1').ref).toBe('classic-no-commission@1');
    });

    it.each<[string, string | undefined, string]>([
      ['poker', undefined, 'VARIANT.UNKNOWN'],
      ['tiger', 'classic-standard@1', 'PAYTABLE.INVALID'],
      ['classic', 'nope@1', 'PAYTABLE.UNKNOWN'],
    ])('Given --variant %s --paytable %s, When resolved, Then %s', (variant, ref, code) => {
      let thrown: unknown;
      try {
        resolvePaytable(variant, ref);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(RulesError);
      expect((thrown as RulesError).code).toBe(code);
    });
  });
});
