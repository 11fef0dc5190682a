/**
 * The one logger interface of the ledger (docs/architecture.md §8): structured fields first, then
 * the message, as pino takes them. The event store, the outbox publisher, the projector and the
 * Kafka port all log through it; a pino logger fits it as it is. No implementation here.
 */
export interface StructuredLogger {
  debug(fields: Record<string, unknown>, msg?: string): void;
  info(fields: Record<string, unknown>, msg?: string): void;
  warn(fields: Record<string, unknown>, msg?: string): void;
  error(fields: Record<string, unknown>, msg?: string): void;
}

/** A logger that drops everything (tests, tools that print their own output). */
export const SILENT_LOGGER: StructuredLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
