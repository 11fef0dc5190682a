import { ERROR_CODES } from '@ledger/errors';
import { EVENT_TYPES } from '@ledger/events';
import {
  REGULATIONS,
  SEVERITIES,
  SIGNIFICANT_EVENTS,
  SIGNIFICANT_EVENTS_END,
  SIGNIFICANT_EVENTS_START,
  SIGNIFICANT_EVENT_CODES,
  acknowledgementFor,
  catalogueProblems,
  describeThreshold,
  isSeverity,
  isSignificantEventCode,
  parseRatio,
  renderSignificantEventsMarkdown,
  requiresSecondPerson,
  severityAtLeast,
  significantEventCodesFor,
  significantEventSpec,
  spliceSignificantEvents,
  type CatalogueReferences,
  type SeverityAtLeast,
  type SeverityOf,
  type SignificantEventCode,
  type SignificantEventCodeAtLeast,
  type SignificantEventSpec,
} from './index';

/** The catalogue's own references, with every threshold variable at the default the catalogue states (the real schema is checked in test/significant-events.unit.spec.ts). */
const stated = new Map<string, string>();
for (const c of SIGNIFICANT_EVENT_CODES) for (const t of SIGNIFICANT_EVENTS[c].threshold ?? []) stated.set(t.setting, t.unit === 'ratio' ? `${t.default.numerator}/${t.default.denominator}` : String(t.default));
const refs: CatalogueReferences = { eventTypes: EVENT_TYPES, errorCodes: ERROR_CODES, settings: stated };
const entries = (): [string, SignificantEventSpec][] => Object.entries(SIGNIFICANT_EVENTS);
/** The catalogue with `code`'s entry changed by `patch` (a deliberately broken fixture; the cast lets it break the types too). */
const withEntry = (code: SignificantEventCode, patch: Record<string, unknown>): [string, SignificantEventSpec][] => entries().map(([c, s]) => (c === code ? [c, { ...s, ...patch } as unknown as SignificantEventSpec] : [c, s]));

