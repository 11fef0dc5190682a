import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { gamingDay, type GamingDayConfig } from '@ledger/projections';
import type { AdjustmentStepRow, Queryable, ReadModel, RevisionDecisionRow } from '@ledger/read-model';
import { READ_MODEL } from '../tokens';
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

/** The event types that make an outcome revision, and so start a step, with the step's kind. */
const REVISION_KINDS: ReadonlyMap<string, Adjustment['kind']> = new Map([
  ['RoundResulted', 'RESULTED'],
  ['ResultCorrected', 'CORRECTED'],
  ['RoundVoided', 'VOIDED'],
]);

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
 * the decisions of the revisions: `readModel.reconciliation.adjustmentSteps`, `.roundCurrencies`,
 * `readModel.outcomes.revisionDecisions`) — never one per round or per step. Deterministic in P: it reads
 * only rows ≤ P and the closes (append-only) covering positions below the changes.
 */
@Injectable()
export class AdjustmentsService {
  private readonly dayRule: GamingDayConfig;

  constructor(
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    private readonly closes: CloseRecords,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.dayRule = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
  }

  /**
   * The adjustments carried by the target days of `scope`, as known at `position`, in global order
   * (then by currency). Amounts are integer minor units as decimal strings, `dropped` a reduced fraction.
   * @param q where to read the read model: a transaction's snapshot (a close's); omitted, the API's pool
   */
  async at(position: bigint, scope: AdjustmentScope = {}, q?: Queryable): Promise<Adjustment[]> {
    const reads = q ? this.readModel.on(q) : this.readModel;
    // the genuine closes only (their GamingDayClosed events, checked): a row written beside them is no close
    const closes = (await this.closes.genuineBefore(position)).flatMap((c) => c.tableIds.map((t) => ({ gaming_day: c.gamingDay, table_id: t, through_position: c.throughPosition.toString(), close_id: c.closeId })));
    if (closes.length === 0) return [];
    const closedThrough = new Map(closes.map((c) => [`${c.gaming_day}|${c.table_id}`, BigInt(c.through_position)]));
    const lookup = (day: string, tableId: string) => closedThrough.get(`${day}|${tableId}`);
    const steps = await reads.reconciliation.adjustmentSteps(closes, position, scope.toDay ?? null, scope.tableIds ?? null);
    if (steps.length === 0) return [];
    const roundIds = [...new Set(steps.map((s) => s.round_id))];
    // every currency a round has entries in up to P, with its first position (a step reports each currency seen by its end, as zero when unchanged)
    const currencies = await reads.reconciliation.roundCurrencies(roundIds, position);
    const revisionStarts = [...new Set(steps.filter((s) => REVISION_KINDS.has(s.start_type)).map((s) => s.start_position))];
    const revisions = revisionStarts.length ? await reads.outcomes.revisionDecisions(revisionStarts) : [];
    return this.assemble(steps, currencies, new Map(revisions.map((r) => [r.global_position, r])), position, lookup)
      .filter((a) => (!scope.fromDay || a.targetDay >= scope.fromDay) && (!scope.toDay || a.targetDay <= scope.toDay) && (!scope.currency || a.currency === scope.currency))
      .sort((a, b) => (BigInt(a.globalPosition) < BigInt(b.globalPosition) ? -1 : BigInt(a.globalPosition) > BigInt(b.globalPosition) ? 1 : a.currency < b.currency ? -1 : 1));
  }

  /** The adjustments of the step rows (ordered by round, start, currency): one per step and currency seen by the step's end. */
  private assemble(
    steps: readonly AdjustmentStepRow[],
    currencies: readonly { round_id: string; currency: string; first: string }[],
    revisions: ReadonlyMap<string, RevisionDecisionRow>,
    position: bigint,
    closed: (day: string, tableId: string) => bigint | undefined,
  ): Adjustment[] {
    const seen = new Map<string, { currency: string; first: bigint }[]>();
    for (const c of currencies) seen.set(c.round_id, [...(seen.get(c.round_id) ?? []), { currency: c.currency, first: BigInt(c.first) }]);
    // group the rows by (round, start), in order
    const groups: AdjustmentStepRow[][] = [];
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
function figuresOf(r: AdjustmentStepRow | undefined): ReturnType<typeof zeroFigures> {
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
