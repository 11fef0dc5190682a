/**
 * The start-up checks of the ledger's processes (docs/architecture.md §5): before anything starts,
 * the database and the Kafka broker the configuration names must answer, or the process refuses to
 * start with a {@link StartupError} that names the variable to set (one line, no stack trace).
 */
import { Client } from 'pg';
import { shownTarget, StartupError } from '@ledger/config';
import type { KafkaClient } from '@ledger/kafka';
import { NoSuitableHostError } from '../database/host-selection';
import { pgClientConfig } from '../database/session-settings';

/** The socket errors that mean "nothing answers there" (refused, no such host, no route, timed out). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/** Whether a connection attempt's error says that nothing answers (rather than, say, a refused password); for a multi-host URL, that no host gave the session asked for. */
export function isUnreachable(err: unknown): boolean {
  if (err instanceof NoSuitableHostError) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && UNREACHABLE_CODES.has(e.code)) return true;
  return typeof e?.message === 'string' && /timeout|timed out/i.test(e.message);
}

/**
 * Connects once to the database at `url` and hangs up.
 * @param variable the environment variable that names it (for the message), e.g. `DATABASE_URL`
 * @param timeoutMs how long the connection may take
 * @throws StartupError `STARTUP.DATABASE_UNREACHABLE` when nothing answers there; any other refusal
 *   (a password, a missing database) is left to the process's own connection to report
 */
export async function assertDatabaseReachable(url: string, variable: string, timeoutMs = 5000): Promise<void> {
  const client = new Client({ ...pgClientConfig(url, 'ledger-start-check'), connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    if (isUnreachable(err)) throw new StartupError('STARTUP.DATABASE_UNREACHABLE', { variable, target: shownTarget(url), reason: reasonOf(err) });
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Asks the brokers for the cluster's description until one answers, for at most `waitMs` (a broker
 * restarting takes a few seconds).
 * @param kafka a client of `brokers` that does not retry by itself (`retries: 0`)
 * @throws StartupError `STARTUP.BROKER_UNREACHABLE` naming `variable` when none answered in time
 */
export async function assertBrokerReachable(kafka: KafkaClient, brokers: readonly string[], variable = 'KAFKA_BROKERS', waitMs = 10_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const admin = kafka.admin();
    try {
      await admin.connect();
      await admin.describeCluster();
      return;
    } catch (err) {
      if (Date.now() >= deadline) throw new StartupError('STARTUP.BROKER_UNREACHABLE', { variable, target: brokers.join(','), reason: reasonOf(err) });
      await new Promise((res) => setTimeout(res, 500));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}

/** An error's message, without the stack, on one line. */
function reasonOf(err: unknown): string {
  // not `instanceof Error`: an error of another realm (a socket's, in a test sandbox) is one too
  const message = (err as { message?: unknown } | null)?.message;
  const text = typeof message === 'string' ? message : String(err);
  return text.replace(/\s+/g, ' ').trim() || 'no answer';
}