describe('the significant-event catalogue (docs/significant-events.md)', () => {
  it('holds the kinds the regulations ask for, each code once and `AREA.REASON`', () => {
    expect(SIGNIFICANT_EVENT_CODES.length).toBeGreaterThanOrEqual(20);
    expect(new Set(SIGNIFICANT_EVENT_CODES).size).toBe(SIGNIFICANT_EVENT_CODES.length);
    for (const code of SIGNIFICANT_EVENT_CODES) expect([code, /^[A-Z][A-Z0-9_]*\.[A-Z][A-Z0-9_]*$/.test(code)]).toEqual([code, true]);
    for (const c of ['ROUND.VOIDED', 'RESULT.CORRECTED', 'SHOE.VOIDED_BY_DECISION', 'WIN.LARGE', 'DEVICE.CLOCK_SKEW', 'CHAIN.DIVERGED', 'PROJECTION.HALTED', 'STATISTICS.OUT_OF_BOUNDS'])
      expect(isSignificantEventCode(c)).toBe(true);
  });

  it('is sound: no problem against the event catalogue, the error table and its own thresholds', () => {
    expect(catalogueProblems(entries(), refs)).toEqual([]);
  });

  it('orders the severities and requires a second person from high on, none below', () => {
    expect(SEVERITIES).toEqual(['info', 'low', 'medium', 'high', 'critical']);
    expect(SEVERITIES.map(acknowledgementFor)).toEqual(['none', 'none', 'none', 'second-person', 'second-person']);
    expect(severityAtLeast('critical', 'high')).toBe(true);
    expect(severityAtLeast('medium', 'high')).toBe(false);
    expect([isSeverity('high'), isSeverity('severe'), isSeverity(3)]).toEqual([true, false, false]);
    for (const code of SIGNIFICANT_EVENT_CODES) {
      const s = significantEventSpec(code);
      expect([code, s.acknowledgement]).toEqual([code, severityAtLeast(s.severity, 'high') ? 'second-person' : 'none']);
      expect(requiresSecondPerson(code)).toBe(s.acknowledgement === 'second-person');
    }
    const grave: SeverityAtLeast<'high'>[] = ['high', 'critical'];
    // @ts-expect-error medium is below high
    const notGrave: SeverityAtLeast<'high'> = 'medium';
    expect([grave, notGrave]).toBeDefined();
    const chain: SeverityOf<'CHAIN.DIVERGED'> = 'critical';
    const acked: SignificantEventCodeAtLeast<'high'> = 'WIN.LARGE';
    // @ts-expect-error ROUND.VOIDED is medium
    const notAcked: SignificantEventCodeAtLeast<'high'> = 'ROUND.VOIDED';
    expect([chain, acked, notAcked]).toBeDefined();
  });

  it('knows its codes and refuses a string that is none', () => {
    expect(isSignificantEventCode('toString')).toBe(false);
    expect(isSignificantEventCode(42)).toBe(false);
    expect(() => significantEventSpec('NOPE.NOPE' as SignificantEventCode)).toThrow('not in the catalogue');
  });

  it('selects the kinds a ledger event may raise', () => {
    expect(significantEventCodesFor('RoundVoided')).toEqual(['ROUND.VOIDED']);
    expect(significantEventCodesFor('BetResettled')).toEqual(['WIN.LARGE']);
    expect(significantEventCodesFor('CardDealt')).toEqual([]);
  });

  it('keeps money in minor units as integer strings and multiples as exact ratios, never floats', () => {
    const win = SIGNIFICANT_EVENTS['WIN.LARGE'].threshold;
    expect(win.map((t) => [t.setting, t.unit, t.default])).toEqual([
      ['SIGNIFICANT_WIN_MULTIPLE', 'ratio', { numerator: '100', denominator: '1' }],
      ['SIGNIFICANT_WIN_AMOUNT_MINOR', 'minor-units', '1000000'],
    ]);
    expect(parseRatio('100/1')).toEqual({ numerator: 100n, denominator: 1n });
    expect(parseRatio('7')).toEqual({ numerator: 7n, denominator: 1n });
    expect(parseRatio({ numerator: '95', denominator: '100' })).toEqual({ numerator: 95n, denominator: 100n });
    for (const bad of ['0.95', '1e3', '-1', '1/0', '', '95/100/2']) expect(() => parseRatio(bad)).toThrow('is not a ratio');
    expect(describeThreshold(win[1])).toBe('winnings ≥ `SIGNIFICANT_WIN_AMOUNT_MINOR` (default 1000000 minor units)');
  });

  it('cites only regulations it knows, and every one it knows is cited', () => {
    const cited = new Set(SIGNIFICANT_EVENT_CODES.flatMap((c) => [...SIGNIFICANT_EVENTS[c].regulation]));
    expect([...cited].sort()).toEqual(Object.keys(REGULATIONS).sort());
  });

  it('renders one Markdown row per kind, and splices it between the markers idempotently', () => {
    const md = renderSignificantEventsMarkdown();
    for (const code of SIGNIFICANT_EVENT_CODES) expect(md).toContain(`| \`${code}\` | ${SIGNIFICANT_EVENTS[code].severity} | `);
    expect(md).toContain('| `high` | 3 | second-person |');
    const doc = `# S\n${SIGNIFICANT_EVENTS_START}\nstale\n${SIGNIFICANT_EVENTS_END}\nafter\n`;
    const once = spliceSignificantEvents(doc);
    expect(once).toBe(`# S\n${SIGNIFICANT_EVENTS_START}\n${md}\n${SIGNIFICANT_EVENTS_END}\nafter\n`);
    expect(spliceSignificantEvents(once)).toBe(once);
    expect(() => spliceSignificantEvents('# S\n')).toThrow('exactly one');
    expect(() => spliceSignificantEvents(`${SIGNIFICANT_EVENTS_END}${SIGNIFICANT_EVENTS_START}`)).toThrow('exactly one');
  });
});

