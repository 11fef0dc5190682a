import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';

/**
 * The read model, version 1: every projection table (docs/architecture.md §7) and the
 * bookkeeping that makes their effect exactly-once (docs/guarantees.md §6 and §7).
 *
 * Raw SQL, idempotent (`IF NOT EXISTS`), all objects in one schema (`read` unless constructed
 * with another name for a scratch rebuild). Amounts are `bigint` (one bet, minor units) or
 * `numeric(38,0)` (sums); they reach TypeScript as strings, never as `number`.
 * Times are `timestamptz` taken from the events (`occurredAt`); projection rows hold no
 * wall-clock column, so a rebuild reproduces them byte for byte. Only the bookkeeping tables
 * (`checkpoints.updated_at`, `applied_events.applied_at`) carry the wall clock.
 */
export class CreateReadModel1733000000000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'CreateReadModel1733000000000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of createReadModelSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
  }
}

/** The DDL of {@link CreateReadModel1733000000000}, statement by statement. */
export function createReadModelSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,

    // ---------------------------------------------------------------- bookkeeping (not projections)
    // The consumer checkpoint, committed in the same transaction as the rows it covers (docs/guarantees.md §6).
    // consumer_group is the projection's owner (PROJECTOR_GROUP), not necessarily the Kafka group
    // that read the records (a rebuild reads with a throw-away group and writes the owner's row).
    `CREATE TABLE IF NOT EXISTS ${s}.checkpoints (
       consumer_group text    NOT NULL,
       topic          text    NOT NULL,
       partition      integer NOT NULL,
       next_offset    bigint  NOT NULL CHECK (next_offset >= 0),
       updated_at     timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (consumer_group, topic, partition)
     )`,
    // Every event applied, by eventId: a duplicate the relay published at a new offset is skipped.
    `CREATE TABLE IF NOT EXISTS ${s}.applied_events (
       event_id        text    PRIMARY KEY,
       global_position bigint  NOT NULL,
       stream_id       text    NOT NULL,
       stream_version  integer NOT NULL,
       hash            text    NOT NULL,
       topic           text    NOT NULL,
       partition       integer NOT NULL,
       kafka_offset    bigint  NOT NULL,
       applied_at      timestamptz NOT NULL DEFAULT now()
     )`,

    // ---------------------------------------------------------------- helpers
    // Adds per-key integer counts of two jsonb objects ({"A": 3} + {"A": -1, "K": 1} = {"A": 2, "K": 1}).
    `CREATE OR REPLACE FUNCTION ${s}.add_counts(a jsonb, d jsonb) RETURNS jsonb
       LANGUAGE sql IMMUTABLE AS $$
         SELECT coalesce(jsonb_object_agg(k, coalesce((a ->> k)::int, 0) + coalesce((d ->> k)::int, 0)), '{}'::jsonb)
         FROM (SELECT jsonb_object_keys(a) AS k UNION SELECT jsonb_object_keys(d)) AS keys
       $$`,

    // ---------------------------------------------------------------- shoe_state
    `CREATE TABLE IF NOT EXISTS ${s}.shoe_state (
       shoe_id                  text    PRIMARY KEY,
       stream_id                text    NOT NULL UNIQUE,
       table_id                 text    NOT NULL,
       variant                  text    NOT NULL,
       decks                    integer NOT NULL,
       virtual_table            boolean NOT NULL,
       paytable_ref             text    NOT NULL,
       currency                 text    NOT NULL,
       opening_dealer_id        text    NOT NULL,
       dealer_id                text    NOT NULL,
       status                   text    NOT NULL CHECK (status IN ('OPEN','COMMENCING','READY','IN_ROUND','CLOSED','VOIDED')),
       hand_number              integer NOT NULL DEFAULT 0,
       current_round_id         text,
       previous_round_id        text,
       cards_out                integer NOT NULL DEFAULT 0,
       cards_remaining          integer NOT NULL,
       cards_unseen             integer NOT NULL DEFAULT 0,
       cards_dealt              integer NOT NULL DEFAULT 0,
       cards_burned             integer NOT NULL DEFAULT 0,
       cards_unneeded           integer NOT NULL DEFAULT 0,
       cards_exposed            integer NOT NULL DEFAULT 0,
       cards_dropped            integer NOT NULL DEFAULT 0,
       cards_out_by_rank        jsonb   NOT NULL,
       cards_remaining_by_rank  jsonb   NOT NULL,
       burns                    integer NOT NULL DEFAULT 0,
       commencement_card        text,
       commencement_burn_count  integer,
       commencement_burns_done  integer NOT NULL DEFAULT 0,
       commencement_event_id    text,
       commencement_corrections integer NOT NULL DEFAULT 0,
       cut_card_drawn           boolean NOT NULL DEFAULT false,
       cut_card_timing          text,
       cut_card_round_id        text,
       last_hand_round_id       text,
       voided                   boolean NOT NULL DEFAULT false,
       void_event_id            text,
       void_reason              text,
       void_actor_id            text,
       void_approver_id         text,
       closed                   boolean NOT NULL DEFAULT false,
       rounds_played            integer,
       opened_at                timestamptz NOT NULL,
       closed_at                timestamptz,
       voided_at                timestamptz,
       stream_version           integer NOT NULL,
       last_event_id            text    NOT NULL,
       last_global_position     bigint  NOT NULL
     )`,
    `CREATE INDEX IF NOT EXISTS shoe_state_table_idx ON ${s}.shoe_state (table_id, opened_at)`,

    // ---------------------------------------------------------------- hand_outcomes
    `CREATE TABLE IF NOT EXISTS ${s}.hand_outcomes (
       round_id          text     PRIMARY KEY,
       shoe_id           text     NOT NULL,
       table_id          text     NOT NULL,
       hand_number       integer  NOT NULL,
       dealer_id         text     NOT NULL,
       dealing_dealer_id text     NOT NULL,
       gaming_day        date     NOT NULL,
       currency          text     NOT NULL,
       paytable_ref      text     NOT NULL,
       opened_at         timestamptz NOT NULL,
       status            text     NOT NULL CHECK (status IN ('OPEN','RESULTED','CORRECTED','VOIDED')),
       betting_closed    boolean  NOT NULL DEFAULT false,
       cards             jsonb    NOT NULL DEFAULT '[]',
       unneeded_cards    jsonb    NOT NULL DEFAULT '[]',
       player_cards      jsonb,
       banker_cards      jsonb,
       player_total      smallint,
       banker_total      smallint,
       winner            text     CHECK (winner IN ('PLAYER','BANKER','TIE')),
       is_natural           boolean,
       player_pair       boolean,
       banker_pair       boolean,
       last_hand         boolean  NOT NULL DEFAULT false,
       current_revision  integer  NOT NULL DEFAULT 0,
       result_event_id   text,
       resulted_at       timestamptz,
       corrected_at      timestamptz,
       void_cause        text,
       voided_at         timestamptz,
       void_event_id     text
     )`,
    `CREATE UNIQUE INDEX IF NOT EXISTS hand_outcomes_shoe_hand_idx ON ${s}.hand_outcomes (shoe_id, hand_number)`,
    `CREATE INDEX IF NOT EXISTS hand_outcomes_table_day_idx ON ${s}.hand_outcomes (table_id, gaming_day)`,
    `CREATE TABLE IF NOT EXISTS ${s}.hand_outcome_revisions (
       round_id          text     NOT NULL,
       revision          integer  NOT NULL CHECK (revision >= 1),
       kind              text     NOT NULL CHECK (kind IN ('RESULTED','CORRECTED','VOIDED')),
       shoe_id           text     NOT NULL,
       table_id          text     NOT NULL,
       cards             jsonb,
       player_cards      jsonb,
       banker_cards      jsonb,
       player_total      smallint,
       banker_total      smallint,
       winner            text,
       is_natural           boolean,
       player_pair       boolean,
       banker_pair       boolean,
       paytable_ref      text,
       void_cause        text,
       caused_by         text,
       event_id          text     NOT NULL UNIQUE,
       global_position   bigint   NOT NULL,
       actor_id          text     NOT NULL,
       actor_role        text     NOT NULL,
       reason            text,
       acting_manager_id text,
       approver_id       text,
       compensates       text,
       occurred_at       timestamptz NOT NULL,
       recorded_at       timestamptz NOT NULL,
       PRIMARY KEY (round_id, revision)
     )`,

    // ---------------------------------------------------------------- bet_settlements
    `CREATE TABLE IF NOT EXISTS ${s}.bet_settlements (
       bet_id                  text     PRIMARY KEY,
       round_id                text     NOT NULL,
       shoe_id                 text     NOT NULL,
       table_id                text     NOT NULL,
       dealer_id               text     NOT NULL,
       gaming_day              date     NOT NULL,
       account_id              text     NOT NULL,
       bet_code                text     NOT NULL,
       currency                text     NOT NULL,
       stake                   bigint   NOT NULL CHECK (stake > 0),
       status                  text     NOT NULL CHECK (status IN ('OPEN','SETTLED','RESETTLED','REFUNDED')),
       result                  text     CHECK (result IN ('WIN','LOSE','PUSH')),
       winnings                bigint,
       payout                  bigint,
       net                     bigint,
       dropped                 text,
       paytable_ref            text,
       revision                integer  NOT NULL DEFAULT 0,
       revisions               integer  NOT NULL DEFAULT 0,
       first_payout            bigint,
       correction_payout_delta bigint   NOT NULL DEFAULT 0,
       refunded_stake          bigint,
       placed_at               timestamptz NOT NULL,
       settled_at              timestamptz,
       refunded_at             timestamptz,
       placed_event_id         text     NOT NULL,
       settlement_event_id     text,
       refund_event_id         text
     )`,
    `CREATE INDEX IF NOT EXISTS bet_settlements_round_idx ON ${s}.bet_settlements (round_id)`,
    `CREATE INDEX IF NOT EXISTS bet_settlements_account_idx ON ${s}.bet_settlements (account_id, placed_at)`,
    `CREATE INDEX IF NOT EXISTS bet_settlements_table_day_idx ON ${s}.bet_settlements (table_id, gaming_day)`,
    `CREATE TABLE IF NOT EXISTS ${s}.bet_settlement_revisions (
       bet_id          text     NOT NULL,
       seq             integer  NOT NULL CHECK (seq >= 1),
       kind            text     NOT NULL CHECK (kind IN ('SETTLED','RESETTLED','REFUNDED')),
       revision        integer  NOT NULL,
       round_id        text     NOT NULL,
       result          text,
       stake           bigint   NOT NULL,
       winnings        bigint,
       payout          bigint,
       net             bigint,
       dropped         text,
       paytable_ref    text,
       compensates     text,
       event_id        text     NOT NULL UNIQUE,
       global_position bigint   NOT NULL,
       actor_id        text     NOT NULL,
       actor_role      text     NOT NULL,
       cause_event_id  text     NOT NULL,
       reason          text,
       approver_id     text,
       occurred_at     timestamptz NOT NULL,
       PRIMARY KEY (bet_id, seq)
     )`,

    // ---------------------------------------------------------------- audit_events
    `CREATE TABLE IF NOT EXISTS ${s}.audit_events (
       global_position   bigint   PRIMARY KEY,
       event_id          text     NOT NULL UNIQUE,
       stream_id         text     NOT NULL,
       stream_version    integer  NOT NULL,
       table_id          text     NOT NULL,
       shoe_id           text     NOT NULL,
       round_id          text,
       bet_id            text,
       type              text     NOT NULL,
       schema_version    integer  NOT NULL,
       actor_id          text     NOT NULL,
       actor_role        text     NOT NULL,
       occurred_at       timestamptz NOT NULL,
       recorded_at       timestamptz NOT NULL,
       correlation_id    text     NOT NULL,
       causation_id      text     NOT NULL,
       reason            text,
       acting_manager_id text,
       approver_id       text,
       compensates       text,
       prev_hash         text     NOT NULL,
       hash              text     NOT NULL,
       data              jsonb    NOT NULL,
       UNIQUE (stream_id, stream_version)
     )`,
    `CREATE INDEX IF NOT EXISTS audit_events_table_time_idx ON ${s}.audit_events (table_id, occurred_at)`,
    `CREATE INDEX IF NOT EXISTS audit_events_shoe_idx ON ${s}.audit_events (shoe_id, stream_version)`,
    `CREATE INDEX IF NOT EXISTS audit_events_time_idx ON ${s}.audit_events (occurred_at)`,
    `CREATE INDEX IF NOT EXISTS audit_events_type_time_idx ON ${s}.audit_events (type, occurred_at)`,
    `CREATE INDEX IF NOT EXISTS audit_events_actor_time_idx ON ${s}.audit_events (actor_id, occurred_at)`,
    `CREATE INDEX IF NOT EXISTS audit_events_round_idx ON ${s}.audit_events (round_id) WHERE round_id IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS audit_events_bet_idx ON ${s}.audit_events (bet_id) WHERE bet_id IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS audit_events_correlation_idx ON ${s}.audit_events (correlation_id)`,

    // ---------------------------------------------------------------- reconciliation
    // One row per (table, shoe, dealer, gaming day, currency). Sums in minor units.
    // ggr is derived in the row itself, so GGR = turnover − payouts can never drift.
    // dropped_num / dropped_den: exact sum of the fractions of a minor unit dropped by rounding
    // (settlements in force), over dropped_den = lcm of every denominator summed (not reduced;
    // the report view reduces it).
    `CREATE TABLE IF NOT EXISTS ${s}.reconciliation (
       table_id                text          NOT NULL,
       shoe_id                 text          NOT NULL,
       dealer_id               text          NOT NULL,
       gaming_day              date          NOT NULL,
       currency                text          NOT NULL,
       turnover                numeric(38,0) NOT NULL DEFAULT 0,
       payouts                 numeric(38,0) NOT NULL DEFAULT 0,
       ggr                     numeric(38,0) GENERATED ALWAYS AS (turnover - payouts) STORED,
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
       PRIMARY KEY (table_id, shoe_id, dealer_id, gaming_day, currency)
     )`,
    `CREATE INDEX IF NOT EXISTS reconciliation_day_idx ON ${s}.reconciliation (gaming_day, table_id)`,
    `CREATE INDEX IF NOT EXISTS reconciliation_dealer_idx ON ${s}.reconciliation (dealer_id, gaming_day)`,
    // Hold = GGR / turnover at query time (NULL on no turnover); dropped as a reduced fraction.
    `CREATE OR REPLACE VIEW ${s}.reconciliation_report AS
       SELECT r.*,
              CASE WHEN r.turnover = 0 THEN NULL ELSE r.ggr / r.turnover END AS hold,
              div(r.dropped_num, g.g)::text
                || CASE WHEN div(r.dropped_den, g.g) = 1 THEN '' ELSE '/' || div(r.dropped_den, g.g)::text END AS dropped
       FROM ${s}.reconciliation r
       CROSS JOIN LATERAL (SELECT gcd(r.dropped_num, r.dropped_den) AS g) g`,

    // ---------------------------------------------------------------- roads
    `CREATE TABLE IF NOT EXISTS ${s}.roads (
       shoe_id          text    PRIMARY KEY,
       table_id         text    NOT NULL,
       rounds_counted   integer NOT NULL,
       leading_ties     integer NOT NULL,
       bead_plate       jsonb   NOT NULL,
       big_road         jsonb   NOT NULL,
       big_eye_boy      jsonb   NOT NULL,
       small_road       jsonb   NOT NULL,
       cockroach_pig    jsonb   NOT NULL,
       last_event_id    text    NOT NULL,
       last_global_position bigint NOT NULL
     )`,
  ];
}
