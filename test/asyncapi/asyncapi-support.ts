import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * What the AsyncAPI specs (test/asyncapi/*.unit.spec.ts, docs/guarantees.md §10) share: a strict
 * JSON Schema validator with formats, the parser's annotations taken out of a schema, and a
 * validation failure in words.
 */

/** A strict Ajv (draft-07, every error, formats checked). */
export function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats(ajv);
  return ajv;
}

/** `v` without the `x-parser-*` keys @asyncapi/parser annotates schemas with (a JSON Schema validator must not see them). */
export function stripParserKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(stripParserKeys) as T;
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !k.startsWith('x-parser-'))
        .map(([k, x]) => [k, stripParserKeys(x)]),
    ) as T;
  return v;
}

/** `what` and the validator's last errors, for an assertion message. */
export function explain(validate: ValidateFunction, what: string): string {
  return `${what}: ${JSON.stringify(validate.errors, null, 1)}`;
}
