import { rows, tablesIn, type Queryable } from '../sql';
import { AUDIT_TABLES } from './queries';

/**
 * The staff and table statistics' queries (docs/reports.md §6), computed in SQL from the audit read
 * model (`audit_events`) and the event store's append-only `rejections`, for a period. Shifts are
 * derived from the events: a shift is a dealer's continuous spell in a shoe, from the ShoeOpened or
 * DealerChanged that put them at the table to the next DealerChanged or the shoe's close/void.
 */

/** How the dealing figures are grouped: by dealer, by table, or by shift (table, shoe, dealer spell). */
export type StaffSumsKey = 'dealer' | 'table' | 'shift';

/**
 * The period and filters of a staff statistics query (null: no bound / no filter). Ledger times
 * (`from` inclusive, `to` exclusive, on `recordedAt`) and/or gaming days (`fromDay`, `toDay`
 * inclusive, cut with `timeZone` and `cutoffHour` as the projector cuts them).
 */
export interface StaffPeriod {
  readonly from: string | null;
  readonly to: string | null;
  readonly fromDay: string | null;
  readonly toDay: string | null;
  readonly tableId: string | null;
  readonly variant: string | null;
  /** `GAMING_DAY_TZ` (an IANA zone). */
  readonly timeZone: string;
  /** `GAMING_DAY_CUTOFF_HOUR` (0..23). */
  readonly cutoffHour: number;
}

/**
 * The dealing sums of one group: the key columns of the grouping (the others absent), counts as
 * integers, the round times (RoundOpened → first RoundResulted, ms of `occurredAt`) as decimal
 * strings: lower median and mean rounded half up, null without a resulted round.
 */
export type StaffSumsRow = {
  dealer_id?: string;
  table_id?: string;
  shoe_id?: string;
  shift_version?: number;
  started_at?: Date;
  ended_at?: Date | null;
  rounds: number;
  rounds_resulted: number;
  voids: number;
  corrections: number;
  exposed_cards: number;
  dropped_cards: number;
  unneeded_cards: number;
  refusals: number;
  rounds_with_refusal: number;
  median_ms: string | null;
  mean_ms: string | null;
};

/** The management figures of one pit manager (counts). */
export type PitManagerSumsRow = {
  manager_id: string;
  decisions_requested: number;
  decisions_approved: number;
  decisions_rejected: number;
  decisions_expired: number;
  voids_requested: number;
  voids_approved: number;
  corrections_requested: number;
  corrections_approved: number;
  shoe_voids_requested: number;
  shoe_voids_approved: number;
};

/** The deal-card route a tableau refusal was made on: `POST [/v1]/shoes/{shoeId}/rounds/{roundId}/cards`. */
const DEAL_ROUTE = '^POST (?:/v[0-9]+)?/shoes/([^/?]+)/rounds/([^/?]+)/cards(?:[?].*)?$';

/** The parameters of every statement here: $1 from, $2 to, $3 fromDay, $4 toDay, $5 tableId, $6 variant, $7 time zone, $8 cutoff hour. */
function params(f: StaffPeriod): unknown[] {
  return [f.from, f.to, f.fromDay, f.toDay, f.tableId, f.variant, f.timeZone, f.cutoffHour];
}

/** The period condition on a time column (parameters $1..$4, $7, $8). */
function inPeriod(col: string): string {
  return `($1::timestamptz IS NULL OR ${col} >= $1) AND ($2::timestamptz IS NULL OR ${col} < $2)
       AND ($3::date IS NULL OR ((${col} AT TIME ZONE $7) - make_interval(hours => $8::int))::date >= $3::date)
       AND ($4::date IS NULL OR ((${col} AT TIME ZONE $7) - make_interval(hours => $8::int))::date <= $4::date)`;
}

