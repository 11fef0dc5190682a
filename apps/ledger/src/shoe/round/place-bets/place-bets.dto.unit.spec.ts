import 'reflect-metadata';
import fc from 'fast-check';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { LedgerValidationPipe } from '../../../common/validation.pipe';
import { BetDto, isPlainValidBet, PlaceBetBatchDto } from './place-bets.dto';

/** class-validator's verdict on one bet, with the API's options (whitelist + forbidNonWhitelisted). */
async function classValidatorAccepts(b: unknown): Promise<boolean> {
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
  const errors = await validate(plainToInstance(BetDto, b), { whitelist: true, forbidNonWhitelisted: true });
  return errors.length === 0;
}

const valid = { betId: 'B-1', accountId: 'acct-1', betCode: 'BANKER', stake: '2500', currency: 'EUR' };

/** Near-valid bets: each field from a mix of good and bad values, sometimes a field missing or one too many. */
const field = (good: fc.Arbitrary<unknown>) => fc.oneof(good, fc.constantFrom('', ' ', 'a b', 'é', 'x'.repeat(65), null, 0, -1, 1.5, true, [], {}, '00', '1e3', Number.MAX_SAFE_INTEGER + 2, '٣'));
const bet = fc
  .record({
    betId: field(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,64}$/)),
    accountId: field(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,64}$/)),
    betCode: field(fc.constantFrom('BANKER', 'PLAYER', 'TIE', 'PLAYER_PAIR', 'banker', 'BANKER!')),
    stake: field(fc.oneof(fc.stringMatching(/^\d{1,30}$/), fc.nat(), fc.constant('1'.repeat(31)))),
    currency: field(fc.constantFrom('EUR', 'USD', 'eur', 'EURO', 'E1R')),
  })
  .chain((b) =>
    fc.oneof(
      fc.constant(b as Record<string, unknown>),
      fc.constantFrom('betId', 'stake', 'currency').map((k) => {
        const c: Record<string, unknown> = { ...b };
        delete c[k];
        return c;
      }),
      fc.constant({ ...b, extra: 1 }),
    ),
  );

describe('the bets batch fast path accepts only what class-validator accepts (docs/guarantees.md §11)', () => {
  it('a plain valid bet is accepted by both', async () => {
    expect(isPlainValidBet(valid)).toBe(true);
    await expect(classValidatorAccepts(valid)).resolves.toBe(true);
    expect(isPlainValidBet({ ...valid, stake: 2500 })).toBe(true);
  });

  it('never accepts a bet class-validator refuses (property: 3,000 near-valid bets)', async () => {
    let fastAccepted = 0;
    await fc.assert(
      fc.asyncProperty(bet, async (b) => {
        if (isPlainValidBet(b)) {
          fastAccepted++;
          expect(await classValidatorAccepts(b)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
    expect(fastAccepted).toBeGreaterThan(0); // the property was not vacuous
  });

  it.each([
    ['an extra field', { ...valid, odds: '1' }],
    ['a missing field', { betId: 'B', accountId: 'a', betCode: 'BANKER', stake: '1' }],
    ['a fractional stake', { ...valid, stake: 1.5 }],
    ['a negative stake', { ...valid, stake: -1 }],
    ['an array', [valid]],
    ['null', null],
    ['a class instance', Object.assign(Object.create({ inherited: 1 }), valid)],
    ['an own __proto__ key', JSON.parse(`{"betId":"B","accountId":"a","betCode":"BANKER","stake":"1","__proto__":{"currency":"EUR"}}`)],
  ])('leaves %s to class-validator', (_what, b) => {
    expect(isPlainValidBet(b)).toBe(false);
  });

  it('through the pipe: a valid batch is the DTO, a refused one gets class-validator’s own refusal', async () => {
    const pipe = new LedgerValidationPipe();
    const meta = { type: 'body' as const, metatype: PlaceBetBatchDto, data: undefined };
    const ok = (await pipe.transform({ bets: [valid, { ...valid, betId: 'B-2' }], expectedVersion: 3 }, meta)) as PlaceBetBatchDto;
    expect(ok).toBeInstanceOf(PlaceBetBatchDto);
    expect(ok.bets.map((b) => b.betId)).toEqual(['B-1', 'B-2']);
    expect(ok.expectedVersion).toBe(3);
    // the rest of the body is still class-validator's: an unknown top-level field or a bad version
    await expect(pipe.transform({ bets: [valid], forged: 1 }, meta)).rejects.toMatchObject({ response: { message: ['property forged should not exist'] } });
    await expect(pipe.transform({ bets: [valid], expectedVersion: -1 }, meta)).rejects.toThrow();
    // one bad bet: the whole batch goes to class-validator, which names the field
    await expect(pipe.transform({ bets: [valid, { ...valid, stake: 'ten' }] }, meta)).rejects.toMatchObject({
      response: { message: ['bets.1.stake must be integer minor units, as a string of digits or a safe integer'] },
    });
  });
});
