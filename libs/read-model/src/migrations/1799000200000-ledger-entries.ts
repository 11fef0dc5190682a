import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '@ledger/projections';

/**
 * `ledger_entries`: the money of the ledger as position-stamped entries (docs/reports.md §2, §3;
 * docs/domain-rules.md §4), owned by the `reconciliation` projection. One append-only row per money
 * effect of an event (a stake, a win, a refund, a resettlement delta, a dropped fraction, a round
 * count), as the one reconciliation rule (`libs/read-model/src/reconciliation/ledger-entries.ts`) gives it:
 *
 * - the event: `global_position`, `entry_no` (ordinal within the event; the key is both),
 *   `event_id`, `event_type`, `recorded_at` (the ledger's clock);
 * - the attribution of the round (fixed at RoundOpened): `gaming_day`, `table_id`, `shoe_id`,
 *   `round_id`, `dealer_id`; the bet (`bet_id`, null for a round count) and its `currency`;
 * - the deltas, typed as the `reconciliation` columns they add to (numeric(38,0) amounts in minor
 *   units, bigint counts, the dropped fraction as numeric(60,0) numerator / denominator).
 *
 * Indexes for the reports: `(gaming_day, table_id, global_position)` (a day's or a close's
 * entries, and those after a close's position: the adjustments) and `(round_id, global_position)`
 * (a round's entries). Live reconciliation = the sum of every entry; as of P = the sum of entries
 * with `global_position <= P`. The projector's role inserts (never updates: the table is rebuilt
 * from the topic, not edited), the API's role reads (grants below, beside the schema's defaults of
 * {@link GrantReadModel1733900000000}).
 *
 * An existing read model gets the table empty: run a rebuild (`npm run projections:rebuild`) to
 * fill it from the topic, as after any new projection table (docs/guarantees.md §7).
 */
export class LedgerEntries1799000200000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'LedgerEntries1799000200000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of ledgerEntriesSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS "${assertSchemaName(this.schema)}".ledger_entries`);
  }
}

/** The DDL of {@link LedgerEntries1799000200000}. */
export function ledgerEntriesSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.ledger_entries (
       global_position         bigint        NOT NULL,
       entry_no                integer       NOT NULL CHECK (entry_no >= 0),
       event_id                text          NOT NULL,
       event_type              text          NOT NULL,
       recorded_at             timestamptz   NOT NULL,
       gaming_day              date          NOT NULL,
       table_id                text          NOT NULL,
       shoe_id                 text          NOT NULL,
       round_id                text          NOT NULL,
       bet_id                  text,
       dealer_id               text          NOT NULL,
       currency                text          NOT NULL,
       turnover                numeric(38,0) NOT NULL DEFAULT 0,
       payouts                 numeric(38,0) NOT NULL DEFAULT 0,
       correction_payout_delta numeric(38,0) NOT NULL DEFAULT 0,
       voided_stakes           numeric(38,0) NOT NULL DEFAULT 0,
       bets_settled            bigint        NOT NULL DEFAULT 0,
       bets_refunded           bigint        NOT NULL DEFAULT 0,
       bets_resettled          bigint        NOT NULL DEFAULT 0,
       rounds_resulted         bigint        NOT NULL DEFAULT 0,
       rounds_voided           bigint        NOT NULL DEFAULT 0,
       corrections             bigint        NOT NULL DEFAULT 0,
       dropped_num             numeric(60,0) NOT NULL DEFAULT 0,
       dropped_den             numeric(60,0) NOT NULL DEFAULT 1 CHECK (dropped_den > 0),
       PRIMARY KEY (global_position, entry_no)
     )`,
    `CREATE INDEX IF NOT EXISTS ledger_entries_day_table_position_idx ON ${s}.ledger_entries (gaming_day, table_id, global_position)`,
    `CREATE INDEX IF NOT EXISTS ledger_entries_round_position_idx ON ${s}.ledger_entries (round_id, global_position)`,
    ...ledgerEntriesGrantsSql(schema),
  ];
}

/**
 * The grants on `ledger_entries` (part of {@link ledgerEntriesSql}; idempotent): append-only for the
 * projector (SELECT, INSERT: a rebuild, which recreates the schema, runs as the owner), SELECT for the
 * API. Re-run them after `grantReadModelSql`, whose defaults grant every table more.
 */
export function ledgerEntriesGrantsSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [`REVOKE ALL ON ${s}.ledger_entries FROM ledger_projector, ledger_app`, `GRANT SELECT, INSERT ON ${s}.ledger_entries TO ledger_projector`, `GRANT SELECT ON ${s}.ledger_entries TO ledger_app`];
}
