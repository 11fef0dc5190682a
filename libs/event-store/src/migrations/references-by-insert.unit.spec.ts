import { APPEND_BY_UNNEST_FUNCTION_SQL } from './1799500000000-AppendByUnnest';
import { REFERENCES_BY_INSERT_FUNCTION_SQL, RESERVATION_EDITS, reservationAfter, reservationBefore } from './1799700000000-ReferencesByInsert';

describe('ledger_append looking up only the ids its insert did not add (ReferencesByInsert1799700000000)', () => {
  it('differs from the function before only in the reservations and their variables', () => {
    const back = RESERVATION_EDITS.reduce((sql, [from, to]) => sql.replace(to, from), REFERENCES_BY_INSERT_FUNCTION_SQL);
    expect(back).toEqual(APPEND_BY_UNNEST_FUNCTION_SQL);
  });

  it('no longer compares the ledger’s ids with the whole request (ANY over p_bet_ids / p_round_ids); the function before did', () => {
    const wholeRequest = /ANY \((p_bet_ids|p_round_ids)\)/g;
    expect(APPEND_BY_UNNEST_FUNCTION_SQL.match(wholeRequest)).toHaveLength(2);
    expect(REFERENCES_BY_INSERT_FUNCTION_SQL.match(wholeRequest)).toBeNull();
  });

  it('looks up only when the insert added fewer ids than asked, and then only those it did not add', () => {
    for (const kind of ['ROUND', 'BET'] as const) {
      const after = reservationAfter(kind);
      expect(after).toMatch(/ON CONFLICT \(kind, ref_id\) DO NOTHING RETURNING ref_id\)/);
      expect(after).toMatch(/IF coalesce\(cardinality\(added\), 0\) < cardinality\(p_(bet|round)_ids\) THEN\s+clash := ARRAY\(SELECT unnest\(p_(bet|round)_ids\) EXCEPT SELECT unnest\(added\)\);/);
      expect(after).toMatch(/ref_id = ANY \(clash\) AND stream_id <> p_stream_id/);
      // the refusal is the same: its SQLSTATE, its kind and the ids, sorted
      const raise = (s: string) => s.slice(s.indexOf('RAISE'), s.indexOf(';', s.indexOf('RAISE')));
      expect(raise(after)).toEqual(raise(reservationBefore(kind)));
    }
  });
});