describe('the checks of the catalogue can fail (deliberately broken fixtures)', () => {
  it('a repeated or malformed code', () => {
    const [first] = entries();
    expect(catalogueProblems([...entries(), first], refs)).toEqual([`${first[0]}: repeated`]);
    expect(catalogueProblems([['ROUND_VOIDED', first[1]]], refs)).toEqual(['ROUND_VOIDED: not AREA.REASON']);
  });

  it('an acknowledgement its severity does not require, either way', () => {
    expect(catalogueProblems(withEntry('ROUND.VOIDED', { acknowledgement: 'second-person' }), refs)).toEqual(['ROUND.VOIDED: severity medium requires acknowledgement none, not second-person']);
    expect(catalogueProblems(withEntry('CHAIN.DIVERGED', { acknowledgement: 'none' }), refs)).toEqual(['CHAIN.DIVERGED: severity critical requires acknowledgement second-person, not none']);
    expect(catalogueProblems(withEntry('CHAIN.DIVERGED', { severity: 'severe' }), refs)).toEqual(['CHAIN.DIVERGED: unknown severity severe']);
  });

  it('an event type or error code that does not exist, or nothing raising it', () => {
    expect(catalogueProblems(withEntry('ROUND.VOIDED', { raisedBy: [{ kind: 'ledger-event', eventType: 'RoundCancelled' }] }), refs)).toEqual(['ROUND.VOIDED: event type RoundCancelled is not in the event catalogue']);
    expect(catalogueProblems(withEntry('CARD.WRONG', { raisedBy: [{ kind: 'refusal', errorCode: 'CARD.WRONG' }] }), refs)).toEqual(['CARD.WRONG: error code CARD.WRONG is not in the error table']);
    expect(catalogueProblems(withEntry('CARD.WRONG', { raisedBy: [] }), refs)).toEqual(['CARD.WRONG: nothing raises it']);
  });

  it('a threshold variable that is not configured, a default that differs or is a float, an empty threshold list', () => {
    const rate = SIGNIFICANT_EVENTS['RATE.LIMIT_STORM'].threshold[0];
    expect(catalogueProblems(withEntry('RATE.LIMIT_STORM', { threshold: [{ ...rate, setting: 'RATE_STORM' }] }), refs)).toEqual(['RATE.LIMIT_STORM: threshold variable RATE_STORM is not a configuration variable']);
    expect(catalogueProblems(withEntry('RATE.LIMIT_STORM', { threshold: [{ ...rate, default: 6.5 }] }), refs)).toEqual([
      'RATE.LIMIT_STORM: RATE_LIMIT_STORM_PER_MINUTE defaults to 600 in the configuration, the catalogue says 6.5',
      "RATE.LIMIT_STORM: RATE_LIMIT_STORM_PER_MINUTE's default is not a positive integer in per-minute",
    ]);
    const amount = SIGNIFICANT_EVENTS['WIN.LARGE'].threshold[1];
    const floatMoney = catalogueProblems(withEntry('WIN.LARGE', { threshold: [{ ...amount, default: '10000.5' }] }), { ...refs, settings: new Map([...stated, ['SIGNIFICANT_WIN_AMOUNT_MINOR', '10000.5']]) });
    expect(floatMoney).toEqual(["WIN.LARGE: SIGNIFICANT_WIN_AMOUNT_MINOR's default is not a positive integer in minor-units"]);
    expect(catalogueProblems(withEntry('ROUND.VOIDED', { threshold: [] }), refs)).toEqual(['ROUND.VOIDED: an empty threshold list (null means none)']);
  });

  it('no regulation, an unknown one, no trigger sentence', () => {
    expect(catalogueProblems(withEntry('ROUND.VOIDED', { regulation: [] }), refs)).toEqual(['ROUND.VOIDED: cites no regulation']);
    expect(catalogueProblems(withEntry('ROUND.VOIDED', { regulation: ['GDPR-17'] }), refs)).toEqual(['ROUND.VOIDED: unknown regulation GDPR-17']);
    expect(catalogueProblems(withEntry('ROUND.VOIDED', { trigger: 'voided' }), refs)).toEqual(['ROUND.VOIDED: needs a title and a trigger sentence']);
  });
});