/** The shifts (dealer spells) of the shoes of the table and variant asked for, and the rounds opened in the period with their shift. */
function shiftsAndRounds(E: string): string {
  return `seg AS (
         SELECT o.shoe_id, o.table_id, o.stream_version AS start_version, o.recorded_at AS started_at, o.data ->> 'dealerId' AS dealer_id,
                LEAD(o.stream_version) OVER w AS next_version, LEAD(o.recorded_at) OVER w AS next_at
           FROM ${E} o
          WHERE o.type IN ('ShoeOpened', 'DealerChanged') AND ($5::text IS NULL OR o.table_id = $5)
         WINDOW w AS (PARTITION BY o.shoe_id ORDER BY o.stream_version)
       ),
       shoes AS (
         SELECT s.shoe_id, s.data ->> 'variant' AS variant FROM ${E} s
          WHERE s.type = 'ShoeOpened' AND ($5::text IS NULL OR s.table_id = $5) AND ($6::text IS NULL OR s.data ->> 'variant' = $6)
       ),
       shoe_end AS (
         SELECT e.shoe_id, min(e.recorded_at) AS ended_at FROM ${E} e
          WHERE e.type IN ('ShoeClosed', 'ShoeVoided') AND ($5::text IS NULL OR e.table_id = $5) GROUP BY e.shoe_id
       ),
       shifts AS (
         SELECT seg.shoe_id, seg.table_id, seg.dealer_id, seg.start_version, seg.started_at,
                COALESCE(seg.next_version, 2147483647) AS end_version, COALESCE(seg.next_at, se.ended_at) AS ended_at
           FROM seg JOIN shoes USING (shoe_id) LEFT JOIN shoe_end se USING (shoe_id)
       ),
       rounds AS (
         SELECT r.round_id, r.shoe_id, r.recorded_at AS opened_at, r.occurred_at AS opened_occurred_at, sh.table_id, sh.dealer_id, sh.start_version AS shift_version,
                sh.started_at, sh.ended_at
           FROM ${E} r
           JOIN shifts sh ON sh.shoe_id = r.shoe_id AND r.stream_version > sh.start_version AND r.stream_version < sh.end_version
          WHERE r.type = 'RoundOpened' AND ($5::text IS NULL OR r.table_id = $5) AND ${inPeriod('r.recorded_at')}
       )`;
}

/** Per round: its result time, voids and corrections; the tableau refusals per round (from `rejections`); the cards of each shift in the period. */
function roundFacts(E: string): string {
  return `round_events AS (
         SELECT e.round_id,
                min(e.occurred_at) FILTER (WHERE e.type = 'RoundResulted') AS resulted_occurred_at,
                count(*) FILTER (WHERE e.type = 'RoundVoided') AS voids,
                count(*) FILTER (WHERE e.type = 'ResultCorrected') AS corrections
           FROM ${E} e JOIN rounds r ON r.round_id = e.round_id AND r.shoe_id = e.shoe_id
          WHERE e.type IN ('RoundResulted', 'RoundVoided', 'ResultCorrected')
          GROUP BY e.round_id
       ),
       refusals AS (
         SELECT x.m[1] AS shoe_id, x.m[2] AS round_id, count(*) AS n
           FROM (SELECT regexp_match(j.route, '${DEAL_ROUTE}') AS m FROM rejections j
                  WHERE j.code = 'TABLEAU.VIOLATION' AND j.actor_role = 'table-device'
                    AND j.received_at >= (SELECT min(r0.opened_at) FROM rounds r0)) x
          WHERE x.m IS NOT NULL
          GROUP BY 1, 2
       ),
       cards AS (
         SELECT sh.table_id, sh.shoe_id, sh.dealer_id, sh.start_version AS shift_version, sh.started_at, sh.ended_at, c.type
           FROM ${E} c
           JOIN shifts sh ON sh.shoe_id = c.shoe_id AND c.stream_version > sh.start_version AND c.stream_version < sh.end_version
          WHERE c.type IN ('CardExposed', 'CardDropped', 'UnneededCardDrawn') AND ($5::text IS NULL OR c.table_id = $5) AND ${inPeriod('c.recorded_at')}
       ),
       facts AS (
         SELECT r.table_id, r.shoe_id, r.dealer_id, r.shift_version, r.started_at, r.ended_at,
                1 AS rounds, (re.resulted_occurred_at IS NOT NULL)::int AS resulted, COALESCE(re.voids, 0) AS voids,
                COALESCE(re.corrections, 0) AS corrections, 0 AS exposed, 0 AS dropped, 0 AS unneeded,
                COALESCE(rf.n, 0) AS refusals, (rf.n IS NOT NULL)::int AS refused_round,
                CASE WHEN re.resulted_occurred_at IS NOT NULL
                     THEN floor(extract(epoch FROM (re.resulted_occurred_at - r.opened_occurred_at)) * 1000)::bigint END AS ms
           FROM rounds r
           LEFT JOIN round_events re ON re.round_id = r.round_id
           LEFT JOIN refusals rf ON rf.round_id = r.round_id AND rf.shoe_id = r.shoe_id
         UNION ALL
         SELECT c.table_id, c.shoe_id, c.dealer_id, c.shift_version, c.started_at, c.ended_at,
                0, 0, 0, 0, (c.type = 'CardExposed')::int, (c.type = 'CardDropped')::int, (c.type = 'UnneededCardDrawn')::int, 0, 0, NULL
           FROM cards c
       )`;
}

