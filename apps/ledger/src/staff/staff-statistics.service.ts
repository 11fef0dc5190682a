import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { DATA_SOURCE } from '../kernel/tokens';
import { decimalOf, outlierTests, RATE_PLACES, type OutlierTest } from './staff-flags';

/** How the staff statistics are grouped (docs/reports.md §6). */
export type StaffGroupBy = 'dealer' | 'pitManager' | 'table' | 'shift';
export const STAFF_GROUP_BY: readonly StaffGroupBy[] = ['dealer', 'pitManager', 'table', 'shift'];

/**
 * The period and filters of a staff statistics report (docs/reports.md §6). A period is given as
 * ledger times (`from` inclusive, `to` exclusive, on `recordedAt`) and/or gaming days (`fromDay`,
 * `toDay` inclusive, cut as the projector cuts them: `GAMING_DAY_TZ`, `GAMING_DAY_CUTOFF_HOUR`).
 * A round belongs to the period of its RoundOpened; other facts to their own time.
 */
export interface StaffFilters {
  readonly groupBy: StaffGroupBy;
  readonly from: string | null;
  readonly to: string | null;
  readonly fromDay: string | null;
  readonly toDay: string | null;
  readonly tableId: string | null;
  readonly variant: string | null;
  /** Fewest rounds on each side of a flag (docs/reports.md §6). */
  readonly minRounds: number;
}

/** The dealing figures of one dealer, table or shift (docs/reports.md §6). Counts are integers. */
export interface StaffRow {
  readonly dealerId: string | null;
  readonly tableId: string | null;
  readonly shoeId: string | null;
  /** Shift: the stream version of the ShoeOpened / DealerChanged that began it, and its times. */
  readonly shiftStartVersion: number | null;
  readonly shiftStartedAt: string | null;
  readonly shiftEndedAt: string | null;
  /** Rounds opened (dealt or not), of which resulted and voided (every cause). */
  readonly rounds: number;
  readonly roundsResulted: number;
  readonly voids: number;
  readonly corrections: number;
  readonly exposedCards: number;
  readonly droppedCards: number;
  readonly unneededCards: number;
  /** Tableau refusals (TABLEAU.VIOLATION on a dealt card) and the rounds that had one. */
  readonly refusals: number;
  readonly roundsWithRefusal: number;
  /** RoundOpened → first RoundResulted, in ms of `occurredAt` (table time): lower median and mean (rounded half up), null without a resulted round. */
  readonly roundTimeMs: { readonly median: number | null; readonly mean: number | null };
  /** voids / rounds, 4 decimals half up (exact decimal text), null without rounds. */
  readonly voidRate: string | null;
  /** roundsWithRefusal / rounds, likewise. */
  readonly refusalRate: string | null;
  /** groupBy=dealer only: the outlier tests against the other dealers (VOID_RATE, REFUSAL_RATE), else empty. */
  readonly tests: readonly OutlierTest[];
  /** groupBy=dealer: some test flagged the dealer. */
  readonly flagged: boolean;
}

/** The management figures of one pit manager (docs/reports.md §6). */
export interface PitManagerRow {
  readonly managerId: string;
  readonly decisionsRequested: number;
  readonly decisionsApproved: number;
  readonly decisionsRejected: number;
  /** Their requests that expired undecided. */
  readonly decisionsExpired: number;
  /** Round voids and result corrections they requested (acting manager) and approved. */
  readonly voidsRequested: number;
  readonly voidsApproved: number;
  readonly correctionsRequested: number;
  readonly correctionsApproved: number;
  readonly shoeVoidsRequested: number;
  readonly shoeVoidsApproved: number;
}

/** The deal-card route a tableau refusal was made on: `POST [/v1]/shoes/{shoeId}/rounds/{roundId}/cards`. */
const DEAL_ROUTE = '^POST (?:/v[0-9]+)?/shoes/([^/?]+)/rounds/([^/?]+)/cards(?:[?].*)?$';

/**
 * The staff and table statistics (docs/reports.md §6), computed in SQL from the read model's
 * `audit_events` and the event store's append-only `rejections`, for a period. Shifts are derived
 * from the events: a shift is a dealer's continuous spell in a shoe, from the ShoeOpened or
 * DealerChanged that put them at the table to the next DealerChanged or the shoe's close/void.
 */
