import type { MigrationInterface, QueryRunner } from 'typeorm';
import { APPEND_WITH_TRACE_FUNCTION_SQL } from './1798000000000-OutboxTraceContext';
import { editFunctionText } from './function-text';

/**
 * `ledger_append` reads the events' arrays in one pass (docs/architecture.md §2, step 5): the insert of the
 * events took element `i` of each array parameter per row (`p_data[i]`, `p_types[i]`,
 * `p_prev_hashes[i]`, `p_hashes[i]`). PL/pgSQL plans that statement with the call's values as
 * constants (a custom plan: the function sees appends of 1 and of 10,000 events, so the generic plan
 * never wins), and an element of a flat array of variable-length values (text, jsonb) is found by
 * walking the array from its start: O(i) per row, O(n²) per append. An append of 10,000 bets spent
 * most of its time there (the statement took ≈ 1.1–1.5 s, ≈ 0.25–0.4 s now; a probe reading a jsonb
 * and a text array of 10,000 by subscript under a custom plan: ≈ 310 ms, by unnest ≈ 40 ms), so a
 * batch of bets cost more per bet the larger it was.
 *
 * The insert now reads the positions and the arrays together with `unnest(...) WITH ORDINALITY`,
 * O(n) whatever the plan. The rows, their values and everything else the function does are
 * unchanged (the function's text differs from `1798000000000` in that statement only); `down` puts
 * the previous text back. No grant is run again: `CREATE OR REPLACE` keeps the function's owner and
 * privileges, and re-running `APPEND_GRANTS` would hand the relay back the writes on `outbox_progress`
 * and `position_gaps` that `1799100000000` took away.
 */

/** The statement of `1798000000000`'s function that reads the arrays by subscript. */
export const APPEND_INSERT_BY_SUBSCRIPT = `    SELECT pos[i], p_event_ids[i], p_stream_id, p_expected_version + i, p_table_id, p_types[i], p_schema_versions[i],
           p_data[i], p_actor_id, p_actor_role, p_occurred_at, p_recorded_at, p_correlation_id, p_causation_id, p_prev_hashes[i], p_hashes[i]
      FROM generate_series(1, n) i;`;

/**
 * The same rows in the same order, read in one pass over the arrays (`n` is the number of event
 * ids; like the subscripts, a shorter array yields nulls and a longer one is cut at `n`).
 */
export const APPEND_INSERT_BY_UNNEST = `    SELECT u.e_pos, u.e_id, p_stream_id, p_expected_version + u.i::integer, p_table_id, u.e_type, u.e_schema,
           u.e_data, p_actor_id, p_actor_role, p_occurred_at, p_recorded_at, p_correlation_id, p_causation_id, u.e_prev, u.e_hash
      FROM unnest(pos, p_event_ids, p_types, p_schema_versions, p_data, p_prev_hashes, p_hashes)
           WITH ORDINALITY AS u(e_pos, e_id, e_type, e_schema, e_data, e_prev, e_hash, i)
     WHERE u.i <= n;`;

/** `ledger_append` of `1798000000000` with its insert reading the arrays by {@link APPEND_INSERT_BY_UNNEST}. */
export const APPEND_BY_UNNEST_FUNCTION_SQL = editFunctionText('AppendByUnnest', APPEND_WITH_TRACE_FUNCTION_SQL, [[APPEND_INSERT_BY_SUBSCRIPT, APPEND_INSERT_BY_UNNEST]]);

/** `ledger_append` whose insert reads its arrays in one pass (see the file comment). */
export class AppendByUnnest1799500000000 implements MigrationInterface {
  name = 'AppendByUnnest1799500000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(APPEND_BY_UNNEST_FUNCTION_SQL);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(APPEND_WITH_TRACE_FUNCTION_SQL);
  }
}
