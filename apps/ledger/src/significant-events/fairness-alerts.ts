import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import { lookFromEvents, outOfBoundsDrafts, type LookSettings } from '@ledger/anchors';
import { DEFAULT_EVENTS_TOPIC, type LedgerApiEnv } from '@ledger/config';
import type { LedgerEvent } from '@ledger/events';
import { parseRatio, type SignificantEventDraft } from '@ledger/significant-events';
import { DATA_SOURCE } from '../kernel/tokens';

/**
 * The fairness look at a shoe's close (docs/fairness.md §6): the `STATISTICS.OUT_OF_BOUNDS` drafts of
 * a stored `ShoeClosed`, from the stored events of its table's gaming day up to it (never the read
 * model), with `FAIRNESS_ALERT_CONFIDENCE`, the gaming-day rule (`GAMING_DAY_TZ`,
 * `GAMING_DAY_CUTOFF_HOUR`) and this ledger's topic where the database holds several (the test suites).
 */
@Injectable()
export class FairnessAlerts {
  private readonly settings: LookSettings;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(ConfigService) config: ConfigService<LedgerApiEnv, true>,
  ) {
    const topic = config.get('LEDGER_EVENTS_TOPIC', { infer: true });
    this.settings = {
      dayRule: { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) },
      confidence: parseRatio(config.get('FAIRNESS_ALERT_CONFIDENCE', { infer: true })),
      topic: topic === DEFAULT_EVENTS_TOPIC ? null : topic,
    };
  }

  /** The drafts the close `cause` (a stored `ShoeClosed`) raises, and the shoe's dealer at its close. */
  async at(cause: LedgerEvent): Promise<{ drafts: SignificantEventDraft[]; dealerId: string | null }> {
    const { day, look } = await lookFromEvents(this.ds, cause, this.settings);
    if (!look) return { drafts: [], dealerId: null };
    return { drafts: outOfBoundsDrafts(look, { day, dayRule: this.settings.dayRule, confidence: this.settings.confidence }), dealerId: look.dealerId };
  }
}