/** The roles a pit manager's events give them, over the decision events of the period. */
function managerRoles(E: string): string {
  return `shoes AS (
         SELECT s.shoe_id FROM ${E} s
          WHERE s.type = 'ShoeOpened' AND ($5::text IS NULL OR s.table_id = $5) AND ($6::text IS NULL OR s.data ->> 'variant' = $6)
       ),
       ev AS (
         SELECT e.type, e.data, e.acting_manager_id, e.approver_id FROM ${E} e JOIN shoes USING (shoe_id)
          WHERE e.type IN ('DecisionRequested', 'DecisionApproved', 'DecisionRejected', 'DecisionExpired', 'RoundVoided', 'ResultCorrected', 'ShoeVoided')
            AND ($5::text IS NULL OR e.table_id = $5) AND ${inPeriod('e.recorded_at')}
       ),
       roles AS (
         SELECT data ->> 'requestedBy' AS manager_id, 'requested' AS what FROM ev WHERE type = 'DecisionRequested'
         UNION ALL SELECT data ->> 'approvedBy', 'approved' FROM ev WHERE type = 'DecisionApproved'
         UNION ALL SELECT data ->> 'rejectedBy', 'rejected' FROM ev WHERE type = 'DecisionRejected'
         UNION ALL SELECT data ->> 'requestedBy', 'expired' FROM ev WHERE type = 'DecisionExpired'
         UNION ALL SELECT acting_manager_id, 'void_requested' FROM ev WHERE type = 'RoundVoided' AND acting_manager_id IS NOT NULL
         UNION ALL SELECT approver_id, 'void_approved' FROM ev WHERE type = 'RoundVoided' AND approver_id IS NOT NULL
         UNION ALL SELECT acting_manager_id, 'correction_requested' FROM ev WHERE type = 'ResultCorrected' AND acting_manager_id IS NOT NULL
         UNION ALL SELECT approver_id, 'correction_approved' FROM ev WHERE type = 'ResultCorrected' AND approver_id IS NOT NULL
         UNION ALL SELECT acting_manager_id, 'shoe_void_requested' FROM ev WHERE type = 'ShoeVoided' AND acting_manager_id IS NOT NULL
         UNION ALL SELECT approver_id, 'shoe_void_approved' FROM ev WHERE type = 'ShoeVoided' AND approver_id IS NOT NULL
       )`;
}

/** The staff statistics' reads on one connection (or pool). */
export class StaffReads {
  private readonly t: { readonly events: string };

  /** @param q where to read; @param schema the read-model schema (checked) */
  constructor(
    private readonly q: Queryable,
    schema: string,
  ) {
    this.t = tablesIn(schema, AUDIT_TABLES);
  }

  /** The dealing sums per dealer, table or shift of the period, ordered by the key. */
  dealing(by: StaffSumsKey, f: StaffPeriod): Promise<StaffSumsRow[]> {
    const key = by === 'dealer' ? ['dealer_id'] : by === 'table' ? ['table_id'] : ['table_id', 'shoe_id', 'shift_version', 'dealer_id', 'started_at', 'ended_at'];
    return rows<StaffSumsRow>(
      this.q,
      `WITH ${shiftsAndRounds(this.t.events)},
       ${roundFacts(this.t.events)}
       SELECT ${key.join(', ')},
              sum(rounds)::int AS rounds, sum(resulted)::int AS rounds_resulted, sum(voids)::int AS voids, sum(corrections)::int AS corrections,
              sum(exposed)::int AS exposed_cards, sum(dropped)::int AS dropped_cards, sum(unneeded)::int AS unneeded_cards,
              sum(refusals)::int AS refusals, sum(refused_round)::int AS rounds_with_refusal,
              (percentile_disc(0.5) WITHIN GROUP (ORDER BY ms))::text AS median_ms, round(avg(ms))::text AS mean_ms
         FROM facts
        GROUP BY ${key.join(', ')}
        ORDER BY ${key.join(', ')}`,
      params(f),
    );
  }

  /** Per pit manager: the decisions they requested, approved, rejected or let expire, and the voids and corrections they requested (acting) and approved; ordered by manager. */
  pitManagers(f: StaffPeriod): Promise<PitManagerSumsRow[]> {
    return rows<PitManagerSumsRow>(
      this.q,
      `WITH ${managerRoles(this.t.events)}
       SELECT manager_id,
              count(*) FILTER (WHERE what = 'requested')::int AS decisions_requested,
              count(*) FILTER (WHERE what = 'approved')::int AS decisions_approved,
              count(*) FILTER (WHERE what = 'rejected')::int AS decisions_rejected,
              count(*) FILTER (WHERE what = 'expired')::int AS decisions_expired,
              count(*) FILTER (WHERE what = 'void_requested')::int AS voids_requested,
              count(*) FILTER (WHERE what = 'void_approved')::int AS voids_approved,
              count(*) FILTER (WHERE what = 'correction_requested')::int AS corrections_requested,
              count(*) FILTER (WHERE what = 'correction_approved')::int AS corrections_approved,
              count(*) FILTER (WHERE what = 'shoe_void_requested')::int AS shoe_voids_requested,
              count(*) FILTER (WHERE what = 'shoe_void_approved')::int AS shoe_voids_approved
         FROM roles WHERE manager_id IS NOT NULL
        GROUP BY manager_id ORDER BY manager_id`,
      params(f),
    );
  }
}
