/**
 * The global-position check (docs/guarantees.md §5): up to the relay's progress (`outbox_progress`),
 * every position is an event or a hole the relay recorded (`position_gaps`: an append that rolled
 * back after taking it); no event sits in a recorded hole; the progress is not beyond the last
 * position the sequence assigned (a progress marker pushed forward by hand); no event is above the
 * sequence. Positions above the progress are not final yet and not judged. `ChainVerifier.verifyAll`
 * and `npm run -s verify` (libs/anchors/src/verify-ledger.ts) both run it.
 */

/** What is wrong with the positions (a code in a field). */
export type PositionProblemKind = 'UNACCOUNTED' | 'EVENT_IN_HOLE' | 'PROGRESS_AHEAD' | 'EVENT_BEYOND_SEQUENCE';

/** One finding of {@link checkGlobalPositions}; stream fields null when no event is concerned. */
export interface PositionProblem {
  readonly kind: PositionProblemKind;
  readonly streamId: string | null;
  readonly streamVersion: number | null;
  readonly eventId: string | null;
  /** The global position concerned (decimal string), or null. */
  readonly globalPosition: string | null;
  readonly detail: string;
}

/** Runs `sql` with `$1…` parameters and resolves to the rows. */
export type RowQuery = (sql: string, params?: unknown[]) => Promise<any[]>;

/**
 * Checks the global positions (see the file comment) through `query`, preferably inside one
 * REPEATABLE READ snapshot. At most 1,000 findings of each kind.
 * @param query a session that may read `events`, `position_gaps`, `outbox_progress` and the sequence
 */
export async function checkGlobalPositions(query: RowQuery): Promise<PositionProblem[]> {
  const problems: PositionProblem[] = [];
  const [tail] = await query(
    `SELECT coalesce((SELECT through_position FROM outbox_progress WHERE name = 'ledger-relay'), 0)::text AS through,
            (SELECT max(global_position)::text FROM events) AS max,
            pg_sequence_last_value('events_global_position_seq')::text AS sequence`,
  );
  const through = BigInt(tail.through);
  const holes = await query(
    `SELECT t.global_position::text AS global_position, t.prev::text AS prev, t.event_id, t.stream_id, t.stream_version
       FROM (SELECT global_position, event_id, stream_id, stream_version,
                    lag(global_position) OVER (ORDER BY global_position) AS prev
               FROM events WHERE global_position <= $1::bigint + 1
             UNION ALL
             SELECT $1::bigint + 1, NULL, NULL, NULL, (SELECT max(global_position) FROM events WHERE global_position <= $1::bigint)
              WHERE NOT EXISTS (SELECT 1 FROM events WHERE global_position = $1::bigint + 1)) t
      WHERE t.global_position <> coalesce(t.prev, 0) + 1
        AND (SELECT coalesce(sum(least(g.to_position, t.global_position - 1) - greatest(g.from_position, coalesce(t.prev, 0) + 1) + 1), 0)
               FROM position_gaps g WHERE g.from_position <= t.global_position - 1 AND g.to_position >= coalesce(t.prev, 0) + 1)
            <> t.global_position - 1 - coalesce(t.prev, 0)
      LIMIT 1000`,
    [through.toString()],
  );
  for (const h of holes) {
    const from = h.prev === null ? 1n : BigInt(h.prev) + 1n;
    const to = BigInt(h.global_position) - 1n;
    if (from > through) continue;
    problems.push({
      kind: 'UNACCOUNTED',
      streamId: h.stream_id,
      streamVersion: h.stream_version,
      eventId: h.event_id,
      globalPosition: from.toString(),
      detail: `global positions ${from}..${to} hold no event and are not a recorded hole (an event removed?)${h.event_id ? ' before this event' : ''}`,
    });
  }
  const inHoles = await query(
    `SELECT e.global_position::text AS global_position, e.event_id, e.stream_id, e.stream_version
       FROM position_gaps g JOIN events e ON e.global_position BETWEEN g.from_position AND g.to_position LIMIT 1000`,
  );
  for (const e of inHoles) {
    problems.push({
      kind: 'EVENT_IN_HOLE',
      streamId: e.stream_id,
      streamVersion: e.stream_version,
      eventId: e.event_id,
      globalPosition: e.global_position,
      detail: `event at global position ${e.global_position} sits in a recorded hole: it was written after the relay passed its position (published late, out of position order, or never), or the hole is forged`,
    });
  }
  const max = tail.max === null ? 0n : BigInt(tail.max);
  const sequence = tail.sequence === null ? 0n : BigInt(tail.sequence);
  if (through > sequence) {
    problems.push({
      kind: 'PROGRESS_AHEAD',
      streamId: null,
      streamVersion: null,
      eventId: null,
      globalPosition: through.toString(),
      detail: `the relay's progress (outbox_progress) is at ${through}, beyond the last position the sequence assigned (${sequence}): a forged progress marker`,
    });
  }
  if (max > sequence) {
    problems.push({
      kind: 'EVENT_BEYOND_SEQUENCE',
      streamId: null,
      streamVersion: null,
      eventId: null,
      globalPosition: max.toString(),
      detail: `the last stored event is at ${max} but the position sequence only reached ${sequence} (an event written around the append)`,
    });
  }
  return problems;
}
