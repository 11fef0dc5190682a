import { ProjectionError } from './errors';

/**
 * The {@link ProjectionError} under an error the Kafka client or the database driver wrapped (its
 * `cause` or `originalError`, at most 10 levels deep), or the innermost error when there is none.
 */
export function rootCause(e: unknown): unknown {
  let x = e as { cause?: unknown; originalError?: unknown } | undefined;
  for (let i = 0; i < 10 && x; i++) {
    if (x instanceof ProjectionError) return x;
    const next = (x.cause ?? x.originalError) as typeof x;
    if (!next) break;
    x = next;
  }
  return x ?? e;
}

/** True for errors that will recur on retry: malformed or inconsistent events. */
export function isDataError(e: unknown): boolean {
  return rootCause(e) instanceof ProjectionError;
}
