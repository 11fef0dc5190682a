import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { InFlightRequests } from './http-hygiene';

/** Longest the API waits for its in-flight requests at a SIGTERM/SIGINT before it cuts them, in ms. */
export const SHUTDOWN_DRAIN_MS = 10_000;

/** How one {@link drainAndClose} ended. */
export interface ShutdownResult {
  /** Every in-flight request finished within the bound. */
  readonly drained: boolean;
  /** Requests still open at the bound, cut (0 when drained). */
  readonly cut: number;
  /** Server-sent event streams ended at the start (their clients reconnect). */
  readonly streamsEnded: number;
}

/**
 * The API's graceful stop (docs/api-versioning.md "Shutdown"): stop accepting connections
 * (`server.close()`), end the event streams, let every in-flight request finish — idle keep-alive
 * connections closed as soon as they are idle — for at most `drainMs`, cut what is left, then close
 * the app (Nest's shutdown hooks: the database pools, the LISTEN connection).
 * @param drainMs the bound, ms @default {@link SHUTDOWN_DRAIN_MS}
 */
export async function drainAndClose(app: INestApplication, inFlight: InFlightRequests, drainMs = SHUTDOWN_DRAIN_MS): Promise<ShutdownResult> {
  const server = app.getHttpServer() as Server;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const streamsEnded = inFlight.endStreams();
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), drainMs)));
  const late = await Promise.race([closed.then(() => false), timedOut]);
  clearInterval(idle);
  clearTimeout(timer);
  const cut = late ? inFlight.size : 0;
  if (late) server.closeAllConnections();
  await app.close();
  return { drained: !late, cut, streamsEnded };
}

/**
 * Installs the API process's SIGTERM/SIGINT handler ({@link drainAndClose}), in place of Nest's
 * (which re-raises the signal): exit code 0 after a drained stop, 1 when requests had to be cut or
 * the close failed. A second signal during the stop is ignored.
 * @param log where the stop is reported (the app's logger)
 */
export function installGracefulShutdown(app: INestApplication, inFlight: InFlightRequests, log: (fields: Record<string, unknown>, msg: string) => void, drainMs = SHUTDOWN_DRAIN_MS): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log({ signal, inFlight: inFlight.size, drainMs }, 'stopping: no new connections, draining in-flight requests');
    drainAndClose(app, inFlight, drainMs).then(
      (r) => {
        log({ signal, ...r }, r.drained ? 'stopped: every in-flight request finished' : 'stopped: requests cut at the drain bound');
        process.exit(r.drained ? 0 : 1);
      },
      (err: unknown) => {
        log({ signal, err: String(err) }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
