import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { ConfigError, type ConfigProblem } from './config-error';
import { envVarsOf, FORM_CONSTRAINT, type EnvVarInfo } from './env-var';

/** An environment: variable name → raw value (`process.env` or a test's own object). */
export type EnvSource = Readonly<Record<string, string | undefined>>;

/**
 * Reads and validates one process's configuration, once, at start (docs/architecture.md §5): the
 * variables `schema` declares are taken from `env` (an empty string counts as unset; an unset
 * variable keeps its default; an older name is read when the new one is unset), converted by
 * class-transformer and checked by class-validator; then the derived defaults are filled in from
 * the validated values (e.g. `RELAY_DATABASE_URL` from `DATABASE_URL`) — the `validate` function of the NestJS
 * configuration docs. Nothing else reads the environment: the result is passed down, and libraries
 * take options objects.
 *
 * @param schema a schema class of `@ledger/config` (`LedgerApiEnv`, `RelayEnv`, `ProjectorEnv`, `TokenToolEnv`, `VerifyEnv`, …)
 * @param env the environment; the process's own when omitted (the mains pass `process.env` explicitly)
 * @returns a frozen instance of `schema`: typed values (numbers, booleans, lists), defaults filled in
 * @throws ConfigError `CONFIG.INVALID` naming every variable that is unset though required, or does
 *   not have the expected form (e.g. `RELAY_POLL_INTERVAL_MS: expected an integer 10..60000 (ms), got "abc"`)
 */
export function loadConfig<T extends object>(schema: new () => T, env: EnvSource = process.env): Readonly<T> {
  const vars = envVarsOf(schema);
  const plain: Record<string, string> = {};
  const readFrom: Record<string, string> = {};
  for (const v of vars) {
    for (const name of [v.name, ...v.aliases]) {
      const raw = env[name];
      if (typeof raw === 'string' && raw !== '') {
        plain[v.name] = raw;
        readFrom[v.name] = name;
        break;
      }
    }
  }
  const config = plainToInstance(schema, plain, { excludeExtraneousValues: true, exposeDefaultValues: true });
  const errors = validateSync(config, { forbidUnknownValues: false, validationError: { target: false, value: false } });
  if (errors.length > 0) {
    const byName = new Map(vars.map((v) => [v.name, v]));
    const order = new Map(vars.map((v, i) => [v.name, i]));
    const sorted = [...errors].sort((a, b) => (order.get(a.property) ?? 0) - (order.get(b.property) ?? 0));
    throw new ConfigError(
      sorted.map((e) => problemOf(e, byName.get(e.property), plain[e.property], readFrom[e.property])),
      schema.name,
    );
  }
  // derived defaults (e.g. the relay's URL from DATABASE_URL), from the validated values
  const values = config as Record<string, unknown>;
  for (const v of vars) if (v.derived && values[v.name] === undefined) values[v.name] = v.derived.compute(values);
  return Object.freeze(config);
}

function problemOf(e: ValidationError, info: EnvVarInfo | undefined, raw: string | undefined, readFrom: string | undefined): ConfigProblem {
  const messages: string[] = [];
  for (const [constraint, message] of Object.entries(e.constraints ?? {})) {
    if (constraint !== FORM_CONSTRAINT) messages.push(message);
    else if (raw === undefined) messages.push(`not set: expected ${info?.expected ?? message}`);
    else messages.push(`expected ${info?.expected ?? message}, got ${shown(raw, info)}${problemIn(raw, info)}`);
  }
  return { variable: readFrom ?? e.property, message: messages.join('; ') };
}

function problemIn(raw: string, info: EnvVarInfo | undefined): string {
  const problem = info?.secret ? undefined : info?.problem?.(raw);
  return problem ? ` (${problem})` : '';
}

function shown(raw: string, info: EnvVarInfo | undefined): string {
  if (info?.secret) return `a value of ${Buffer.byteLength(raw, 'utf8')} bytes`;
  return JSON.stringify(raw.length > 120 ? `${raw.slice(0, 120)}…` : raw);
}
