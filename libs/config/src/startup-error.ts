import { formatErrorMessage, type ErrorCode } from '@ledger/errors';
import { ConfigError } from './config-error';
import { hasHostList, hostLabel, parsePostgresUrl } from './postgres-url';

/** The codes of a process that cannot reach what it depends on at start (libs/errors, source `config`). */
export type StartupErrorCode = Extract<ErrorCode, 'STARTUP.DATABASE_UNREACHABLE' | 'STARTUP.BROKER_UNREACHABLE'>;

/** What a {@link StartupError} names: the variable to set, where it pointed (no password) and what went wrong. */
export interface StartupErrorDetails {
  /** The environment variable that names the unreachable place, e.g. `DATABASE_URL`. */
  readonly variable: string;
  /** Where it pointed, without credentials, e.g. `127.0.0.1:5432/ledger`. */
  readonly target: string;
  /** What the connection attempt said, e.g. `connect ECONNREFUSED 127.0.0.1:5432`. */
  readonly reason: string;
}

/**
 * A process refuses to start because the database or the Kafka broker its configuration names does
 * not answer (docs/architecture.md §5): as a {@link ConfigError}, the mains print `message` (one
 * line: the code, the place, the variable to set) and exit 1, no stack trace. `code` is one of
 * {@link StartupErrorCode}; its message is the error table's.
 */
export class StartupError extends Error {
  /**
   * @param code `STARTUP.DATABASE_UNREACHABLE` or `STARTUP.BROKER_UNREACHABLE`
   * @param details the variable, the place and the reason, for the table's message template
   */
  constructor(
    readonly code: StartupErrorCode,
    readonly details: StartupErrorDetails,
  ) {
    super(`${code}: ${formatErrorMessage(code, { ...details })}`);
    this.name = 'StartupError';
  }
}

/**
 * What a process's main prints when it cannot start: a {@link ConfigError}'s or a
 * {@link StartupError}'s message (they name what to change), else the error's stack.
 */
export function startFailureText(err: unknown): string {
  if (err instanceof ConfigError || err instanceof StartupError) return err.message;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** A connection URL as it may be shown: `host:port/database`, never the login or the password. */
export function shownTarget(url: string): string {
  if (hasHostList(url)) {
    try {
      const p = parsePostgresUrl(url);
      return `${p.hosts.map(hostLabel).join(',')}${p.path}`;
    } catch {
      return '(not a URL)';
    }
  }
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
