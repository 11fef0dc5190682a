import type { AttestedSignificant } from '@ledger/events';
import { parseRatio } from './codes';
import type { DetectionThresholds } from './detect';

/**
 * The significant-event settings as the configuration documents their defaults (docs/configuration.md):
 * what `npm run -s verify` detects a raise again with when no `ConfigurationAttested` with
 * `significant` covers its cause (an API run with `CONFIGURATION_ATTESTATION=false`, or a ledger
 * attested before the settings were).
 */
export const DEFAULT_SIGNIFICANT_SETTINGS: AttestedSignificant = {
  monitor: true,
  winMultiple: '100/1',
  winAmountMinor: '1000000',
  clockSkewBoundMs: 5000,
  fairnessConfidence: '95/100',
  floodWindowSeconds: 60,
};

/**
 * The bounds of `FAIRNESS_ALERT_CONFIDENCE`, inclusive, as `[numerator, denominator]`: from 90/100
 * (an honest table alerts on at most 1 gaming day in 10) to 9999/10000 (at most 1 in 10,000). Below,
 * the alerts are mostly false alarms; above, a test's level is so small that a rigged table passes.
 */
export const FAIRNESS_CONFIDENCE_BOUNDS = { min: [90n, 100n], max: [9999n, 10000n] } as const;

/** Whether a confidence `n/d` is within {@link FAIRNESS_CONFIDENCE_BOUNDS} (exact: cross-multiplied). */
export function fairnessConfidenceInBounds(text: string): boolean {
  const m = /^([1-9]\d{0,17})\/([1-9]\d{0,17})$/.exec(text);
  if (!m) return false;
  const [n, d] = [BigInt(m[1]), BigInt(m[2])];
  const { min, max } = FAIRNESS_CONFIDENCE_BOUNDS;
  return n * min[1] >= min[0] * d && n * max[1] <= max[0] * d;
}

/** What the API is configured with, as the configuration variables name it. */
export interface SignificantSettingsEnv {
  readonly SIGNIFICANT_MONITOR: boolean;
  readonly SIGNIFICANT_WIN_MULTIPLE: string;
  readonly SIGNIFICANT_WIN_AMOUNT_MINOR: string;
  readonly OCCURRED_AT_MAX_SKEW_MS: number;
  readonly FAIRNESS_ALERT_CONFIDENCE: string;
  readonly SIGNIFICANT_FLOOD_WINDOW_SECONDS: number;
}

/** A ratio `N` or `N/D` as `N/D` (`100` → `100/1`; not reduced). @throws Error on a malformed ratio */
function ratioText(text: string): string {
  const r = parseRatio(text);
  return `${r.numerator}/${r.denominator}`;
}

/** The settings an API attests (`ConfigurationAttested.significant`) from its configuration. @throws Error on a malformed ratio */
export function significantSettingsOf(env: SignificantSettingsEnv): AttestedSignificant {
  return {
    monitor: env.SIGNIFICANT_MONITOR,
    winMultiple: ratioText(env.SIGNIFICANT_WIN_MULTIPLE),
    winAmountMinor: env.SIGNIFICANT_WIN_AMOUNT_MINOR,
    clockSkewBoundMs: env.OCCURRED_AT_MAX_SKEW_MS,
    fairnessConfidence: ratioText(env.FAIRNESS_ALERT_CONFIDENCE),
    floodWindowSeconds: env.SIGNIFICANT_FLOOD_WINDOW_SECONDS,
  };
}

/**
 * What is wrong with attested settings against the configuration's own validation (a forged or
 * hand-edited attestation), or null: the amount a positive integer of at most 18 digits, the
 * multiple a positive ratio, the skew bound 0…3,600,000 ms, the flood window 1…3600 s, the
 * confidence within {@link FAIRNESS_CONFIDENCE_BOUNDS}.
 */
export function significantSettingsProblem(s: AttestedSignificant): string | null {
  if (typeof s.monitor !== 'boolean') return 'monitor is not a boolean';
  if (!/^[1-9]\d{0,17}$/.test(String(s.winAmountMinor))) return `winAmountMinor ${String(s.winAmountMinor)} is not a positive integer of minor units`;
  try {
    parseRatio(String(s.winMultiple));
  } catch {
    return `winMultiple ${String(s.winMultiple)} is not a ratio n/d`;
  }
  if (!Number.isInteger(s.clockSkewBoundMs) || s.clockSkewBoundMs < 0 || s.clockSkewBoundMs > 3_600_000) return `clockSkewBoundMs ${String(s.clockSkewBoundMs)} is outside 0…3600000`;
  if (!Number.isInteger(s.floodWindowSeconds) || s.floodWindowSeconds < 1 || s.floodWindowSeconds > 3600) return `floodWindowSeconds ${String(s.floodWindowSeconds)} is outside 1…3600`;
  if (!fairnessConfidenceInBounds(String(s.fairnessConfidence))) return `fairnessConfidence ${String(s.fairnessConfidence)} is outside 90/100…9999/10000`;
  return null;
}

/** The detector's thresholds of attested settings. @throws Error on a malformed ratio or amount (see {@link significantSettingsProblem}) */
export function thresholdsOf(s: AttestedSignificant): DetectionThresholds {
  return { winMultiple: parseRatio(s.winMultiple), winAmountMinor: BigInt(s.winAmountMinor), clockSkewBoundMs: s.clockSkewBoundMs };
}

/** The fields of the settings, in the order their changes are named. */
const FIELDS = ['monitor', 'winMultiple', 'winAmountMinor', 'clockSkewBoundMs', 'fairnessConfidence', 'floodWindowSeconds'] as const;

/**
 * What changed from the `previous` settings to `current` (`winAmountMinor 1000000 → 1`, `monitor true → false`),
 * in a stable order. A previous attestation without settings counts as the defaults (what verify
 * assumed then); a current one without them changes nothing. Pure.
 */
export function significantSettingsChanges(previous: AttestedSignificant | undefined, current: AttestedSignificant | undefined): string[] {
  if (!current) return [];
  const p = previous ?? DEFAULT_SIGNIFICANT_SETTINGS;
  return FIELDS.filter((f) => String(p[f]) !== String(current[f])).map((f) => `${f} ${String(p[f])} → ${String(current[f])}`);
}
