/**
 * Verify's completeness of the significant events (docs/significant-events.md, "What verify checks"):
 * where the attested settings say the monitor ran, and what a stored cause owes under them. Pure.
 */
import type { LedgerEvent } from '@ledger/events';
import { DEFAULT_SIGNIFICANT_SETTINGS } from '@ledger/significant-events';
import { significantEventIdOf } from './significant-check';
import { expectedRaises, monitoredSpans } from './significant-completeness';
import type { AttestedSettingsRow } from './significant-settings';
import { storedEvent } from './testing/stored-event';

const on = DEFAULT_SIGNIFICANT_SETTINGS;
const row = (eventId: string, globalPosition: string, settings = on, topic: string | null = null): AttestedSettingsRow => ({ eventId, globalPosition, topic, settings });

describe('monitoredSpans', () => {
  it('runs from each attestation saying the monitor ran to the same ledger’s next one; none before the first, none where it was off', () => {
    const spans = monitoredSpans([row('a1', '10'), row('x1', '15', on, 'other.topic'), row('a2', '20', { ...on, monitor: false }), row('a3', '30', { ...on, winAmountMinor: '5' })]);
    expect(spans.map((s) => [s.attestation, s.from, s.to, s.topic, s.owesItsEnd])).toEqual([
      ['a1', '10', '20', null, true],
      ['x1', '15', null, 'other.topic', false],
      ['a3', '30', null, null, false],
    ]);
    expect(monitoredSpans([row('a1', '10'), row('a2', '20', { ...on, winAmountMinor: '5' })]).map((s) => [s.to, s.owesItsEnd])).toEqual([
      ['20', false],
      [null, false],
    ]);
    expect(spans[2].settings.winAmountMinor).toBe('5');
  });

  it('takes settings the configuration refuses for its defaults (monitor on): a forged attestation does not switch the check off', () => {
    expect(monitoredSpans([row('forged', '10', { ...on, monitor: false, floodWindowSeconds: 0 })]).map((s) => s.settings)).toEqual([DEFAULT_SIGNIFICANT_SETTINGS]);
  });

  it('is empty without an attestation stating settings (the harness): nothing says a monitor ran', () => {
    expect(monitoredSpans([])).toEqual([]);
  });
});

const AT = '2026-12-07T12:00:30.000Z';
/** A stored event of `type` with `data`, by a pit manager unless `actor` says otherwise. */
const ev = (type: string, data: Record<string, unknown>, over: Partial<LedgerEvent> = {}): LedgerEvent => storedEvent({ id: '11111111-2222-4333-8444-555555555555', type, actor: ['pm-1', 'pit-manager'], data, at: AT }, over);
const idOf = (code: string) => ({ kind: 'id', code, significantEventId: significantEventIdOf('11111111-2222-4333-8444-555555555555', code) });

describe('expectedRaises', () => {
  it('owes the detector’s kinds under the settings in force: a void, a win over the attested amount, nothing for a smaller one', () => {
    expect(expectedRaises(ev('RoundVoided', { roundId: 'R1', cause: 'EXPOSED_CARD', decision: null, causedBy: null }), on)).toEqual([idOf('ROUND.VOIDED')]);
    expect(expectedRaises(ev('RoundVoided', { roundId: 'R1', cause: 'SHOE_VOIDED', decision: null, causedBy: null }), on, { shoeVoid: true })).toEqual([]);
    // labelled so with no shoe void of its stream listing it: an ordinary void
    expect(expectedRaises(ev('RoundVoided', { roundId: 'R1', cause: 'SHOE_VOIDED', decision: null, causedBy: null }), on, { shoeVoid: false })).toEqual([idOf('ROUND.VOIDED')]);
    const win = ev('BetSettled', { betId: 'b', accountId: 'a', roundId: 'R1', currency: 'EUR', stake: '1000', winnings: '5000', result: 'WIN' });
    expect(expectedRaises(win, on)).toEqual([]);
    expect(expectedRaises(win, { ...on, winAmountMinor: '5000' })).toEqual([idOf('WIN.LARGE')]);
  });

  it('owes a dealer change only mid-shoe, and a configuration change only against a previous attestation', () => {
    const change = ev('DealerChanged', { previousDealerId: 'd1', dealerId: 'd2' });
    expect(expectedRaises(change, on, { firstRoundVersion: 3 })).toEqual([idOf('DEALER.CHANGED_MID_SHOE')]);
    expect(expectedRaises(change, on, { firstRoundVersion: null })).toEqual([]);
    const base = { host: 'api-1', tables: [], paytables: [], keys: { anchors: [], reports: null, tokens: [] } };
    const attested = ev('ConfigurationAttested', { ...base, significant: { ...on, monitor: false } }, { streamId: 'gaming-day-2026-12-07', tableId: '*' });
    expect(expectedRaises(attested, on, { previous: null })).toEqual([]);
    expect(expectedRaises(attested, on, { previous: { eventId: 'p', data: { ...base, significant: on } } })).toEqual([idOf('CONFIG.SIGNIFICANT_SETTINGS_CHANGED')]);
  });

  it('owes a device’s skewed fact a raise of its window (flood window in force, aligned to the epoch), not one of its own id', () => {
    const dealt = ev('CardDealt', { roundId: 'R1', card: '9S', position: 'P1' }, { actor: { id: 'dev-1', role: 'table-device' }, occurredAt: '2026-12-07T11:58:00.000Z' } as Partial<LedgerEvent>);
    expect(expectedRaises(dealt, on)).toEqual([{ kind: 'window', code: 'DEVICE.CLOCK_SKEW', subject: 'table-device:dev-1', start: '2026-12-07T12:00:00.000Z' }]);
    expect(expectedRaises(dealt, { ...on, floodWindowSeconds: 3600 })).toEqual([{ kind: 'window', code: 'DEVICE.CLOCK_SKEW', subject: 'table-device:dev-1', start: '2026-12-07T12:00:00.000Z' }]);
    expect(expectedRaises(dealt, { ...on, clockSkewBoundMs: 200_000 })).toEqual([]);
  });
});
