import { FloodWindows, StormCounter } from './flood';
import { causeKey, refusalCodeFor, verifierCodeFor, windowStartOf } from './causes';

const T0 = Date.parse('2026-12-07T16:00:00.000Z');

describe('floods are bounded (docs/significant-events.md, "Floods are bounded")', () => {
  it('raises the first cause of a (code, subject, window) at once, and the rest by one raise with their count once the window has ended', () => {
    const w = new FloodWindows<string>({ seconds: 60, maxOpen: 10 });
    expect(w.add({ code: 'DEVICE.CLOCK_SKEW', subject: 'table-device:d1', atMs: T0 + 1_000, first: 'e1' })).toEqual({
      outcome: 'opened',
      first: { start: '2026-12-07T16:00:00.000Z', seconds: 60, subject: 'table-device:d1', count: 1 },
    });
    for (let i = 2; i <= 500; i++) expect(w.add({ code: 'DEVICE.CLOCK_SKEW', subject: 'table-device:d1', atMs: T0 + 1_000 + i, first: `e${i}` })).toEqual({ outcome: 'counted' });
    expect(w.add({ code: 'DEVICE.CLOCK_SKEW', subject: 'table-device:d2', atMs: T0 + 2_000, first: 'x1' }).outcome).toBe('opened');
    expect(w.add({ code: 'CARD.WRONG', subject: 'table-device:d1', atMs: T0 + 3_000, first: 'c1' }).outcome).toBe('opened');
    expect(w.add({ code: 'CARD.WRONG', subject: 'table-device:d1', atMs: T0 + 4_000, first: 'c2' }).outcome).toBe('counted');
    expect(w.add({ code: 'DEVICE.CLOCK_SKEW', subject: 'table-device:d1', atMs: T0 + 61_000, first: 'n1' }).outcome).toBe('opened');
    expect(w.due(T0 + 59_999)).toEqual([]);
    const due = w.due(T0 + 60_000);
    // the rest of each window, named by its second cause; a window of one cause gives nothing more
    expect(due.map((d) => [d.code, d.window.subject, d.window.count, d.window.rest, d.first])).toEqual(
      expect.arrayContaining([
        ['DEVICE.CLOCK_SKEW', 'table-device:d1', 499, true, 'e2'],
        ['CARD.WRONG', 'table-device:d1', 1, true, 'c2'],
      ]),
    );
    expect(due).toHaveLength(2);
    expect(due[0].window).toMatchObject({ start: '2026-12-07T16:00:00.000Z', seconds: 60 });
    expect(w.size).toBe(1);
    expect(w.due(T0 + 60_000, true)).toEqual([]);
  });

  it('drops a cause that would open one window more than its bound', () => {
    const w = new FloodWindows<number>({ seconds: 1, maxOpen: 2 });
    expect(w.add({ code: 'CARD.WRONG', subject: 'a', atMs: T0, first: 1 }).outcome).toBe('opened');
    expect(w.add({ code: 'CARD.WRONG', subject: 'b', atMs: T0, first: 2 }).outcome).toBe('opened');
    expect(w.add({ code: 'CARD.WRONG', subject: 'c', atMs: T0, first: 3 }).outcome).toBe('dropped');
    expect(w.add({ code: 'CARD.WRONG', subject: 'a', atMs: T0 + 5, first: 4 }).outcome).toBe('counted');
  });

  it('answers a storm once per minute, when its count reaches the threshold', () => {
    const s = new StormCounter(3);
    expect([s.add(T0), s.add(T0 + 1)]).toEqual([null, null]);
    expect(s.add(T0 + 2)).toEqual({ start: '2026-12-07T16:00:00.000Z', seconds: 60, subject: '*', count: 3 });
    expect(s.add(T0 + 3)).toBeNull();
    expect([s.add(T0 + 60_000), s.add(T0 + 60_001)]).toEqual([null, null]);
    expect(s.add(T0 + 60_002)?.start).toBe('2026-12-07T16:01:00.000Z');
  });
});

describe('the causes of a significant event (docs/significant-events.md, "Causes")', () => {
  it('maps a refusal to the code whose raisedBy lists its error code (and reason), a divergence to CHAIN or ANCHOR', () => {
    expect(refusalCodeFor('TABLEAU.VIOLATION', undefined)).toBe('CARD.WRONG');
    expect(refusalCodeFor('SHOE.CARD_EXCEEDS_DECKS', undefined)).toBe('CARD.ACCOUNTING_ANOMALY');
    expect(refusalCodeFor('TIME.OCCURRED_AT_OUT_OF_RANGE', 'IN_THE_FUTURE')).toBe('DEVICE.CLOCK_SKEW');
    expect(refusalCodeFor('TIME.OCCURRED_AT_OUT_OF_RANGE', 'BEFORE_SHOE_OPENED')).toBe('DEVICE.CLOCK_SKEW');
    expect(refusalCodeFor('TIME.OCCURRED_AT_OUT_OF_RANGE', 'TOO_OLD')).toBeNull();
    expect(refusalCodeFor('GAMING_DAY.READ_MODEL_DIVERGED', undefined)).toBe('READ_MODEL.DIVERGED');
    expect(refusalCodeFor('VALIDATION.FAILED', undefined)).toBeNull();
    expect(verifierCodeFor('KAFKA_MISMATCH')).toBe('CHAIN.DIVERGED');
    expect(verifierCodeFor('ANCHOR_SIGNATURE_INVALID')).toBe('ANCHOR.DIVERGED');
    expect(verifierCodeFor('SIGNIFICANT_EVENT_NOT_GENUINE')).toBeNull();
  });

  it('keys a cause stably: windows aligned to the epoch; an untagged event cause as before', () => {
    expect(windowStartOf(T0 + 59_999, 60)).toBe('2026-12-07T16:00:00.000Z');
    expect(windowStartOf(T0 + 60_000, 60)).toBe('2026-12-07T16:01:00.000Z');
    expect(causeKey('WIN.LARGE', { eventId: 'ABC', globalPosition: '1', streamId: 's', eventType: 'BetSettled' })).toBe('abc|WIN.LARGE');
    expect(causeKey('CHAIN.DIVERGED', { kind: 'verifier', divergence: 'HEAD_MISMATCH', source: 'anchors', where: 'shoe-1@2#e' })).toBe('CHAIN.DIVERGED|verifier|HEAD_MISMATCH|anchors|shoe-1@2#e');
  });
});
