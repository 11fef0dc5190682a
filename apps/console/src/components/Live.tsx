import { useCallback, useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { LiveStatus, LiveTableEvent } from '../lib/live';

/** Query key of the tables overview (`GET /tables/overview`); the live stream invalidates it. */
export const OVERVIEW_KEY = ['tables', 'overview'] as const;

/**
 * Invalidates what a `table` event of the live stream changed: the overview and the queries of the
 * event's shoe (`['shoe', shoeId, …]`: its page, if open; every shoe when the event's shoeId is null). Events come in bursts (a round is many
 * events), so they are gathered for 200 ms and invalidated once; every event schedules a refetch
 * after it, so the last one always leads to a read that includes it.
 */
export function useLiveInvalidation(): (e: LiveTableEvent) => void {
  const client = useQueryClient();
  const pending = useRef(new Set<string>());
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  return useCallback(
    (e: LiveTableEvent) => {
      // shoeId null: every table may have changed (a rebuild, the API reconnected): refresh every shoe
      pending.current.add(e.shoeId ?? '*');
      if (timer.current) return;
      timer.current = setTimeout(() => {
        timer.current = null;
        const shoes = [...pending.current];
        pending.current.clear();
        void client.invalidateQueries({ queryKey: OVERVIEW_KEY });
        if (shoes.includes('*')) void client.invalidateQueries({ queryKey: ['shoe'] });
        else for (const s of shoes) void client.invalidateQueries({ queryKey: ['shoe', s] });
      }, 200);
    },
    [client],
  );
}

/** The "live" indicator: connected / reconnecting / refused, announced politely. */
export function LiveIndicator({ status }: { status: LiveStatus }) {
  const text = { connecting: 'Live: connecting…', connected: 'Live', reconnecting: 'Live: reconnecting…', refused: 'Live: unavailable' }[status];
  return (
    <span className={`live live-${status}`} role="status" aria-live="polite" data-testid="live" data-state={status}>
      {text}
    </span>
  );
}
