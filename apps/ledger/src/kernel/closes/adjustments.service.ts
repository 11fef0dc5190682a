import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { gamingDay, type GamingDayConfig } from '@ledger/projections';
import { DATA_SOURCE } from '../tokens';
import { droppedTotal } from '../as-of/dropped-total';
import { targetDay, zeroFigures, type Adjustment } from './adjustments';
import { CloseRecords } from './close-records';

/** Which adjustments to compute: those carried by target days in `fromDay..toDay` (inclusive; null = open). */
export interface AdjustmentScope {
  readonly fromDay?: string | null;
  readonly toDay?: string | null;
  readonly tableIds?: readonly string[] | null;
  readonly currency?: string | null;
}

/** One step of a round (from its start to the next step's) and currency: the entries' sums (query 1). */
interface StepRow {
  round_id: string;
  shoe_id: string;
  table_id: string;
  dealer_id: string;
  gaming_day: string;
  close_id: string;
  start_position: string;
  start_type: string;
  event_id: string;
  recorded_at: string;
  currency: string;
  turnover: string;
  payouts: string;
  voided_stakes: string;
  correction_payout_delta: string;
  bets_settled: string;
  bets_refunded: string;
  bets_resettled: string;
  rounds_resulted: string;
  rounds_voided: string;
  corrections: string;
  dropped_parts: string[] | null;
}

/** An outcome revision's decision (query 3). */
interface RevisionRow {
  global_position: string;
  reason: string | null;
  acting_manager_id: string | null;
  approver_id: string | null;
  compensates: string | null;
  decision_id: string | null;
}

