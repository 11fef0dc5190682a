import type { ErrorCode } from '@ledger/errors';
import type { LedgerEventType } from '@ledger/events';
import type { RegulationRef } from './regulations';
import type { AcknowledgementFor, Severity } from './severity';

/** What area of the product a kind of significant event is about (docs/significant-events.md). */
export type SignificantEventCategory =
  /** rounds, results and shoes the ledger changed after the fact */
  | 'game'
  /** the cards: exposed, dropped, unneeded, wrong, unaccounted */
  | 'cards'
  /** money: large wins */
  | 'money'
  /** the staff at the table */
  | 'staff'
  /** the table devices: their clocks */
  | 'device'
  /** the books: gaming-day closes */
  | 'reporting'
  /** tamper evidence: hash chains, anchors, the read model against the events */
  | 'integrity'
  /** the read side: records refused, partitions halted */
  | 'read-side'
  /** what the API was started with */
  | 'configuration'
  /** the HTTP edge: request budgets */
  | 'edge'
  /** the game's statistics against its theory */
  | 'fairness';

/** The monitors that watch a measure over time and raise a kind when it crosses its threshold. */
export type SignificantEventMonitor =
  /** each device write's `occurredAt` against the ledger's `recordedAt` */
  | 'clock-skew'
  /** the API's 429 refusals (`RATE.*`) per minute */
  | 'rate-limits'
  /** the observed outcomes against the PAR engine's probabilities (libs/rules, `par-sheet.ts`) */
  | 'fairness';

/**
 * Who raises a kind: the component, and what of it the raiser sees.
 * - `ledger-event`: a ledger event of that type is appended (`eventType`, a type of `@ledger/events`);
 * - `refusal`: the API refuses a write with that error code (`errorCode`, a code of `@ledger/errors`),
 *   only for the `details.reason`s listed in `reasons` when it has them (the refusal is in the
 *   `rejections` table, docs/guarantees.md §11);
 * - `verifier`: `npm run -s verify` or `GET /audit/anchors/verify` reports a divergence (libs/anchors);
 * - `projector`: the projector (libs/projections) quarantines a record or halts a partition;
 * - `monitor`: a monitor of a measure over time (`monitor`).
 */
export type SignificantEventSource =
  | { readonly kind: 'ledger-event'; readonly eventType: LedgerEventType }
  | { readonly kind: 'refusal'; readonly errorCode: ErrorCode; readonly reasons?: readonly string[] }
  | { readonly kind: 'verifier' }
  | { readonly kind: 'projector' }
  | { readonly kind: 'monitor'; readonly monitor: SignificantEventMonitor };

/**
 * The configuration variables the thresholds are read from (`LedgerApiEnv` of `@ledger/config`,
 * docs/configuration.md). A unit spec checks each is a variable of the configuration schemas and
 * that its default there is the default the catalogue states.
 */
export type SignificantEventSetting = 'SIGNIFICANT_WIN_MULTIPLE' | 'SIGNIFICANT_WIN_AMOUNT_MINOR' | 'OCCURRED_AT_MAX_SKEW_MS' | 'RATE_LIMIT_STORM_PER_MINUTE' | 'FAIRNESS_ALERT_CONFIDENCE';

/** A rational number `numerator/denominator`, both positive integers as decimal strings (never a float). */
export interface Ratio {
  readonly numerator: string;
  readonly denominator: string;
}

/**
 * One threshold of a kind: the variable it is read from and that variable's default, in its unit.
 * - `minor-units`: an amount, an integer number of minor units of the bet's currency, as a decimal string;
 * - `ratio`: a {@link Ratio} (a multiple of the stake, a confidence level);
 * - `ms`: a duration in milliseconds, a safe integer;
 * - `per-minute`: a count per minute, a safe integer.
 * `comparison` says when the measure crosses it: `at-least` (≥) or `above` (>).
 */
export type ThresholdSetting = { readonly setting: SignificantEventSetting; readonly comparison: 'at-least' | 'above'; readonly measure: string } & (
  { readonly unit: 'minor-units'; readonly default: string } | { readonly unit: 'ratio'; readonly default: Ratio } | { readonly unit: 'ms'; readonly default: number } | { readonly unit: 'per-minute'; readonly default: number }
);

/**
 * One kind of the significant-event catalogue: its title, severity, category, who raises it and
 * when (`trigger`, a sentence), its thresholds (null: every occurrence is significant; several: any
 * one crossed raises it), the acknowledgement its severity requires (always
 * `AcknowledgementFor<severity>`: the compiler checks it) and the regulatory texts that ask for it.
 */
export type SignificantEventSpec = {
  [S in Severity]: {
    readonly title: string;
    readonly severity: S;
    readonly category: SignificantEventCategory;
    readonly raisedBy: readonly SignificantEventSource[];
    readonly trigger: string;
    readonly threshold: null | readonly ThresholdSetting[];
    readonly acknowledgement: AcknowledgementFor<S>;
    readonly regulation: readonly RegulationRef[];
  };
}[Severity];
