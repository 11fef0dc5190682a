import type { MigrationInterface, QueryRunner } from 'typeorm';
import { REFERENCES_BY_INSERT_FUNCTION_SQL } from './1799700000000-ReferencesByInsert';
import { editFunctionText } from './function-text';

/**
 * `ledger_append` keeps the streams of significant events to their two events
 * (docs/significant-events.md, "What the database refuses"). A significant event's stream
 * `significant-<id>` holds its `SignificantEventRaised` at version 1 and, once a second person
 * acknowledged it, its `SignificantEventAcknowledged` at version 2. The function refused nothing
 * there: the API's own login (`ledger_app`, which may execute it) could append any event at version 1
 * of the stream a raise was about to take (its id is a hash of its cause and code: known in advance),
 * and the monitor's raise then met a version conflict, taken for "raised before" — the raise never
 * happened; or append any event at version 2 of a genuine raise's stream, and the escalation gauges
 * counted it acknowledged while a genuine manager's acknowledgement was refused as a second one.
 *
 * Now, for a stream whose id starts with `significant-`, the function refuses, before it writes
 * anything, an append that would put any event but a `SignificantEventRaised` at version 1 or any
 * event but a `SignificantEventAcknowledged` at version 2, or anything above version 2: SQLSTATE
 * `LA022` (DETAIL: the stream; HINT: the first refused version and type), answered
 * `APPEND.INVALID` by the event store. Whatever login calls the function, the database enforces it.
 * For any other stream the check is one `starts_with` on the stream id (the function stays one
 * statement). Everything else is unchanged; `down` puts the previous text back. No grant is run
 * again (`CREATE OR REPLACE` keeps owner and privileges; see `1799500000000`).
 */

/** The function's first statement, after which the guard goes (before any write). */
const NO_EVENTS = `    IF n IS NULL OR n = 0 THEN
      RAISE EXCEPTION 'ledger_append: no events' USING ERRCODE = '22023';
    END IF;
`;

/**
 * The guard of the significant streams: after the check for no events, before any write. The
 * version of event `i` (1-based) is `p_expected_version + i`; the first whose type is not the one
 * its version admits (none above 2, or below 1) is named.
 */
export const SIGNIFICANT_STREAM_GUARD = `    IF starts_with(p_stream_id, 'significant-') THEN
      SELECT format('version %s: %s', p_expected_version + u.i, coalesce(u.e_type, 'no type')) INTO refused
        FROM unnest(p_types) WITH ORDINALITY AS u(e_type, i)
       WHERE u.i <= n AND u.e_type IS DISTINCT FROM (CASE p_expected_version + u.i::integer WHEN 1 THEN 'SignificantEventRaised' WHEN 2 THEN 'SignificantEventAcknowledged' END)
       ORDER BY u.i LIMIT 1;
      IF refused IS NULL AND (p_expected_version + n > 2 OR coalesce(cardinality(p_types), 0) < n) THEN
        refused := format('version %s: beyond the acknowledgement', p_expected_version + n);
      END IF;
      IF refused IS NOT NULL THEN
        RAISE EXCEPTION 'ledger_append: a significant event''s stream holds its SignificantEventRaised at version 1 and its SignificantEventAcknowledged at version 2, nothing else'
          USING ERRCODE = 'LA022', DETAIL = p_stream_id, HINT = refused;
      END IF;
    END IF;
`;

/** The variables the function declares before (`1799700000000`'s last) and with the guard's. */
const DECLARE_BEFORE = `    clash text[];\n  BEGIN`;
const DECLARE_AFTER = `    clash text[];\n    refused text;\n  BEGIN`;

/** The edits from `1799700000000`'s function text to this one's, each `[from, to]`. */
export const SIGNIFICANT_GUARD_EDITS: ReadonlyArray<readonly [string, string]> = [
  [DECLARE_BEFORE, DECLARE_AFTER],
  [NO_EVENTS, NO_EVENTS + SIGNIFICANT_STREAM_GUARD],
];

/** `ledger_append` of `1799700000000` with {@link SIGNIFICANT_STREAM_GUARD}. */
export const GUARD_SIGNIFICANT_STREAMS_FUNCTION_SQL = editFunctionText('GuardSignificantStreams', REFERENCES_BY_INSERT_FUNCTION_SQL, SIGNIFICANT_GUARD_EDITS);

/** `ledger_append` that refuses anything but a raise at version 1 and its acknowledgement at version 2 in a significant event's stream (see the file comment). */
export class GuardSignificantStreams1799900000000 implements MigrationInterface {
  name = 'GuardSignificantStreams1799900000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(GUARD_SIGNIFICANT_STREAMS_FUNCTION_SQL);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(REFERENCES_BY_INSERT_FUNCTION_SQL);
  }
}
