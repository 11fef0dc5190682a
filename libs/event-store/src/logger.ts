import pino from 'pino';

/**
 * The structured logger the event store and the relay write to (docs/architecture.md §8: no `console.log`).
 * A pino `Logger` fits as is; the Nest app passes its `nestjs-pino` logger, tests a silent or
 * collecting one. First argument: fields (stream id, positions, error, …); second: a short message.
 */
export interface LedgerLogger {
  debug(fields: Record<string, unknown>, msg?: string): void;
  info(fields: Record<string, unknown>, msg?: string): void;
  warn(fields: Record<string, unknown>, msg?: string): void;
  error(fields: Record<string, unknown>, msg?: string): void;
}

/**
 * A pino logger named `name`, JSON lines on stdout.
 * @param name component name, e.g. `event-store`, `ledger-relay`
 * @param level pino level (the process's validated `LOG_LEVEL`, docs/architecture.md §5) @default 'info'
 */
export function defaultLogger(name: string, level = 'info'): LedgerLogger {
  return pino({ name, level });
}

/** Turns anything thrown into loggable fields (`err.message`, `err.code`, `err.stack`). */
export function errorFields(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; detail?: unknown };
    return { err: { name: e.name, message: e.message, code: e.code, detail: e.detail, stack: e.stack } };
  }
  return { err: String(err) };
}
