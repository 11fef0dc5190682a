import 'reflect-metadata';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Expose, Transform } from 'class-transformer';
import { ValidateBy, type ValidationArguments } from 'class-validator';
import { postgresUrlProblem, TARGET_SESSION_ATTRS } from './postgres-url';

/**
 * Decorators of the configuration schemas (docs/architecture.md §5). A schema is a class whose
 * properties are named after the environment variables they read, each with one decorator below
 * (the expected form, used in error messages and in the table of docs/configuration.md), its default as the property
 * initializer, and a docstring with the meaning and a `@default` tag (the table of docs/configuration.md is generated
 * from them: `scripts/gen-config-docs.ts`). Each decorator combines class-transformer's `@Expose` and
 * `@Transform` (the raw string → a typed value) with a class-validator constraint, so
 * {@link loadConfig} is the `validate` function of the NestJS configuration docs.
 */

/** What a schema says about one of its variables (the property name is the variable name). */
export interface EnvVarInfo {
  /** The variable, e.g. `RELAY_POLL_INTERVAL_MS`. */
  readonly name: string;
  /** The expected form in words, e.g. `an integer 10..60000 (ms)`. */
  readonly expected: string;
  /** A secret: never echoed in an error message nor printed. */
  readonly secret: boolean;
  /** Older names read when the variable itself is unset (the first one set wins). */
  readonly aliases: readonly string[];
  /** Its default is computed from the other validated values ({@link VarOptions.derived}); absent otherwise. */
  readonly derived?: DerivedDefault;
  /** What is wrong with a refused raw value, in words (added to the error message); absent when the form says it all. */
  readonly problem?: (raw: string) => string | undefined;
}

/**
 * A default computed from other variables, e.g. `RELAY_DATABASE_URL` from `DATABASE_URL`: filled in
 * by {@link loadConfig} after validation when the variable is unset, so every reader of the
 * configuration gets the same value.
 */
export interface DerivedDefault {
  /** How, in words (markdown): the docstring's `@default` says exactly this, and so does the table of docs/configuration.md. */
  readonly describe: string;
  /**
   * The value, from the validated configuration (every plain default filled in, `DATABASE_URL` etc.).
   * Must have the variable's form; must not throw for a valid configuration.
   */
  compute(config: Readonly<Record<string, unknown>>): unknown;
}

/** What a raw value that does not parse becomes; always refused by the form constraint. */
export const INVALID: unique symbol = Symbol('invalid configuration value');

/** Name of the class-validator constraint every variable carries (its form). */
export const FORM_CONSTRAINT = 'envForm';

/** Options every variable decorator takes. */
export interface VarOptions {
  /** May stay unset (no default, not required). @default false */
  readonly optional?: boolean;
  /** Never echo the value. @default false */
  readonly secret?: boolean;
  /** Older names of the variable. @default [] */
  readonly aliases?: readonly string[];
  /** Unset, it takes a default computed from the other variables (it is then never missing). @default none */
  readonly derived?: DerivedDefault;
}

interface VarSpec<T> extends VarOptions {
  readonly expected: string;
  parse(raw: string): T | typeof INVALID;
  check?(value: T): boolean;
  problem?(raw: string): string | undefined;
}

const OWN_VARS = new Map<Function, EnvVarInfo[]>();

/**
 * The variables of a schema, base classes first (mixins included), each once.
 * @param schema a schema class (e.g. `RelayEnv`)
 */
export function envVarsOf(schema: Function): readonly EnvVarInfo[] {
  const chain: Function[] = [];
  for (let c: Function | null = schema; c && c !== Function.prototype && c !== Object; c = Object.getPrototypeOf(c) as Function | null) chain.unshift(c);
  const vars = new Map<string, EnvVarInfo>();
  for (const c of chain) for (const v of OWN_VARS.get(c) ?? []) vars.set(v.name, v);
  return [...vars.values()];
}

function envVar<T>(spec: VarSpec<T>): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    const name = String(key);
    const ctor = (target as { constructor: Function }).constructor;
    const own = OWN_VARS.get(ctor) ?? [];
    own.push({ name, expected: spec.expected, secret: spec.secret === true, aliases: spec.aliases ?? [], ...(spec.derived ? { derived: spec.derived } : {}), ...(spec.problem ? { problem: spec.problem } : {}) });
    OWN_VARS.set(ctor, own);
    Expose()(target, name);
    Transform(({ value }) => (typeof value === 'string' ? spec.parse(value) : value), { toClassOnly: true })(target, name);
    ValidateBy({
      name: FORM_CONSTRAINT,
      validator: {
        validate: (value: unknown) => (value === undefined ? spec.optional === true || spec.derived !== undefined : value !== INVALID && (spec.check ? spec.check(value as T) : true)),
        defaultMessage: () => spec.expected,
      },
    })(target, name);
  };
}

/**
 * An integer in `min..max` (decimal digits only: `1e3`, `0x10`, `12.0` and `abc` are refused).
 * @param unit shown after the range, e.g. `ms`
 */
