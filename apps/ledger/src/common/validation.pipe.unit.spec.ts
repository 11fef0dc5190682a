import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { Type } from 'class-transformer';
import { LedgerValidationPipe, ValidationRefusal } from './validation.pipe';

/** A query DTO of the shape the API's list endpoints use. */
class PageQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

/** What the pipe throws for `value` validated as `type` against {@link PageQuery}. */
async function refusal(value: unknown, type: 'body' | 'query' | 'param'): Promise<ValidationRefusal> {
  try {
    await new LedgerValidationPipe().transform(value, { type, metatype: PageQuery });
  } catch (e) {
    if (e instanceof ValidationRefusal) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe('LedgerValidationPipe refusals name the part of the request they refuse', () => {
  it('an unknown query parameter: "query string is invalid", VALIDATION.FAILED, the problem listed', async () => {
    const r = await refusal({ foo: 'bar' }, 'query');
    expect({ code: r.code, part: r.part, summary: r.summary, problems: r.problems }).toEqual({
      code: 'VALIDATION.FAILED',
      part: 'query',
      summary: 'query string is invalid',
      problems: ['property foo should not exist'],
    });
  });

  it('a bad body: "request body is invalid"', async () => {
    const r = await refusal({ limit: 0 }, 'body');
    expect({ part: r.part, summary: r.summary }).toEqual({ part: 'body', summary: 'request body is invalid' });
  });

  it('a bad path parameter: "path parameter is invalid"', async () => {
    expect((await refusal({ limit: 'x' }, 'param')).summary).toBe('path parameter is invalid');
  });

  it('accepts what the DTO accepts', async () => {
    await expect(new LedgerValidationPipe().transform({ limit: '20' }, { type: 'query', metatype: PageQuery })).resolves.toEqual({ limit: 20 });
  });
});
