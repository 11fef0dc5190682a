import { useEffect, useRef, useState } from 'react';
import { fetchEventSource, EventStreamContentType } from '@microsoft/fetch-event-source';
import { currentBearer } from '../api/client';

/**
 * The live stream of the tables: `GET /live/tables` (server-sent events fed by the projections,
 * docs/http-api.md), one `event: table` with data `{"tableId","shoeId","globalPosition"}`
 * after each projection commit that changed a table (`shoeId` null: every table may have changed).
 * The console refetches what changed on such an event: there is no polling interval.
 *
 * The stream needs the bearer token, which `EventSource` cannot send, hence
 * `@microsoft/fetch-event-source` with the `Authorization` header of api/client.ts.
 */

/**
 * One `table` event of `GET /live/tables`. `shoeId` null: every table may have changed (a rebuild,
 * the API reconnected to PostgreSQL). `globalPosition`: the last projected event's position as a
 * decimal string (64-bit), null when unknown.
 */
export interface LiveTableEvent {
  readonly tableId: string;
  readonly shoeId: string | null;
  readonly globalPosition: string | null;
}

/**
 * State of the stream: `connecting` (first attempt), `connected`, `reconnecting` (lost; retrying
 * with a growing delay up to 10 s), `refused` (the API answered 4xx, e.g. the role may not
 * subscribe: not retried).
 */
export type LiveStatus = 'connecting' | 'connected' | 'reconnecting' | 'refused';

class RetriableError extends Error {}
class FatalError extends Error {}

/** Parses an event's data; `null` when it is not a table event (ignored). */
export function parseTableEvent(data: string): LiveTableEvent | null {
  try {
    const v = JSON.parse(data) as Partial<LiveTableEvent>;
    if (typeof v.tableId !== 'string') return null;
    return { tableId: v.tableId, shoeId: typeof v.shoeId === 'string' ? v.shoeId : null, globalPosition: typeof v.globalPosition === 'string' ? v.globalPosition : null };
  } catch {
    return null;
  }
}

/**
 * Subscribes to `GET /live/tables` while the component is mounted and calls `onTable` for every
 * `table` event (the latest `onTable` is used; changing it does not reconnect).
 * @param enabled false to stay disconnected (a role the stream would refuse)
 * @returns the stream's {@link LiveStatus}, for the page's "live" indicator
 */
export function useLiveTables(onTable: (e: LiveTableEvent) => void, enabled = true): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const handler = useRef(onTable);
  handler.current = onTable;

  useEffect(() => {
    if (!enabled) return;
    const abort = new AbortController();
    let failures = 0;
    setStatus('connecting');
    const bearer = currentBearer();
    void fetchEventSource('/live/tables', {
      signal: abort.signal,
      openWhenHidden: true,
      headers: bearer ? { Authorization: `Bearer ${bearer}` } : {},
      async onopen(res) {
        if (res.ok && (res.headers.get('content-type') ?? '').startsWith(EventStreamContentType)) {
          failures = 0;
          setStatus('connected');
          return;
        }
        if (res.status >= 400 && res.status < 500 && res.status !== 429) throw new FatalError(`live stream refused: HTTP ${res.status}`);
        throw new RetriableError(`live stream: HTTP ${res.status}`);
      },
      onmessage(msg) {
        if (msg.event !== 'table') return;
        const e = parseTableEvent(msg.data);
        if (e) handler.current(e);
      },
      onclose() {
        throw new RetriableError('live stream closed by the server');
      },
      onerror(err) {
        if (abort.signal.aborted) throw err;
        if (err instanceof FatalError) {
          setStatus('refused');
          throw err; // stop: not retried
        }
        failures++;
        setStatus('reconnecting');
        return Math.min(10_000, 500 * 2 ** Math.min(failures, 5));
      },
    }).catch(() => undefined);
    return () => abort.abort();
  }, [enabled]);

  return enabled ? status : 'refused';
}