export function IntVar(min: number, max: number, unit?: string, options: VarOptions = {}): PropertyDecorator {
  return envVar<number>({
    ...options,
    expected: `an integer ${min}..${max}${unit ? ` (${unit})` : ''}`,
    parse: (raw) => (/^-?\d+$/.test(raw) ? Number(raw) : INVALID),
    check: (n) => Number.isSafeInteger(n) && n >= min && n <= max,
  });
}

/** `true` or `false` (also `1` / `0`). */
export function BoolVar(options: VarOptions = {}): PropertyDecorator {
  return envVar<boolean>({
    ...options,
    expected: 'true or false',
    parse: (raw) => (raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : INVALID),
  });
}

/** One of a fixed set of words. */
export function OneOfVar(values: readonly string[], options: VarOptions = {}): PropertyDecorator {
  return envVar<string>({ ...options, expected: `one of ${values.join(', ')}`, parse: (raw) => (values.includes(raw) ? raw : INVALID) });
}

/**
 * A string matching `pattern`.
 * @param expected the form in words, e.g. `a Kafka topic name ([A-Za-z0-9._-], ≤ 249)`
 * @param check a further check of the whole value
 */
export function TextVar(pattern: RegExp, expected: string, options: VarOptions & { check?: (value: string) => boolean } = {}): PropertyDecorator {
  return envVar<string>({ ...options, expected, parse: (raw) => (pattern.test(raw) && (options.check?.(raw) ?? true) ? raw : INVALID) });
}

/** A secret string of at least `minBytes` bytes (UTF-8); its value is never echoed. */
export function SecretVar(minBytes: number, expected: string, options: VarOptions = {}): PropertyDecorator {
  return envVar<string>({ ...options, secret: true, expected, parse: (raw) => (Buffer.byteLength(raw, 'utf8') >= minBytes ? raw : INVALID) });
}

/** A URL with one of `protocols` (e.g. `postgres:`). */
export function UrlVar(protocols: readonly string[], options: VarOptions = {}): PropertyDecorator {
  return envVar<string>({
    ...options,
    expected: `a ${protocols.map((p) => `${p}//`).join(' or ')} URL`,
    parse: (raw) => {
      try {
        return protocols.includes(new URL(raw).protocol) ? raw : INVALID;
      } catch {
        return INVALID;
      }
    },
  });
}

/**
 * A PostgreSQL connection URL (`postgres:` or `postgresql:`): one host, as any URL, or several as
 * libpq writes them (`host1:port1,host2:port2`), with `target_session_attrs` one of
 * {@link TARGET_SESSION_ATTRS} (docs/operations.md, "A primary with a synchronous standby"). A
 * refused value's message says what is wrong with it ({@link postgresUrlProblem}).
 */
export function PostgresUrlVar(options: VarOptions = {}): PropertyDecorator {
  return envVar<string>({
    ...options,
    expected: `a postgres:// or postgresql:// URL, one host or several (host1:port1,host2:port2; target_session_attrs ${TARGET_SESSION_ATTRS.join(', ')})`,
    parse: (raw) => (postgresUrlProblem(raw) === undefined ? raw : INVALID),
    problem: postgresUrlProblem,
  });
}

/** A comma-separated list (blanks around items ignored), at least one item, each matching `item`. */
export function ListVar(item: RegExp, expected: string, options: VarOptions = {}): PropertyDecorator {
  return envVar<string[]>({
    ...options,
    expected,
    parse: (raw) => {
      const items = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return items.length > 0 && items.every((s) => item.test(s)) ? items : INVALID;
    },
  });
}

/** An IANA time zone the runtime knows (`UTC`, `Europe/Malta`, `Asia/Bangkok`). */
export function TimeZoneVar(options: VarOptions = {}): PropertyDecorator {
  return envVar<string>({
    ...options,
    expected: 'an IANA time zone (UTC, Europe/Malta, ...)',
    parse: (raw) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: raw });
        return raw;
      } catch {
        return INVALID;
      }
    },
  });
}

/** The path of a readable regular file (relative paths from the working directory). */
export function FileVar(expected = 'the path of an existing file', options: VarOptions = {}): PropertyDecorator {
  return envVar<string>({
    ...options,
    expected,
    parse: (raw) => {
      try {
        return statSync(resolve(raw)).isFile() ? raw : INVALID;
      } catch {
        return INVALID;
      }
    },
  });
}

/**
 * A rule across variables: this one must be set unless `exempt(env)` holds.
 * @param why the message, naming what to set, e.g. `required outside development mode ...`
 */
export function RequiredUnless(exempt: (env: Record<string, unknown>) => boolean, why: string): PropertyDecorator {
  return ValidateBy({
    name: 'requiredUnless',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => value !== undefined || exempt((args?.object ?? {}) as Record<string, unknown>),
      defaultMessage: () => why,
    },
  });
}

/** A rule across variables: when this one is set, none of `others` may be. */
export function ExclusiveWith(others: readonly string[]): PropertyDecorator {
  return ValidateBy({
    name: 'exclusiveWith',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const env = (args?.object ?? {}) as Record<string, unknown>;
        return value === undefined || others.every((o) => env[o] === undefined);
      },
      defaultMessage: (args?: ValidationArguments) => `set only one of ${[args?.property ?? '?', ...others].join(', ')}`,
    },
  });
}
