import type { LedgerEventType } from '@ledger/events';
import { SIGNIFICANT_EVENTS } from './catalogue';
import type { Ratio, SignificantEventSpec, ThresholdSetting } from './spec';
import type { Severity, SeverityAtLeast } from './severity';

/** Every code of the significant-event catalogue: the keys of {@link SIGNIFICANT_EVENTS}. */
export type SignificantEventCode = keyof typeof SIGNIFICANT_EVENTS;

/** The severity of `C`, as a literal type (e.g. `SeverityOf<'CHAIN.DIVERGED'>` = `'critical'`). */
export type SeverityOf<C extends SignificantEventCode> = (typeof SIGNIFICANT_EVENTS)[C]['severity'];

/** The codes whose severity is `S` or graver, e.g. `SignificantEventCodeAtLeast<'high'>`: the kinds a second person acknowledges. */
export type SignificantEventCodeAtLeast<S extends Severity> = {
  [C in SignificantEventCode]: SeverityOf<C> extends SeverityAtLeast<S> ? C : never;
}[SignificantEventCode];

/** Every code of the catalogue, in catalogue order. */
export const SIGNIFICANT_EVENT_CODES: readonly SignificantEventCode[] = Object.keys(SIGNIFICANT_EVENTS) as SignificantEventCode[];

/** Whether `code` is a code of the significant-event catalogue (`toString` and other inherited names are not). */
export function isSignificantEventCode(code: unknown): code is SignificantEventCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(SIGNIFICANT_EVENTS, code);
}

/**
 * The catalogue's entry for `code`: title, severity, category, raisedBy, trigger, threshold,
 * acknowledgement, regulation.
 * @throws Error when `code` is not in the catalogue (only possible with an unchecked string)
 */
export function significantEventSpec(code: SignificantEventCode): SignificantEventSpec {
  if (!isSignificantEventCode(code)) throw new Error(`significant event ${String(code)} is not in the catalogue`);
  return SIGNIFICANT_EVENTS[code];
}

/** Whether an event of kind `code` stays open until a second person acknowledges it. */
export function requiresSecondPerson(code: SignificantEventCode): boolean {
  return significantEventSpec(code).acknowledgement === 'second-person';
}

/** The codes a ledger event of type `eventType` may raise (its `trigger` says on what condition), in catalogue order. */
export function significantEventCodesFor(eventType: LedgerEventType): SignificantEventCode[] {
  return SIGNIFICANT_EVENT_CODES.filter((c) => SIGNIFICANT_EVENTS[c].raisedBy.some((s) => s.kind === 'ledger-event' && s.eventType === eventType));
}

/** A threshold's default as its configuration variable spells it: `100/1` for a ratio, the decimal digits otherwise. */
export function settingText(t: ThresholdSetting): string {
  return t.unit === 'ratio' ? `${t.default.numerator}/${t.default.denominator}` : String(t.default);
}

/** A ratio as exact integers. */
export interface ExactRatio {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/**
 * A ratio variable's value (`100`, `100/1`, `95/100`: positive integers, no sign, no decimal point)
 * as exact integers, or a catalogue {@link Ratio}.
 * @throws Error when `value` is not of that form
 */
export function parseRatio(value: string | Ratio): ExactRatio {
  const text = typeof value === 'string' ? value : `${value.numerator}/${value.denominator}`;
  const m = /^([1-9]\d{0,17})(?:\/([1-9]\d{0,17}))?$/.exec(text);
  if (!m) throw new Error(`${text} is not a ratio N or N/D of positive integers`);
  return { numerator: BigInt(m[1]), denominator: BigInt(m[2] ?? '1') };
}