@Injectable()
export class StaffStatisticsService {
  private readonly S: string;
  private readonly tz: string;
  private readonly cutoff: number;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.S = config.get('PROJECTIONS_SCHEMA', { infer: true });
    this.tz = config.get('GAMING_DAY_TZ', { infer: true });
    this.cutoff = config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true });
  }

  /** The rows of `f.groupBy` = dealer, table or shift. Ordered by key. */
  async staff(f: StaffFilters): Promise<StaffRow[]> {
    const key = f.groupBy === 'dealer' ? ['dealer_id'] : f.groupBy === 'table' ? ['table_id'] : ['table_id', 'shoe_id', 'shift_version', 'dealer_id', 'started_at', 'ended_at'];
    const S = this.S;
    // $1 from, $2 to, $3 fromDay, $4 toDay, $5 tableId, $6 variant, $7 tz, $8 cutoff hour
    const inPeriod = (col: string) =>
      `($1::timestamptz IS NULL OR ${col} >= $1) AND ($2::timestamptz IS NULL OR ${col} < $2)
       AND ($3::date IS NULL OR ((${col} AT TIME ZONE $7) - make_interval(hours => $8::int))::date >= $3::date)
       AND ($4::date IS NULL OR ((${col} AT TIME ZONE $7) - make_interval(hours => $8::int))::date <= $4::date)`;
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `WITH seg AS (
         SELECT o.shoe_id, o.table_id, o.stream_version AS start_version, o.recorded_at AS started_at, o.data ->> 'dealerId' AS dealer_id,
                LEAD(o.stream_version) OVER w AS next_version, LEAD(o.recorded_at) OVER w AS next_at
           FROM ${S}.audit_events o
          WHERE o.type IN ('ShoeOpened', 'DealerChanged') AND ($5::text IS NULL OR o.table_id = $5)
         WINDOW w AS (PARTITION BY o.shoe_id ORDER BY o.stream_version)
       ),
       shoes AS (
         SELECT s.shoe_id, s.data ->> 'variant' AS variant FROM ${S}.audit_events s
          WHERE s.type = 'ShoeOpened' AND ($5::text IS NULL OR s.table_id = $5) AND ($6::text IS NULL OR s.data ->> 'variant' = $6)
       ),
       shoe_end AS (
         SELECT e.shoe_id, min(e.recorded_at) AS ended_at FROM ${S}.audit_events e
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
           FROM ${S}.audit_events r
           JOIN shifts sh ON sh.shoe_id = r.shoe_id AND r.stream_version > sh.start_version AND r.stream_version < sh.end_version
          WHERE r.type = 'RoundOpened' AND ($5::text IS NULL OR r.table_id = $5) AND ${inPeriod('r.recorded_at')}
       ),
       round_events AS (
         SELECT e.round_id,
                min(e.occurred_at) FILTER (WHERE e.type = 'RoundResulted') AS resulted_occurred_at,
                count(*) FILTER (WHERE e.type = 'RoundVoided') AS voids,
                count(*) FILTER (WHERE e.type = 'ResultCorrected') AS corrections
           FROM ${S}.audit_events e JOIN rounds r ON r.round_id = e.round_id AND r.shoe_id = e.shoe_id
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
           FROM ${S}.audit_events c
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
       )
       SELECT ${key.join(', ')},
              sum(rounds)::int AS rounds, sum(resulted)::int AS rounds_resulted, sum(voids)::int AS voids, sum(corrections)::int AS corrections,
              sum(exposed)::int AS exposed_cards, sum(dropped)::int AS dropped_cards, sum(unneeded)::int AS unneeded_cards,
              sum(refusals)::int AS refusals, sum(refused_round)::int AS rounds_with_refusal,
              (percentile_disc(0.5) WITHIN GROUP (ORDER BY ms))::text AS median_ms, round(avg(ms))::text AS mean_ms
         FROM facts
        GROUP BY ${key.join(', ')}
        ORDER BY ${key.join(', ')}`,
      [f.from, f.to, f.fromDay, f.toDay, f.tableId, f.variant, this.tz, this.cutoff],
    );
    const base = rows.map((r) => staffRow(r, f.groupBy));
    if (f.groupBy !== 'dealer') return base;
    const voids = outlierTests(base, (d) => ({ count: d.voids, rounds: d.rounds }), 'VOID_RATE', f.minRounds);
    const refusals = outlierTests(base, (d) => ({ count: d.roundsWithRefusal, rounds: d.rounds }), 'REFUSAL_RATE', f.minRounds);
    return base.map((d, i) => ({ ...d, tests: [voids[i], refusals[i]], flagged: voids[i].flagged || refusals[i].flagged }));
  }

  /** The rows of groupBy = pitManager: their decisions and the voids and corrections they made. */
  async pitManagers(f: StaffFilters): Promise<PitManagerRow[]> {
    const S = this.S;
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `WITH shoes AS (
         SELECT s.shoe_id FROM ${S}.audit_events s
          WHERE s.type = 'ShoeOpened' AND ($5::text IS NULL OR s.table_id = $5) AND ($6::text IS NULL OR s.data ->> 'variant' = $6)
       ),
       ev AS (
         SELECT e.type, e.data, e.acting_manager_id, e.approver_id FROM ${S}.audit_events e JOIN shoes USING (shoe_id)
          WHERE e.type IN ('DecisionRequested', 'DecisionApproved', 'DecisionRejected', 'DecisionExpired', 'RoundVoided', 'ResultCorrected', 'ShoeVoided')
            AND ($5::text IS NULL OR e.table_id = $5)
            AND ($1::timestamptz IS NULL OR e.recorded_at >= $1) AND ($2::timestamptz IS NULL OR e.recorded_at < $2)
            AND ($3::date IS NULL OR ((e.recorded_at AT TIME ZONE $7) - make_interval(hours => $8::int))::date >= $3::date)
            AND ($4::date IS NULL OR ((e.recorded_at AT TIME ZONE $7) - make_interval(hours => $8::int))::date <= $4::date)
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
       )
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
      [f.from, f.to, f.fromDay, f.toDay, f.tableId, f.variant, this.tz, this.cutoff],
    );
    return rows.map((r) => ({
      managerId: String(r.manager_id),
      decisionsRequested: Number(r.decisions_requested),
      decisionsApproved: Number(r.decisions_approved),
      decisionsRejected: Number(r.decisions_rejected),
      decisionsExpired: Number(r.decisions_expired),
      voidsRequested: Number(r.voids_requested),
      voidsApproved: Number(r.voids_approved),
      correctionsRequested: Number(r.corrections_requested),
      correctionsApproved: Number(r.corrections_approved),
      shoeVoidsRequested: Number(r.shoe_voids_requested),
      shoeVoidsApproved: Number(r.shoe_voids_approved),
    }));
  }
}

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
const intOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function staffRow(r: Record<string, unknown>, groupBy: StaffGroupBy): StaffRow {
  const rounds = Number(r.rounds);
  const voids = Number(r.voids);
  const refusedRounds = Number(r.rounds_with_refusal);
  const rate = (x: number) => (rounds > 0 ? decimalOf(BigInt(x), BigInt(rounds), RATE_PLACES) : null);
  return {
    dealerId: groupBy === 'table' ? null : (r.dealer_id as string),
    tableId: groupBy === 'dealer' ? null : (r.table_id as string),
    shoeId: groupBy === 'shift' ? (r.shoe_id as string) : null,
    shiftStartVersion: groupBy === 'shift' ? Number(r.shift_version) : null,
    shiftStartedAt: groupBy === 'shift' ? iso(r.started_at) : null,
    shiftEndedAt: groupBy === 'shift' ? iso(r.ended_at) : null,
    rounds,
    roundsResulted: Number(r.rounds_resulted),
    voids,
    corrections: Number(r.corrections),
    exposedCards: Number(r.exposed_cards),
    droppedCards: Number(r.dropped_cards),
    unneededCards: Number(r.unneeded_cards),
    refusals: Number(r.refusals),
    roundsWithRefusal: refusedRounds,
    roundTimeMs: { median: intOrNull(r.median_ms), mean: intOrNull(r.mean_ms) },
    voidRate: rate(voids),
    refusalRate: rate(refusedRounds),
    tests: [],
    flagged: false,
  };
}
