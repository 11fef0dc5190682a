import type { MigrationInterface, QueryRunner } from 'typeorm';
import { APPEND_BY_UNNEST_FUNCTION_SQL } from './1799500000000-AppendByUnnest';
import { editFunctionText } from './function-text';

/**
 * `ledger_append` finds the round and bet ids another stream holds from what its own insert did not
 * add (docs/architecture.md §2, step 5; docs/guarantees.md §3). It inserted the request's ids into
 * `ledger_references` (`ON CONFLICT DO NOTHING`) and then looked every one of them up again with
 * `ref_id = ANY (p_bet_ids)`. PL/pgSQL soon runs that lookup under a generic plan, where the array
 * is a parameter: PostgreSQL neither hashes it nor, while the table's statistics are young, probes
 * the index with it, and compared every bet row of the ledger with every id of the request — a bench
 * run logged 2.2 s of a 2.24 s append of 2,000 bets in that one statement (68,050 rows × 2,000 ids),
 * and ≈ 22 s for 10,000 bets: the cost per bet grew with the batch and with the ledger.
 *
 * Now the insert returns the ids it added. When it added them all (no id was known before) nothing
 * is looked up; otherwise only the ids it did not add (`EXCEPT`: a hash or a sort, O(n log n)) are,
 * in a statement of their own, so it sees an id a concurrent append committed while this insert
 * waited for it, as before. The refusal (`LA020`, the ids in `HINT`, sorted) and everything else the
 * function does are unchanged; `down` puts the previous text back. No grant is run again
 * (`CREATE OR REPLACE` keeps owner and privileges; see `1799500000000`).
 */

/** The variables the reservation uses, declared after `taken`. */
const DECLARE_BEFORE = `    taken text[];\n  BEGIN`;
const DECLARE_AFTER = `    taken text[];\n    added text[];\n    clash text[];\n  BEGIN`;

/** The kinds of id `ledger_append` reserves: its array parameter, the alias of its unnest, the word of its refusal. */
const KINDS = {
  ROUND: { ids: 'p_round_ids', alias: 'r', noun: 'round' },
  BET: { ids: 'p_bet_ids', alias: 'b', noun: 'bet' },
} as const;

/** The reservation of `kind`'s ids as `1797000000000` wrote it. */
export function reservationBefore(kind: keyof typeof KINDS): string {
  const { ids, alias, noun } = KINDS[kind];
  return `    IF cardinality(${ids}) > 0 THEN
      INSERT INTO ledger_references (kind, ref_id, stream_id) SELECT '${kind}', ${alias}, p_stream_id FROM unnest(${ids}) ${alias}
      ON CONFLICT (kind, ref_id) DO NOTHING;
      SELECT array_agg(ref_id ORDER BY ref_id) INTO taken FROM ledger_references
       WHERE kind = '${kind}' AND ref_id = ANY (${ids}) AND stream_id <> p_stream_id;
      IF taken IS NOT NULL THEN
        RAISE EXCEPTION 'ledger_append: ${noun} ids held by another stream' USING ERRCODE = 'LA020', DETAIL = '${kind}', HINT = array_to_json(taken)::text;
      END IF;
    END IF;
`;
}

/** The same reservation, looking up only the ids the insert did not add. */
export function reservationAfter(kind: keyof typeof KINDS): string {
  const { ids, alias, noun } = KINDS[kind];
  return `    IF cardinality(${ids}) > 0 THEN
      WITH ins AS (
        INSERT INTO ledger_references (kind, ref_id, stream_id) SELECT '${kind}', ${alias}, p_stream_id FROM unnest(${ids}) ${alias}
        ON CONFLICT (kind, ref_id) DO NOTHING RETURNING ref_id)
      SELECT array_agg(ref_id) INTO added FROM ins;
      IF coalesce(cardinality(added), 0) < cardinality(${ids}) THEN
        clash := ARRAY(SELECT unnest(${ids}) EXCEPT SELECT unnest(added));
        SELECT array_agg(ref_id ORDER BY ref_id) INTO taken FROM ledger_references
         WHERE kind = '${kind}' AND ref_id = ANY (clash) AND stream_id <> p_stream_id;
        IF taken IS NOT NULL THEN
          RAISE EXCEPTION 'ledger_append: ${noun} ids held by another stream' USING ERRCODE = 'LA020', DETAIL = '${kind}', HINT = array_to_json(taken)::text;
        END IF;
      END IF;
    END IF;
`;
}

/** The edits from `1799500000000`'s function text to this one's, each `[from, to]`. */
export const RESERVATION_EDITS: ReadonlyArray<readonly [string, string]> = [
  [DECLARE_BEFORE, DECLARE_AFTER],
  [reservationBefore('ROUND'), reservationAfter('ROUND')],
  [reservationBefore('BET'), reservationAfter('BET')],
];

/** `ledger_append` of `1799500000000` with the reservations of {@link reservationAfter}. */
export const REFERENCES_BY_INSERT_FUNCTION_SQL = editFunctionText('ReferencesByInsert', APPEND_BY_UNNEST_FUNCTION_SQL, RESERVATION_EDITS);

/** `ledger_append` whose id reservations look up only the ids their insert did not add (see the file comment). */
export class ReferencesByInsert1799700000000 implements MigrationInterface {
  name = 'ReferencesByInsert1799700000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(REFERENCES_BY_INSERT_FUNCTION_SQL);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(APPEND_BY_UNNEST_FUNCTION_SQL);
  }
}
