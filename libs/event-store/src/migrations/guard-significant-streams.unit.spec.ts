import { REFERENCES_BY_INSERT_FUNCTION_SQL } from './1799700000000-ReferencesByInsert';
import { GUARD_SIGNIFICANT_STREAMS_FUNCTION_SQL, SIGNIFICANT_GUARD_EDITS, SIGNIFICANT_STREAM_GUARD } from './1799900000000-GuardSignificantStreams';

describe('ledger_append guarding the significant streams (GuardSignificantStreams1799900000000)', () => {
  it('differs from the function before only in the guard and its variable', () => {
    const back = SIGNIFICANT_GUARD_EDITS.reduce((sql, [from, to]) => sql.replace(to, from), GUARD_SIGNIFICANT_STREAMS_FUNCTION_SQL);
    expect(back).toEqual(REFERENCES_BY_INSERT_FUNCTION_SQL);
  });

  it('checks before any write, and only the streams of significant events', () => {
    const sql = GUARD_SIGNIFICANT_STREAMS_FUNCTION_SQL;
    const guard = sql.indexOf(SIGNIFICANT_STREAM_GUARD);
    expect(guard).toBeGreaterThan(0);
    for (const write of ['INSERT INTO streams', 'INSERT INTO ledger_references', 'INSERT INTO idempotency_keys', 'nextval(', 'INSERT INTO events']) expect(sql.indexOf(write)).toBeGreaterThan(guard);
    expect(SIGNIFICANT_STREAM_GUARD.split('\n')[0]).toBe("    IF starts_with(p_stream_id, 'significant-') THEN");
    expect(SIGNIFICANT_STREAM_GUARD).toMatch(/WHEN 1 THEN 'SignificantEventRaised' WHEN 2 THEN 'SignificantEventAcknowledged' END/);
    expect(SIGNIFICANT_STREAM_GUARD).toMatch(/p_expected_version \+ n > 2/);
    expect(SIGNIFICANT_STREAM_GUARD).toMatch(/USING ERRCODE = 'LA022'/);
  });
});
