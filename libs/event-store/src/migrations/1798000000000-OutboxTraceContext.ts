import type { MigrationInterface, QueryRunner } from 'typeorm';
import { APPEND_FUNCTION_SQL, APPEND_GRANTS } from './1797000000000-AppendWithoutGlobalLock';

/**
 * The W3C trace context of an append, kept with its outbox rows (docs/architecture.md §11).
 *
 * `outbox.traceparent` and `outbox.tracestate` (both nullable text) hold the trace context of the
 * append span that wrote the row, so the relay's publish span continues the API request's trace and
 * puts it into the Kafka record's headers. They live in the outbox, not in `events`: the event, its
 * envelope, its hash (docs/guarantees.md §8) and the record's value stay byte for byte what they are
 * without tracing; the context is transport metadata, pruned with the outbox row.
 *
 * `ledger_append` gets two trailing parameters, `p_traceparent` and `p_tracestate` (DEFAULT NULL, so
 * a call with the 24 arguments of before still works), written into every outbox row of the append.
 * The old signature is dropped first (a second overload would make the 24-argument call ambiguous).
 */
export const APPEND_WITH_TRACE_FUNCTION_SQL = rewrite(APPEND_FUNCTION_SQL, [
  ['p_idem_cutoff timestamptz)', 'p_idem_cutoff timestamptz,\n    p_traceparent text DEFAULT NULL, p_tracestate text DEFAULT NULL)'],
  [
    'INSERT INTO outbox (global_position, topic, key) SELECT unnest(pos), p_topic, p_table_id;',
    'INSERT INTO outbox (global_position, topic, key, traceparent, tracestate) SELECT unnest(pos), p_topic, p_table_id, p_traceparent, p_tracestate;',
  ],
]);

/** `sql` with each `[from, to]` replaced once. @throws Error when a `from` is not found (the base function changed) */
function rewrite(sql: string, edits: ReadonlyArray<readonly [string, string]>): string {
  return edits.reduce((s, [from, to]) => {
    if (!s.includes(from)) throw new Error(`OutboxTraceContext: "${from}" not found in ledger_append`);
    return s.replace(from, to);
  }, sql);
}

/** Outbox trace-context columns and the `ledger_append` that fills them (see the file comment). */
export class OutboxTraceContext1798000000000 implements MigrationInterface {
  name = 'OutboxTraceContext1798000000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox ADD COLUMN traceparent text NULL, ADD COLUMN tracestate text NULL`);
    await q.query(`COMMENT ON COLUMN outbox.traceparent IS
      'W3C traceparent of the append span that wrote the row (tracing on only); the relay continues the trace from it. Not part of the event nor of its hash.'`);
    await q.query(`DROP FUNCTION ledger_append(text, text, integer, text, uuid[], text[], integer[], jsonb[], text[], text[],
      text, text, timestamptz, timestamptz, text, text, text, text[], text[], text, text, text, integer, timestamptz)`);
    await q.query(APPEND_WITH_TRACE_FUNCTION_SQL);
    for (const statement of APPEND_GRANTS) await q.query(statement);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION ledger_append(text, text, integer, text, uuid[], text[], integer[], jsonb[], text[], text[],
      text, text, timestamptz, timestamptz, text, text, text, text[], text[], text, text, text, integer, timestamptz, text, text)`);
    await q.query(APPEND_FUNCTION_SQL);
    for (const statement of APPEND_GRANTS) await q.query(statement);
    await q.query(`ALTER TABLE outbox DROP COLUMN traceparent, DROP COLUMN tracestate`);
  }
}
