import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../kernel/api-error';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { fairnessReport, type FairnessScope, type StatisticReport } from '@ledger/fairness';
import type { ReadModel } from '@ledger/read-model';
import { parseRatio, type ExactRatio } from '@ledger/significant-events';
import { TablesRegistry } from '../kernel/tables/tables.registry';
import { READ_MODEL } from '../kernel/tokens';
import type { FairnessQuery } from './fairness.dto';

/** A scope as the API writes it: its kind and its id fields (null when not of that kind). */
function scopeFields(s: FairnessScope) {
  return { kind: s.kind, shoeId: s.kind === 'shoe' ? s.shoeId : null, dealerId: s.kind === 'dealer' ? s.dealerId : null };
}

/** A statistic's report without the pooled cells, X² null when infinite (schema `FairnessStatisticReport`). */
function statisticFields(r: StatisticReport) {
  const { cells: _cells, ...test } = r.test;
  return { ...r, categories: r.categories.map((c) => ({ ...c, band: { ...c.band } })), test: { ...test, statistic: Number.isFinite(test.statistic) ? test.statistic : null } };
}

/**
 * The fairness statistics of a table's gaming day (docs/fairness.md): the resulted rounds through
 * the read model (`OutcomeReads.resultedOfTableDay`), the game and deck count from the table's
 * configuration, the confidence from `FAIRNESS_ALERT_CONFIDENCE`, the tests and the verdict from
 * `@ledger/fairness`.
 */
@Injectable()
export class FairnessService {
  private readonly confidence: ExactRatio;

  constructor(
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    private readonly tables: TablesRegistry,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.confidence = parseRatio(config.get('FAIRNESS_ALERT_CONFIDENCE', { infer: true }));
  }

  /**
   * The report (schema `FairnessResponse`): the table's gaming day, or one shoe or one dealer of it.
   * @throws ApiError 400 `VALIDATION.FAILED` for both `shoeId` and `dealerId` (one scope at a time); 404 `TABLE.UNKNOWN`
   */
  async report(q: FairnessQuery) {
    if (q.shoeId !== undefined && q.dealerId !== undefined) throw ApiError.of('VALIDATION.FAILED', { problems: 'give shoeId or dealerId, not both (one scope at a time)' });
    const table = this.tables.get(q.tableId);
    const rows = await this.readModel.outcomes.resultedOfTableDay(q.tableId, q.gamingDay, { shoeId: q.shoeId, dealerId: q.dealerId });
    const selection: FairnessScope = q.shoeId ? { kind: 'shoe', shoeId: q.shoeId } : q.dealerId ? { kind: 'dealer', dealerId: q.dealerId } : { kind: 'table' };
    const rounds = rows.map((r) => ({ shoeId: r.shoe_id, dealerId: r.dealer_id, playerCards: r.player_cards, bankerCards: r.banker_cards }));
    const report = fairnessReport({ variant: table.variant, decks: table.decks, confidence: this.confidence, selection, rounds });
    return {
      tableId: q.tableId,
      gamingDay: q.gamingDay,
      variant: report.variant,
      decks: report.decks,
      confidence: report.confidence,
      falseAlarmRatePerTableDay: report.falseAlarmRatePerTableDay,
      alpha: report.alpha,
      alert: report.verdict.alert,
      failures: report.verdict.failures.map(({ scope, chiSquared, ...f }) => ({ ...scopeFields(scope), ...f, chiSquared: Number.isFinite(chiSquared) ? chiSquared : null })),
      scopes: report.scopes.map((s) => ({ ...scopeFields(s.scope), rounds: s.rounds, statistics: s.statistics.map(statisticFields) })),
    };
  }
}
