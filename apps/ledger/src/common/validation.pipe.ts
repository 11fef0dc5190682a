import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';

/**
 * A body DTO class that offers a fast path (see {@link LedgerValidationPipe}): `fastValidate` returns
 * the validated DTO and the body's other fields (checked by class-validator against `restType`), or
 * null to leave the whole body to class-validator. It may accept only bodies class-validator would
 * accept; anything it does not accept goes through class-validator, whose answer (and refusal
 * message) stands, so the API refuses exactly what the DTOs refuse.
 */
export interface FastBodyType {
  fastValidate(value: unknown): { readonly rest: Record<string, unknown>; readonly finish: (rest: object) => object } | null;
  readonly restType: new () => object;
}

function hasFastPath(metatype: unknown): metatype is FastBodyType {
  return typeof metatype === 'function' && typeof (metatype as Partial<FastBodyType>).fastValidate === 'function';
}

/**
 * The API's ValidationPipe (class-validator: `whitelist`, `forbidNonWhitelisted`, `transform`, every
 * error reported), with one addition for the hot batch path (docs/architecture.md §4): a body DTO
 * with a {@link FastBodyType} fast path has its large array checked by plain compiled predicates
 * (the same rules as its decorators: 10,000 bets cost ≈ 0.4 s of class-validator CPU otherwise), and
 * only the rest of the body by class-validator. Whatever the fast path does not accept is validated
 * by class-validator exactly as before.
 */
export class LedgerValidationPipe extends ValidationPipe {
  constructor() {
    super({ whitelist: true, forbidNonWhitelisted: true, transform: true, stopAtFirstError: false });
  }

  /** @throws BadRequestException (400 `VALIDATION.FAILED` through the exception filter), as ValidationPipe */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && hasFastPath(metadata.metatype)) {
      const fast = metadata.metatype.fastValidate(value);
      if (fast) {
        const rest = (await super.transform(fast.rest, { ...metadata, metatype: metadata.metatype.restType })) as object;
        return fast.finish(rest);
      }
    }
    return super.transform(value, metadata);
  }
}
