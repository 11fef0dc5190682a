import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import type { ReadModel, StaffPeriod, StaffSumsRow } from '@ledger/read-model';
import { READ_MODEL } from '../kernel/tokens';
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

/**
 * The staff and table statistics (docs/reports.md §6), computed in SQL by the read model
 * (`readModel.staff`: the audit events and the event store's append-only `rejections`) for a period,
 * and flagged here (the outlier tests of `staff-flags.ts`). Shifts are derived from the events: a
 * shift is a dealer's continuous spell in a shoe, from the ShoeOpened or DealerChanged that put them
 * at the table to the next DealerChanged or the shoe's close/void.
 */
@Injectable()
export class StaffStatisticsService {
  private readonly tz: string;
  private readonly cutoff: number;

  constructor(
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.tz = config.get('GAMING_DAY_TZ', { infer: true });
    this.cutoff = config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true });
  }

  /** The period of `f` with the gaming-day rule, as the read model takes it. */
  private period(f: StaffFilters): StaffPeriod {
    return { from: f.from, to: f.to, fromDay: f.fromDay, toDay: f.toDay, tableId: f.tableId, variant: f.variant, timeZone: this.tz, cutoffHour: this.cutoff };
  }

  /** The rows of `f.groupBy` = dealer, table or shift. Ordered by key. */
  async staff(f: StaffFilters): Promise<StaffRow[]> {
    const rows = await this.readModel.staff.dealing(f.groupBy === 'dealer' ? 'dealer' : f.groupBy === 'table' ? 'table' : 'shift', this.period(f));
    const base = rows.map((r) => staffRow(r, f.groupBy));
    if (f.groupBy !== 'dealer') return base;
    const voids = outlierTests(base, (d) => ({ count: d.voids, rounds: d.rounds }), 'VOID_RATE', f.minRounds);
    const refusals = outlierTests(base, (d) => ({ count: d.roundsWithRefusal, rounds: d.rounds }), 'REFUSAL_RATE', f.minRounds);
    return base.map((d, i) => ({ ...d, tests: [voids[i], refusals[i]], flagged: voids[i].flagged || refusals[i].flagged }));
  }

  /** The rows of groupBy = pitManager: their decisions and the voids and corrections they made. */
  async pitManagers(f: StaffFilters): Promise<PitManagerRow[]> {
    const rows = await this.readModel.staff.pitManagers(this.period(f));
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

function staffRow(r: StaffSumsRow, groupBy: StaffGroupBy): StaffRow {
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
