import { BadRequestException, HttpException, ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import type { ErrorCode } from '@ledger/errors';

/** The codes a DTO refusal may answer with: a constraint names its own in {@link RefusalContext}, else `VALIDATION.FAILED`. */
export type ValidationRefusalCode = Extract<ErrorCode, 'VALIDATION.FAILED' | 'CARD.MALFORMED' | 'EVIDENCE.INVALID'>;

/**
 * The class-validator `context` of a constraint whose failure answers with its own error code
 * rather than `VALIDATION.FAILED` (`@IsCard`: `CARD.MALFORMED`; the evidence rules:
 * `EVIDENCE.INVALID`). The code travels in this field, never in the message text.
 */
export interface RefusalContext {
  readonly code: Exclude<ValidationRefusalCode, 'VALIDATION.FAILED'>;
}

/** The part of a request a DTO validated: Nest's `ArgumentMetadata.type`. */
export type RequestPart = ArgumentMetadata['type'];

/** What a refusal's message calls each {@link RequestPart}. */
const PART_NAMES: Readonly<Record<RequestPart, string>> = { body: 'request body', query: 'query string', param: 'path parameter', custom: 'request' };

/**
 * A body, query or path parameter the DTOs refuse: 400 with the error code in {@link code}, the
 * problems (the messages of every failed constraint, as Nest's ValidationPipe lists them) in
 * {@link problems}, and the part refused in {@link part}. The exception filter answers
 * `{ code, message: '<part> is invalid', details: { problems } }` (e.g. `query string is invalid`).
 */
export class ValidationRefusal extends BadRequestException {
  constructor(
    readonly code: ValidationRefusalCode,
    readonly problems: readonly string[],
    readonly part: RequestPart = 'body',
  ) {
    super([...problems]);
  }

  /** `request body is invalid`, `query string is invalid`, `path parameter is invalid`. */
  get summary(): string {
    return `${PART_NAMES[this.part]} is invalid`;
  }
}

/**
 * The code a refusal answers with, from the errors' structure, never from their messages:
 * `CARD.MALFORMED` when a failed constraint anywhere carries that {@link RefusalContext}; else
 * `EVIDENCE.INVALID` when one carries that, or when a field inside the body's `evidence` object
 * failed (an unknown key in it too: docs/reports.md §7); else `VALIDATION.FAILED`.
 */
export function refusalCode(errors: readonly ValidationError[]): ValidationRefusalCode {
  const codes = new Set<string>();
  const walk = (e: ValidationError, inEvidence: boolean, top: boolean): void => {
    if (inEvidence && e.constraints && Object.keys(e.constraints).length > 0) codes.add('EVIDENCE.INVALID');
    for (const key of Object.keys(e.constraints ?? {})) {
      const code = (e.contexts?.[key] as Partial<RefusalContext> | undefined)?.code;
      if (code) codes.add(code);
    }
    for (const child of e.children ?? []) walk(child, inEvidence || (top && e.property === 'evidence'), false);
  };
  for (const e of errors) walk(e, false, true);
  if (codes.has('CARD.MALFORMED')) return 'CARD.MALFORMED';
  return codes.has('EVIDENCE.INVALID') ? 'EVIDENCE.INVALID' : 'VALIDATION.FAILED';
}

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

  /**
   * Nest's exception factory (the same problems, the same message budget), its refusal carrying
   * the {@link refusalCode} of the errors.
   */
  override createExceptionFactory(): (validationErrors?: ValidationError[]) => unknown {
    const nest = super.createExceptionFactory();
    return (validationErrors: ValidationError[] = []) => {
      const e = nest(validationErrors);
      const problems = e instanceof HttpException ? (e.getResponse() as { message?: unknown }).message : undefined;
      return Array.isArray(problems) ? new ValidationRefusal(refusalCode(validationErrors), problems.map(String)) : e;
    };
  }

  /** @throws ValidationRefusal (400 `VALIDATION.FAILED`, `CARD.MALFORMED` or `EVIDENCE.INVALID` through the exception filter) */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && hasFastPath(metadata.metatype)) {
      const fast = metadata.metatype.fastValidate(value);
      if (fast) {
        const rest = (await super.transform(fast.rest, { ...metadata, metatype: metadata.metatype.restType })) as object;
        return fast.finish(rest);
      }
    }
    try {
      return await super.transform(value, metadata);
    } catch (e) {
      throw e instanceof ValidationRefusal && metadata.type !== e.part ? new ValidationRefusal(e.code, e.problems, metadata.type) : e;
    }
  }
}
