/**
 * The logger the read side writes to: structured (an object, then a message), pino-compatible,
 * so `apps/projector` passes a pino logger and tests pass {@link SILENT_LOGGER}. Never
 * `console.log` (docs/architecture.md §8).
 */
export interface ProjectionLogger {
  debug(obj: Record<string, unknown>, msg?: string): void;
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
  error(obj: Record<string, unknown>, msg?: string): void;
}

/** A logger that drops everything. */
export const SILENT_LOGGER: ProjectionLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