/** The event types that make an outcome revision, and so start a step, with the step's kind. */
const REVISION_KINDS: ReadonlyMap<string, Adjustment['kind']> = new Map([
  ['RoundResulted', 'RESULTED'],
  ['ResultCorrected', 'CORRECTED'],
  ['RoundVoided', 'VOIDED'],
]);

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * The adjustments (docs/reports.md §2) as known at a global position P: the position-stamped entries
 * (`ledger_entries`, the one reconciliation rule) of the closed (gaming day, table) pairs recorded
 * after their close, i.e. with `global_position` in (close's through_position, P]. A round's entries
 * are split into steps at each outcome revision (a result, correction or void with the
 * resettlements and refunds that follow it; settlements alone when they come first); each step's
 * money is the sum of its entries per currency, carried by {@link targetDay}.
 *
 * Cost: a constant number of statements whatever the number of adjustments (the closes; one index
 * range of entries per closed (day, table) aggregated per step; the currencies of the changed rounds;
 * the decisions of the revisions) — never one per round or per step. Deterministic in P: it reads
 * only rows ≤ P and the closes (append-only) covering positions below the changes.
 */
@Injectable()
export class AdjustmentsService {
  private readonly S: string;
  private readonly dayRule: GamingDayConfig;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    private readonly closes: CloseRecords,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.S = config.get('PROJECTIONS_SCHEMA', { infer: true });
    this.dayRule = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
  }

  /**
   * The adjustments carried by the target days of `scope`, as known at `position`, in global order
   * (then by currency). Amounts are integer minor units as decimal strings, `dropped` a reduced fraction.
   * @param q where to read the read model: the DataSource, or a transaction's snapshot (a close's)
   */
  async at(position: bigint, scope: AdjustmentScope = {}, q: Pick<DataSource, 'query'> = this.ds): Promise<Adjustment[]> {
    const P = position.toString();
    // the genuine closes only (their GamingDayClosed events, checked): a row written beside them is no close
    const closes = (await this.closes.genuineBefore(position)).flatMap((c) =>
      c.tableIds.map((t) => ({ gaming_day: c.gamingDay, table_id: t, through_position: c.throughPosition.toString(), close_id: c.closeId })),
    );
    if (closes.length === 0) return [];
    const closedThrough = new Map(closes.map((c) => [`${c.gaming_day}|${c.table_id}`, BigInt(c.through_position)]));
    const lookup = (day: string, tableId: string) => closedThrough.get(`${day}|${tableId}`);
    const steps: StepRow[] = await q.query(
      `WITH closed AS (
         SELECT c.gaming_day::date AS gaming_day, c.table_id, c.through_position::bigint AS through_position, c.close_id AS id
           FROM jsonb_to_recordset($1::jsonb) AS c(gaming_day text, table_id text, through_position text, close_id text)
          WHERE ($3::date IS NULL OR c.gaming_day::date < $3::date) AND ($4::text[] IS NULL OR c.table_id = ANY($4::text[]))),
       changed AS (
         SELECT e.*, cl.id AS close_id,
                coalesce(max(CASE WHEN e.event_type IN ('RoundResulted','ResultCorrected','RoundVoided') THEN e.global_position END)
                           OVER (PARTITION BY e.round_id ORDER BY e.global_position, e.entry_no ROWS UNBOUNDED PRECEDING),
                         min(e.global_position) OVER (PARTITION BY e.round_id)) AS start
           FROM closed cl JOIN ${this.S}.ledger_entries e
             ON e.gaming_day = cl.gaming_day AND e.table_id = cl.table_id AND e.global_position > cl.through_position AND e.global_position <= $2::bigint),
       stepped AS (
         SELECT c.*, first_value(event_id) OVER w AS start_event_id, first_value(event_type) OVER w AS start_type,
                first_value(recorded_at) OVER w AS start_recorded_at
           FROM changed c WINDOW w AS (PARTITION BY round_id, start ORDER BY global_position, entry_no))
       SELECT round_id, shoe_id, table_id, dealer_id, gaming_day::text AS gaming_day, close_id::text AS close_id, start::text AS start_position, start_type,
              start_event_id AS event_id, to_char(start_recorded_at AT TIME ZONE 'UTC', ${ISO}) AS recorded_at, currency,
              sum(turnover)::text AS turnover, sum(payouts)::text AS payouts, sum(voided_stakes)::text AS voided_stakes,
              sum(correction_payout_delta)::text AS correction_payout_delta, sum(bets_settled)::text AS bets_settled,
              sum(bets_refunded)::text AS bets_refunded, sum(bets_resettled)::text AS bets_resettled, sum(rounds_resulted)::text AS rounds_resulted,
              sum(rounds_voided)::text AS rounds_voided, sum(corrections)::text AS corrections,
              array_agg(dropped_num::text || '/' || dropped_den::text) FILTER (WHERE dropped_num <> 0) AS dropped_parts
         FROM stepped
        GROUP BY round_id, shoe_id, table_id, dealer_id, gaming_day, close_id, start, start_type, start_event_id, start_recorded_at, currency
        ORDER BY round_id, stepped.start, currency`,
      [JSON.stringify(closes), P, scope.toDay ?? null, scope.tableIds ? [...scope.tableIds] : null],
    );
    if (steps.length === 0) return [];
    const roundIds = [...new Set(steps.map((s) => s.round_id))];
    // every currency a round has entries in up to P, with its first position (a step reports each currency seen by its end, as zero when unchanged)
    const currencies: { round_id: string; currency: string; first: string }[] = await q.query(
      `SELECT round_id, currency, min(global_position)::text AS first FROM ${this.S}.ledger_entries
        WHERE round_id = ANY($1::text[]) AND global_position <= $2::bigint GROUP BY round_id, currency`,
      [roundIds, P],
    );
    const revisionStarts = [...new Set(steps.filter((s) => REVISION_KINDS.has(s.start_type)).map((s) => s.start_position))];
    const revisions: RevisionRow[] = revisionStarts.length
      ? await q.query(
          `SELECT v.global_position::text AS global_position, v.reason, v.acting_manager_id, v.approver_id, v.compensates,
                  a.data -> 'decision' ->> 'decisionId' AS decision_id
             FROM ${this.S}.hand_outcome_revisions v LEFT JOIN ${this.S}.audit_events a ON a.global_position = v.global_position
            WHERE v.global_position = ANY($1::bigint[])`,
          [revisionStarts],
        )
      : [];
    return this.assemble(steps, currencies, new Map(revisions.map((r) => [r.global_position, r])), position, lookup)
      .filter((a) => (!scope.fromDay || a.targetDay >= scope.fromDay) && (!scope.toDay || a.targetDay <= scope.toDay) && (!scope.currency || a.currency === scope.currency))
      .sort((a, b) => (BigInt(a.globalPosition) < BigInt(b.globalPosition) ? -1 : BigInt(a.globalPosition) > BigInt(b.globalPosition) ? 1 : a.currency < b.currency ? -1 : 1));
  }

  /** The adjustments of the step rows (ordered by round, start, currency): one per step and currency seen by the step's end. */
  private assemble(
    steps: readonly StepRow[],
    currencies: readonly { round_id: string; currency: string; first: string }[],
    revisions: ReadonlyMap<string, RevisionRow>,
    position: bigint,
    closed: (day: string, tableId: string) => bigint | undefined,
  ): Adjustment[] {
    const seen = new Map<string, { currency: string; first: bigint }[]>();
    for (const c of currencies) seen.set(c.round_id, [...(seen.get(c.round_id) ?? []), { currency: c.currency, first: BigInt(c.first) }]);
    // group the rows by (round, start), in order
    const groups: StepRow[][] = [];
    for (const s of steps) {
      const last = groups[groups.length - 1];
      if (last && last[0].round_id === s.round_id && last[0].start_position === s.start_position) last.push(s);
      else groups.push([s]);
    }
    const out: Adjustment[] = [];
    for (let k = 0; k < groups.length; k++) {
      const g = groups[k];
      const s = g[0];
      const start = BigInt(s.start_position);
      const nextOfRound = groups[k + 1]?.[0].round_id === s.round_id ? groups[k + 1][0] : undefined;
      const end = nextOfRound ? BigInt(nextOfRound.start_position) - 1n : position;
      const kind = REVISION_KINDS.get(s.start_type) ?? 'SETTLEMENT';
      const v = kind === 'SETTLEMENT' ? undefined : revisions.get(s.start_position);
      const day = targetDay(gamingDay(s.recorded_at, this.dayRule), s.table_id, start, closed);
      const inStep = new Map(g.map((r) => [r.currency, r]));
      const stepCurrencies = new Set([...g.map((r) => r.currency), ...(seen.get(s.round_id) ?? []).filter((c) => c.first <= end).map((c) => c.currency)]);
      for (const currency of [...stepCurrencies].sort()) {
        out.push({
          roundId: s.round_id,
          shoeId: s.shoe_id,
          tableId: s.table_id,
          dealerId: s.dealer_id,
          currency,
          closedDay: s.gaming_day,
          closeId: s.close_id,
          targetDay: day,
          kind,
          eventId: s.event_id,
          globalPosition: s.start_position,
          recordedAt: s.recorded_at,
          decisionId: v?.decision_id ?? null,
          reason: v?.reason ?? null,
          actingManagerId: v?.acting_manager_id ?? null,
          approverId: v?.approver_id ?? null,
          compensates: v?.compensates ?? null,
          ...figuresOf(inStep.get(currency)),
        });
      }
    }
    return out;
  }
}

/** A step row's sums as an adjustment's figures (zero without a row); ggr = turnover − payouts. */
function figuresOf(r: StepRow | undefined): ReturnType<typeof zeroFigures> {
  const z = zeroFigures();
  if (!r) return z;
  return {
    ...z,
    turnover: r.turnover,
    payouts: r.payouts,
    ggr: (BigInt(r.turnover) - BigInt(r.payouts)).toString(),
    voidedStakes: r.voided_stakes,
    correctionPayoutDelta: r.correction_payout_delta,
    betsSettled: r.bets_settled,
    betsRefunded: r.bets_refunded,
    betsResettled: r.bets_resettled,
    roundsResulted: r.rounds_resulted,
    roundsVoided: r.rounds_voided,
    corrections: r.corrections,
    dropped: droppedTotal(r.dropped_parts),
  };
}
