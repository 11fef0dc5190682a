import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import { DEFAULT_EVENTS_TOPIC, type LedgerApiEnv } from '@ledger/config';
import { DATA_SOURCE } from '../kernel/tokens';
import { first } from '../kernel/sql';
import { reportHeader } from '../kernel/report-header';
import { reconciliationFigures } from '../kernel/as-of/reconciliation-sql';
import { AdjustmentsService } from '../kernel/closes/adjustments.service';
import { CLOSE_REPORT_VERSION, type CloseReportBody } from '../kernel/closes/close-report';
import type { CloseScope } from '../kernel/closes/close-records';
import { tableClockSkews } from './close-clock-skew';
import { closeFairness } from '@ledger/anchors';
import { parseRatio, type ExactRatio } from '@ledger/significant-events';

/**
 * Computes the frozen report of a gaming day for a table set at a global position
 * (docs/reports.md §2): the as-of reconciliation (docs/reports.md §3) of the day's rounds grouped
 * by table, dealer and currency, its totals per currency, and the adjustments the day carries — all
 * as known at that position, so the same position gives the same body whatever happened since.
 */
@Injectable()
export class CloseComputation {
  private readonly S: string;
  private readonly dayRule: { timeZone: string; cutoffHour: number };
  /** This ledger's events topic where it is not the database's only ledger, else null. */
  private readonly topic: string | null;
  /** `FAIRNESS_ALERT_CONFIDENCE`: the fairness verdict the close states (layout 3 on). */
  private readonly confidence: ExactRatio;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    private readonly adjustments: AdjustmentsService,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.S = config.get('PROJECTIONS_SCHEMA', { infer: true });
    this.dayRule = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
    const topic = config.get('LEDGER_EVENTS_TOPIC', { infer: true });
    this.topic = topic === DEFAULT_EVENTS_TOPIC ? null : topic;
    this.confidence = parseRatio(config.get('FAIRNESS_ALERT_CONFIDENCE', { infer: true }));
  }

  /**
   * @param close the day (`YYYY-MM-DD`), the table set (any order; sorted in the body), the last global
   *   position covered, the trigger and early-close approval signed with the figures, and the layout
   *   (the current one by default; from 2 on the body states the day's largest device clock skew per
   *   table, {@link tableClockSkews}; from 3 on the fairness verdict of the day per table, `closeFairness`)
   * @param q where to read the read model: the DataSource, or a transaction's snapshot (a close's, which
   *   the entries check reads too: docs/reports.md §2)
   */
  async body(close: CloseScope, q: Pick<DataSource, 'query'> = this.ds): Promise<CloseReportBody> {
    const { gamingDay: day, throughPosition: position } = close;
    const tables = [...close.tableIds].sort();
    const scope = { fromDay: day, toDay: day, tableIds: tables };
    const rows = await reconciliationFigures(q, this.S, { ...scope, groupBy: ['table', 'dealer', 'currency'] }, position);
    const totals = await reconciliationFigures(q, this.S, { ...scope, groupBy: ['currency'] }, position);
    const adjustments = await this.adjustments.at(position, { fromDay: day, toDay: day, tableIds: tables }, q);
    const last = await first<{ at: string }>(this.ds, `SELECT to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at FROM events WHERE global_position <= $1::bigint ORDER BY global_position DESC LIMIT 1`, [
      position.toString(),
    ]);
    const asOf = new Date(last?.at ?? '1970-01-01T00:00:00.000Z');
    const layout = close.reportVersion ?? CLOSE_REPORT_VERSION;
    const clockSkew = layout >= 2 ? await tableClockSkews(q, { day, tableIds: tables, position, dayRule: this.dayRule, topic: this.topic }) : null;
    const fairness = layout >= 3 ? await closeFairness(q, { gamingDay: day, dayRule: this.dayRule, tableIds: tables, throughPosition: position, topic: this.topic, confidence: this.confidence }) : null;
    const header = reportHeader(
      'Gaming-day close',
      'gaming-day-close',
      layout,
      { from: day, to: day },
      { gamingDay: day, tableIds: tables.join(','), throughPosition: position.toString() },
      rows.length === 0 && adjustments.length === 0,
      asOf,
    );
    const body = { header, gamingDay: day, tableIds: tables, throughPosition: position.toString(), trigger: close.trigger, early: close.early, gamingDayRule: { ...this.dayRule }, rows, totals, adjustments };
    return { ...body, ...(clockSkew === null ? {} : { clockSkew }), ...(fairness === null ? {} : { fairness }) };
  }
}
