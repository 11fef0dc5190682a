import pino from 'pino';
import type { StructuredLogger } from '@ledger/logging';

/** Where the event store and the relay log (the one logger interface, docs/architecture.md §8). */
export type LedgerLogger = StructuredLogger;

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
