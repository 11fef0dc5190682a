import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The relay's progress markers are moved only through a function that checks them against the event
 * store (docs/guarantees.md §5): `outbox_progress` and `position_gaps` were writable by the relay's
 * login directly (UPDATE, INSERT), so that login could push the progress to 10^15 — as-of then
 * answered for positions never written and a close recorded a `throughPosition` no later event could
 * pass — or record a "hole" over a real event. Now:
 *
 * `ledger_mark_progress(p_name, p_through)` (SECURITY DEFINER, the owner's) is the only way the relay
 * moves them: it refuses a `p_through` above the last position the sequence assigned; it records as
 * holes exactly the positions in (progress, p_through] that no event holds; and moves the progress
 * forward (never back, as the trigger of `1797000000000` also ensures). The relay's login keeps
 * SELECT only. (It does not refuse a progress past an unpublished outbox row: the commit horizon
 * occasionally passes an append still in flight under load — see docs/guarantees.md §5 — and the
 * relay publishes that row in its next batch; `npm run -s verify` names the event as `EVENT_IN_HOLE`.)
 */
export const MARK_PROGRESS_FUNCTION_SQL = `
CREATE OR REPLACE FUNCTION ledger_mark_progress(p_name text, p_through bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_last bigint := coalesce(pg_sequence_last_value('events_global_position_seq'), 0);
  v_from bigint;
BEGIN
  IF p_through IS NULL OR p_through < 0 THEN
    RAISE EXCEPTION 'ledger: progress must be a position, got %', p_through USING ERRCODE = 'check_violation';
  END IF;
  IF p_through > v_last THEN
    RAISE EXCEPTION 'ledger: progress % is beyond the last assigned position %', p_through, v_last USING ERRCODE = 'check_violation';
  END IF;
  SELECT through_position INTO v_from FROM outbox_progress WHERE name = p_name FOR UPDATE;
  IF v_from IS NULL OR p_through <= v_from THEN
    RETURN;
  END IF;
  INSERT INTO position_gaps (from_position, to_position)
  SELECT t.prev + 1, t.pos - 1
    FROM (SELECT x.pos, lag(x.pos) OVER (ORDER BY x.pos) AS prev
            FROM (SELECT v_from AS pos
                  UNION ALL
                  SELECT e.global_position FROM events e WHERE e.global_position > v_from AND e.global_position <= p_through
                  UNION ALL
                  SELECT p_through + 1) x) t
   WHERE t.prev IS NOT NULL AND t.pos > t.prev + 1 AND t.prev < p_through
  ON CONFLICT (from_position) DO NOTHING;
  UPDATE outbox_progress SET through_position = p_through WHERE name = p_name;
END $$`;

/** Who may call it, and what the relay keeps of the tables. */
export const MARK_PROGRESS_GRANTS = [
  `REVOKE ALL ON FUNCTION ledger_mark_progress(text, bigint) FROM PUBLIC`,
  `GRANT EXECUTE ON FUNCTION ledger_mark_progress(text, bigint) TO ledger_relay`,
  `REVOKE UPDATE, INSERT, DELETE ON outbox_progress FROM ledger_relay`,
  `REVOKE UPDATE, INSERT, DELETE ON position_gaps FROM ledger_relay`,
  `GRANT SELECT ON outbox_progress, position_gaps TO ledger_relay`,
];

/** `ledger_mark_progress` and the relay's narrowed privileges (see the file comment). */
export class GuardedProgress1799100000000 implements MigrationInterface {
  name = 'GuardedProgress1799100000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(MARK_PROGRESS_FUNCTION_SQL);
    await q.query(`COMMENT ON FUNCTION ledger_mark_progress(text, bigint) IS
      'The only way the relay moves outbox_progress and records position_gaps: never beyond the last assigned position, holes only where no event is.'`);
    for (const statement of MARK_PROGRESS_GRANTS) await q.query(statement);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`GRANT UPDATE (through_position) ON outbox_progress TO ledger_relay`);
    await q.query(`GRANT INSERT ON position_gaps TO ledger_relay`);
    await q.query(`DROP FUNCTION ledger_mark_progress(text, bigint)`);
  }
}
