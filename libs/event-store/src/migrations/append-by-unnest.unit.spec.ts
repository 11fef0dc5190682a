import { APPEND_BY_UNNEST_FUNCTION_SQL, APPEND_INSERT_BY_SUBSCRIPT, APPEND_INSERT_BY_UNNEST } from './1799500000000-AppendByUnnest';
import { APPEND_WITH_TRACE_FUNCTION_SQL } from './1798000000000-OutboxTraceContext';

/** The per-event array parameters of `ledger_append` (the positions `pos` are taken inside it). */
const EVENT_ARRAYS = ['p_event_ids', 'p_types', 'p_schema_versions', 'p_data', 'p_prev_hashes', 'p_hashes', 'pos'];

/**
 * Subscripts of a per-event array by a per-row index (`p_data[i]`), which cost O(i) each on a flat
 * array; not those by the count `n` (`p_hashes[n]`: once per append).
 */
function rowSubscripts(sql: string): string[] {
  return EVENT_ARRAYS.flatMap((a) => sql.match(new RegExp(`\\b${a}\\[(?!n\\])[a-z_.]+\\]`, 'g')) ?? []);
}

describe('ledger_append reading its arrays in one pass (AppendByUnnest1799500000000)', () => {
  it('differs from the function before only in the insert of the events', () => {
    expect(APPEND_BY_UNNEST_FUNCTION_SQL).not.toEqual(APPEND_WITH_TRACE_FUNCTION_SQL);
    expect(APPEND_BY_UNNEST_FUNCTION_SQL.replace(APPEND_INSERT_BY_UNNEST, APPEND_INSERT_BY_SUBSCRIPT)).toEqual(APPEND_WITH_TRACE_FUNCTION_SQL);
  });

  it('subscripts no per-event array by a row index any more (the function before did, in its insert)', () => {
    expect(rowSubscripts(APPEND_WITH_TRACE_FUNCTION_SQL).length).toBeGreaterThan(0);
    expect(rowSubscripts(APPEND_BY_UNNEST_FUNCTION_SQL)).toEqual([]);
  });

  it('reads every per-event array, the positions included, in one unnest, in order, cut at the number of event ids', () => {
    const from = /FROM unnest\(([^)]*)\)\s+WITH ORDINALITY AS u\(([^)]*)\)\s+WHERE u\.i <= n;/.exec(APPEND_INSERT_BY_UNNEST);
    expect(from).not.toBeNull();
    expect(from![1].split(',').map((s) => s.trim())).toEqual(['pos', 'p_event_ids', 'p_types', 'p_schema_versions', 'p_data', 'p_prev_hashes', 'p_hashes']);
    expect(from![2].split(',').map((s) => s.trim())).toEqual(['e_pos', 'e_id', 'e_type', 'e_schema', 'e_data', 'e_prev', 'e_hash', 'i']);
  });

  it('inserts the columns in the order the insert names them, as before', () => {
    const select = (sql: string) =>
      sql
        .slice(sql.indexOf('SELECT') + 'SELECT'.length, sql.indexOf('FROM'))
        .split(',')
        .map((s) => s.trim());
    const before = select(APPEND_INSERT_BY_SUBSCRIPT);
    const after = select(APPEND_INSERT_BY_UNNEST);
    const renamed: Record<string, string> = {
      'pos[i]': 'u.e_pos',
      'p_event_ids[i]': 'u.e_id',
      'p_expected_version + i': 'p_expected_version + u.i::integer',
      'p_types[i]': 'u.e_type',
      'p_schema_versions[i]': 'u.e_schema',
      'p_data[i]': 'u.e_data',
      'p_prev_hashes[i]': 'u.e_prev',
      'p_hashes[i]': 'u.e_hash',
    };
    expect(after).toEqual(before.map((c) => renamed[c] ?? c));
  });
});
