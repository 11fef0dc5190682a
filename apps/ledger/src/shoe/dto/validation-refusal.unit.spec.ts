import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsOptional, ValidateNested } from 'class-validator';
import { EvidenceDto } from './evidence.dto';
import { IsCard } from '../../common/validators';
import { LedgerValidationPipe, refusalCode, ValidationRefusal } from '../../common/validation.pipe';

/**
 * A DTO refusal's error code travels in a field (`ValidationRefusal.code`, from the constraints'
 * class-validator context), never in a message text: the exception filter used to search the
 * problems for the text `CARD.MALFORMED` / `EVIDENCE.INVALID`, so a body whose unknown key was named
 * `CARD.MALFORMED` answered `CARD.MALFORMED`, and `@IsCard` with a message of its own answered
 * `VALIDATION.FAILED`.
 */
class CardBody {
  @IsCard()
  card!: string;

  @IsOptional()
  @IsCard({ message: 'that is not a card' })
  spare?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => EvidenceDto)
  evidence?: EvidenceDto;
}

describe('LedgerValidationPipe: the refusal carries its code', () => {
  const pipe = new LedgerValidationPipe();
  const meta = { type: 'body' as const, metatype: CardBody, data: undefined };
  const refusal = async (body: unknown): Promise<ValidationRefusal> => {
    const e: unknown = await pipe.transform(body, meta).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ValidationRefusal);
    return e as ValidationRefusal;
  };

  it('a malformed card: CARD.MALFORMED, with the problems Nest lists', async () => {
    const r = await refusal({ card: '1S' });
    expect({ code: r.code, problems: r.problems }).toEqual({ code: 'CARD.MALFORMED', problems: ['CARD.MALFORMED: card must be a card like "9S", "TH" or "10H"'] });
    expect(r.getResponse()).toMatchObject({ message: [...r.problems], statusCode: 400 });
  });

  it('a card rule with a message of its own still answers CARD.MALFORMED (the code is not read from the text)', async () => {
    const r = await refusal({ card: '9S', spare: 'XX' });
    expect({ code: r.code, problems: r.problems }).toEqual({ code: 'CARD.MALFORMED', problems: ['that is not a card'] });
  });

  it('an unknown key named after an error code answers VALIDATION.FAILED, not that code', async () => {
    for (const key of ['CARD.MALFORMED', 'EVIDENCE.INVALID']) {
      const r = await refusal({ card: '9S', [key]: 1 });
      expect({ code: r.code, problems: r.problems }).toEqual({ code: 'VALIDATION.FAILED', problems: [`property ${key} should not exist`] });
    }
  });

  it('a bad field or an unknown key inside evidence: EVIDENCE.INVALID; a malformed card beside it wins', async () => {
    expect((await refusal({ card: '9S', evidence: { cameraId: 'CAM 07' } })).code).toBe('EVIDENCE.INVALID');
    expect((await refusal({ card: '9S', evidence: { cameraId: 'CAM-07', operator: 'bob' } })).code).toBe('EVIDENCE.INVALID');
    expect((await refusal({ card: '1S', evidence: { cameraId: 'CAM 07' } })).code).toBe('CARD.MALFORMED');
  });

  it('refusalCode reads the contexts and the structure only', () => {
    const leaf = (property: string, constraints: Record<string, string>, contexts?: Record<string, unknown>) => ({ property, constraints, contexts, children: [] });
    expect(refusalCode([leaf('card', { isCard: 'CARD.MALFORMED: anything' })])).toBe('VALIDATION.FAILED');
    expect(refusalCode([leaf('card', { isCard: 'no code here' }, { isCard: { code: 'CARD.MALFORMED' } })])).toBe('CARD.MALFORMED');
    expect(refusalCode([{ property: 'evidence', children: [leaf('x', { whitelistValidation: 'property x should not exist' })] }])).toBe('EVIDENCE.INVALID');
    expect(refusalCode([{ property: 'bets', children: [{ property: '0', children: [{ property: 'evidence', children: [leaf('x', { c: 'm' })] }] }] }])).toBe('VALIDATION.FAILED');
    expect(refusalCode([])).toBe('VALIDATION.FAILED');
  });
});
