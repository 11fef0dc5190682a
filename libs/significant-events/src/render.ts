import { SIGNIFICANT_EVENTS } from './catalogue';
import { SIGNIFICANT_EVENT_CODES, settingText } from './codes';
import { REGULATIONS, type RegulationRef } from './regulations';
import { SECOND_PERSON_FROM, SEVERITIES, acknowledgementFor } from './severity';
import type { SignificantEventSource, ThresholdSetting } from './spec';

/** The markers between which docs/significant-events.md holds the generated catalogue. */
export const SIGNIFICANT_EVENTS_START = '<!-- significant-events:start -->';
export const SIGNIFICANT_EVENTS_END = '<!-- significant-events:end -->';

const cell = (s: string): string => s.replace(/\|/g, '\\|');

/** Who raises a kind, in words (`event RoundVoided`, `refusal TABLEAU.VIOLATION`, `the projector`, …). */
export function describeSource(s: SignificantEventSource): string {
  switch (s.kind) {
    case 'ledger-event':
      return `event \`${s.eventType}\``;
    case 'refusal':
      return `refusal \`${s.errorCode}\`${s.reasons ? ` (${s.reasons.join(' or ')})` : ''}`;
    case 'verifier':
      return 'the verifier';
    case 'projector':
      return 'the projector';
    case 'monitor':
      return `the ${s.monitor} monitor`;
  }
}

const UNIT_TEXT: Record<ThresholdSetting['unit'], string> = { 'minor-units': ' minor units', ratio: '', ms: ' ms', 'per-minute': ' per minute' };

/** One threshold in words: `winnings ÷ stake ≥ SIGNIFICANT_WIN_MULTIPLE (default 100/1)`. */
export function describeThreshold(t: ThresholdSetting): string {
  return `${t.measure} ${t.comparison === 'at-least' ? '≥' : '>'} \`${t.setting}\` (default ${settingText(t)}${UNIT_TEXT[t.unit]})`;
}

/**
 * The catalogue as Markdown: the severities with the acknowledgement each requires, every kind (in
 * catalogue order) with its severity, title, who raises it and when, its thresholds, its
 * acknowledgement and the regulations it cites, then the regulations' citations.
 */
export function renderSignificantEventsMarkdown(): string {
  const severities = SEVERITIES.map((s, i) => `| \`${s}\` | ${i} | ${acknowledgementFor(s)} |`);
  const kinds = SIGNIFICANT_EVENT_CODES.map((code) => {
    const s = SIGNIFICANT_EVENTS[code];
    const raised = `${s.raisedBy.map(describeSource).join(', ')}: ${s.trigger}`;
    const threshold = s.threshold === null ? '—' : s.threshold.map(describeThreshold).join('; or ');
    return `| \`${code}\` | ${s.severity} | ${cell(s.title)} | ${cell(raised)} | ${cell(threshold)} | ${s.acknowledgement} | ${s.regulation.join(', ')} |`;
  });
  const regulations = (Object.keys(REGULATIONS) as RegulationRef[]).map((r) => `| ${r} | ${cell(REGULATIONS[r])} |`);
  return [
    'Generated from `libs/significant-events/src/catalogue.ts` by `npx tsx scripts/gen-significant-event-docs.ts`; do not edit by hand.',
    `A second person acknowledges every kind of severity \`${SECOND_PERSON_FROM}\` or above; none below.`,
    '',
    '| severity | rank | acknowledgement |',
    '|---|---|---|',
    ...severities,
    '',
    '| code | severity | title | raised by, and when | threshold (variable, default) | acknowledgement | regulation |',
    '|---|---|---|---|---|---|---|',
    ...kinds,
    '',
    '| regulation | citation |',
    '|---|---|',
    ...regulations,
  ].join('\n');
}

/**
 * `doc` with the text between {@link SIGNIFICANT_EVENTS_START} and {@link SIGNIFICANT_EVENTS_END}
 * replaced by {@link renderSignificantEventsMarkdown}.
 * @throws Error when the markers are missing, repeated or out of order
 */
export function spliceSignificantEvents(doc: string): string {
  const start = doc.indexOf(SIGNIFICANT_EVENTS_START);
  const end = doc.indexOf(SIGNIFICANT_EVENTS_END);
  if (start < 0 || end < start || doc.indexOf(SIGNIFICANT_EVENTS_START, start + 1) >= 0 || doc.indexOf(SIGNIFICANT_EVENTS_END, end + 1) >= 0) {
    throw new Error(`the document needs exactly one ${SIGNIFICANT_EVENTS_START} … ${SIGNIFICANT_EVENTS_END} block`);
  }
  return `${doc.slice(0, start + SIGNIFICANT_EVENTS_START.length)}\n${renderSignificantEventsMarkdown()}\n${doc.slice(end)}`;
}
