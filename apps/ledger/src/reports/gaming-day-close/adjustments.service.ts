import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { gamingDay, type GamingDayConfig } from '@ledger/projections';
import { DATA_SOURCE } from '../../persistence/persistence.module';
import { reconciliationFigures } from '../as-of/reconciliation-sql';
import { figureDeltas, targetDay, type Adjustment } from './adjustments';
import { CloseRecords } from './close-records';

/** Which adjustments to compute: those carried by target days in `fromDay..toDay` (inclusive; null = open). */
export interface AdjustmentScope {
  readonly fromDay?: string | null;
  readonly toDay?: string | null;
  readonly tableIds?: readonly string[] | null;
  readonly currency?: string | null;
}

interface ChangedRound {
  round_id: string;
  shoe_id: string;
  table_id: string;
  dealer_id: string;
  gaming_day: string;
  through_position: string;
  close_id: string;
}

interface Step {
  kind: Adjustment['kind'];
  start: bigint;
  eventId: string;
  recordedAt: string;
  decisionId: string | null;
  reason: string | null;
  actingManagerId: string | null;
  approverId: string | null;
  compensates: string | null;
}

/**
 * The adjustments (docs/reports.md §2) as known at a global position P: every change after its
 * day's close to a round of a closed gaming day, split into steps at each outcome revision of the
 * round (a correction or void with the resettlements and refunds that follow it; settlements alone
 * when they come first), each step's money the change of the round's as-of figures over it
 * (docs/reports.md §3), carried by {@link targetDay}. Deterministic in P: it reads only rows ≤ P and
 * the closes (append-only) covering positions below the changes.
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

  /** The adjustments carried by the target days of `scope`, as known at `position`, in global order. */
  async at(position: bigint, scope: AdjustmentScope = {}): Promise<Adjustment[]> {
    // the genuine closes only (their GamingDayClosed events, checked): a row written beside them is no close
    const closes = (await this.closes.genuineBefore(position)).flatMap((c) =>
      c.tableIds.map((t) => ({ gaming_day: c.gamingDay, table_id: t, through_position: c.throughPosition.toString(), close_id: c.closeId })),
    );
    if (closes.length === 0) return [];
    const closedThrough = new Map(closes.map((c) => [`${c.gaming_day}|${c.table_id}`, BigInt(c.through_position)]));
    const lookup = (day: string, tableId: string) => closedThrough.get(`${day}|${tableId}`);
    const rounds: ChangedRound[] = await this.ds.query(
      `WITH closed AS (
         SELECT c.gaming_day::date AS gaming_day, c.table_id, c.through_position::bigint AS through_position, c.close_id AS id
           FROM jsonb_to_recordset($1::jsonb) AS c(gaming_day text, table_id text, through_position text, close_id text)
          WHERE ($3::date IS NULL OR c.gaming_day::date < $3::date)),
       changed AS (
         SELECT round_id, global_position FROM ${this.S}.hand_outcome_revisions
          WHERE global_position > (SELECT min(through_position) FROM closed) AND global_position <= $2::bigint
         UNION ALL
         SELECT round_id, global_position FROM ${this.S}.bet_settlement_revisions
          WHERE global_position > (SELECT min(through_position) FROM closed) AND global_position <= $2::bigint)
       SELECT DISTINCT h.round_id, h.shoe_id, h.table_id, h.dealer_id, h.gaming_day::text AS gaming_day, cl.through_position::text AS through_position, cl.id::text AS close_id
         FROM changed v JOIN ${this.S}.hand_outcomes h ON h.round_id = v.round_id
         JOIN closed cl ON cl.gaming_day = h.gaming_day AND cl.table_id = h.table_id AND v.global_position > cl.through_position
        WHERE ($4::text[] IS NULL OR h.table_id = ANY($4::text[]))
        ORDER BY h.round_id`,
      [JSON.stringify(closes), position.toString(), scope.toDay ?? null, scope.tableIds ? [...scope.tableIds] : null],
    );
    const out: Adjustment[] = [];
    for (const r of rounds) out.push(...(await this.ofRound(r, position, lookup)));
    return out
      .filter((a) => (!scope.fromDay || a.targetDay >= scope.fromDay) && (!scope.toDay || a.targetDay <= scope.toDay) && (!scope.currency || a.currency === scope.currency))
      .sort((a, b) => (BigInt(a.globalPosition) < BigInt(b.globalPosition) ? -1 : BigInt(a.globalPosition) > BigInt(b.globalPosition) ? 1 : a.currency < b.currency ? -1 : 1));
  }

  private async ofRound(r: ChangedRound, position: bigint, closed: (day: string, tableId: string) => bigint | undefined): Promise<Adjustment[]> {
    const steps = await this.steps(r, position);
    const out: Adjustment[] = [];
    for (let k = 0; k < steps.length; k++) {
      const s = steps[k];
      const end = k + 1 < steps.length ? steps[k + 1].start - 1n : position;
      const figures = (p: bigint) => reconciliationFigures(this.ds, this.S, { groupBy: ['currency'], roundId: r.round_id }, p);
      const deltas = figureDeltas(await figures(s.start - 1n), await figures(end));
      const day = targetDay(gamingDay(s.recordedAt, this.dayRule), r.table_id, s.start, closed);
      for (const [currency, d] of deltas) {
        out.push({
          roundId: r.round_id,
          shoeId: r.shoe_id,
          tableId: r.table_id,
          dealerId: r.dealer_id,
          currency,
          closedDay: r.gaming_day,
          closeId: r.close_id,
          targetDay: day,
          kind: s.kind,
          eventId: s.eventId,
          globalPosition: s.start.toString(),
          recordedAt: s.recordedAt,
          decisionId: s.decisionId,
          reason: s.reason,
          actingManagerId: s.actingManagerId,
          approverId: s.approverId,
          compensates: s.compensates,
          ...d,
        });
      }
    }
    return out;
  }

  /** The round's change steps after its close, up to `position`, in global order. */
  private async steps(r: ChangedRound, position: bigint): Promise<Step[]> {
    const revisions: Record<string, string | null>[] = await this.ds.query(
      `SELECT v.kind, v.event_id, v.global_position::text AS global_position, to_char(v.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at,
              v.reason, v.acting_manager_id, v.approver_id, v.compensates, a.data -> 'decision' ->> 'decisionId' AS decision_id
         FROM ${this.S}.hand_outcome_revisions v LEFT JOIN ${this.S}.audit_events a ON a.global_position = v.global_position
        WHERE v.round_id = $1 AND v.global_position > $2::bigint AND v.global_position <= $3::bigint ORDER BY v.global_position`,
      [r.round_id, r.through_position, position.toString()],
    );
    const steps: Step[] = revisions.map((v) => ({
      kind: v.kind as Step['kind'],
      start: BigInt(v.global_position!),
      eventId: v.event_id!,
      recordedAt: v.recorded_at!,
      decisionId: v.decision_id ?? null,
      reason: v.reason ?? null,
      actingManagerId: v.acting_manager_id ?? null,
      approverId: v.approver_id ?? null,
      compensates: v.compensates ?? null,
    }));
    const [first] = await this.ds.query(
      `SELECT v.event_id, v.global_position::text AS global_position, to_char(a.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at
         FROM ${this.S}.bet_settlement_revisions v JOIN ${this.S}.audit_events a ON a.global_position = v.global_position
        WHERE v.round_id = $1 AND v.global_position > $2::bigint AND v.global_position <= $3::bigint ORDER BY v.global_position LIMIT 1`,
      [r.round_id, r.through_position, position.toString()],
    );
    if (first && (steps.length === 0 || BigInt(first.global_position) < steps[0].start)) {
      steps.unshift({
        kind: 'SETTLEMENT',
        start: BigInt(first.global_position),
        eventId: first.event_id,
        recordedAt: first.recorded_at,
        decisionId: null,
        reason: null,
        actingManagerId: null,
        approverId: null,
        compensates: null,
      });
    }
    return steps;
  }
}
