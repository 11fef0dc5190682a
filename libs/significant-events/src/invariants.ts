import { REGULATIONS } from './regulations';
import { acknowledgementFor, isSeverity } from './severity';
import type { SignificantEventSpec, ThresholdSetting } from './spec';
import { settingText } from './codes';

/** What the catalogue is checked against: the names that exist elsewhere in the product. */
export interface CatalogueReferences {
  /** Every ledger event type (`EVENT_TYPES` of `@ledger/events`). */
  readonly eventTypes: readonly string[];
  /** Every error code (`ERROR_CODES` of `@ledger/errors`). */
  readonly errorCodes: readonly string[];
  /** Every configuration variable, with its default as docs/configuration.md prints it (null: none). */
  readonly settings: ReadonlyMap<string, string | null>;
}

const CODE = /^[A-Z][A-Z0-9_]*\.[A-Z][A-Z0-9_]*$/;

function thresholdProblems(code: string, t: ThresholdSetting, refs: CatalogueReferences): string[] {
  const out: string[] = [];
  if (!refs.settings.has(t.setting)) out.push(`${code}: threshold variable ${t.setting} is not a configuration variable`);
  else if (refs.settings.get(t.setting) !== settingText(t)) out.push(`${code}: ${t.setting} defaults to ${String(refs.settings.get(t.setting))} in the configuration, the catalogue says ${settingText(t)}`);
  const ok = t.unit === 'minor-units' ? /^[1-9]\d*$/.test(t.default) : t.unit === 'ratio' ? /^[1-9]\d*$/.test(t.default.numerator) && /^[1-9]\d*$/.test(t.default.denominator) : Number.isSafeInteger(t.default) && t.default > 0;
  if (!ok) out.push(`${code}: ${t.setting}'s default is not a positive integer in ${t.unit}`);
  return out;
}

function entryProblems(code: string, s: SignificantEventSpec, refs: CatalogueReferences): string[] {
  const out: string[] = [];
  if (!CODE.test(code)) out.push(`${code}: not AREA.REASON`);
  if (s.title.trim().length < 5 || !/[.]$/.test(s.trigger) || s.trigger.length < 20) out.push(`${code}: needs a title and a trigger sentence`);
  if (!isSeverity(s.severity)) out.push(`${code}: unknown severity ${String(s.severity)}`);
  else if (s.acknowledgement !== acknowledgementFor(s.severity)) out.push(`${code}: severity ${s.severity} requires acknowledgement ${acknowledgementFor(s.severity)}, not ${s.acknowledgement}`);
  if (s.raisedBy.length === 0) out.push(`${code}: nothing raises it`);
  for (const r of s.raisedBy) {
    if (r.kind === 'ledger-event' && !refs.eventTypes.includes(r.eventType)) out.push(`${code}: event type ${r.eventType} is not in the event catalogue`);
    if (r.kind === 'refusal' && !refs.errorCodes.includes(r.errorCode)) out.push(`${code}: error code ${r.errorCode} is not in the error table`);
  }
  if (s.threshold !== null && s.threshold.length === 0) out.push(`${code}: an empty threshold list (null means none)`);
  for (const t of s.threshold ?? []) out.push(...thresholdProblems(code, t, refs));
  if (s.regulation.length === 0) out.push(`${code}: cites no regulation`);
  for (const r of s.regulation) if (!Object.prototype.hasOwnProperty.call(REGULATIONS, r)) out.push(`${code}: unknown regulation ${r}`);
  return out;
}

/**
 * Everything wrong with a catalogue (its entries as `[code, spec]` pairs, so a repeated code can be
 * seen): codes repeated or not `AREA.REASON`; a missing title or trigger sentence; an unknown
 * severity, or an acknowledgement other than its severity requires (`second-person` from `high`
 * on, `none` below); no raiser, an event type or error code that does not exist; an empty
 * threshold list, a threshold variable that is not a configuration variable or whose default there
 * differs, a default that is not a positive integer of its unit; no regulation, or an unknown one.
 * Empty when the catalogue is sound.
 */
export function catalogueProblems(entries: readonly (readonly [string, SignificantEventSpec])[], refs: CatalogueReferences): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const [code, s] of entries) {
    if (seen.has(code)) out.push(`${code}: repeated`);
    seen.add(code);
    out.push(...entryProblems(code, s, refs));
  }
  return out;
}
