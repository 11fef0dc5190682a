import { ApiError } from '../kernel/api-error';
import { assertOccurredAtInRange } from './occurred-at';

const NOW = Date.parse('2026-11-29T12:00:00.000Z');
const BOUNDS = { maxSkewMs: 5_000, maxAgeMs: 86_400_000 };
const iso = (ms: number) => new Date(ms).toISOString();

function refusal(occurredAt: string, shoeOpenedAt: string | null): ApiError {
  try {
    assertOccurredAtInRange(occurredAt, shoeOpenedAt, NOW, BOUNDS);
  } catch (e) {
    return e as ApiError;
  }
  throw new Error(`${occurredAt} was accepted`);
}

describe('occurredAt bounds (the time at the table cannot be moved by the client)', () => {
  it('Given no occurredAt, Then the ledger records its own time: nothing to check', () => {
    expect(() => assertOccurredAtInRange(null, null, NOW, BOUNDS)).not.toThrow();
    expect(() => assertOccurredAtInRange(null, iso(NOW + 60_000), NOW, BOUNDS)).not.toThrow();
  });

  it('Given a shoe being opened, Then occurredAt lies in now − max age .. now + skew (bounds included)', () => {
    for (const t of [NOW, NOW + 5_000, NOW - 86_400_000, NOW - 3_600_000]) expect(() => assertOccurredAtInRange(iso(t), null, NOW, BOUNDS)).not.toThrow();
    const future = refusal(iso(NOW + 5_001), null);
    expect(future).toMatchObject({ code: 'TIME.OCCURRED_AT_OUT_OF_RANGE', status: 422, details: { reason: 'IN_THE_FUTURE', latest: iso(NOW + 5_000), earliest: iso(NOW - 86_400_000) } });
    const old = refusal(iso(NOW - 86_400_001), null);
    expect(old).toMatchObject({ code: 'TIME.OCCURRED_AT_OUT_OF_RANGE', details: { reason: 'TOO_OLD', occurredAt: iso(NOW - 86_400_001) } });
  });

  it('Given an open shoe, Then a later fact is no earlier than its opening (less the skew) and not in the future', () => {
    const opened = iso(NOW - 600_000);
    expect(() => assertOccurredAtInRange(opened, opened, NOW, BOUNDS)).not.toThrow();
    expect(() => assertOccurredAtInRange(iso(NOW - 605_000), opened, NOW, BOUNDS)).not.toThrow();
    expect(refusal(iso(NOW - 605_001), opened)).toMatchObject({ details: { reason: 'BEFORE_SHOE_OPENED', earliest: iso(NOW - 605_000) } });
    // a day back is before the shoe opened, even though the shoe's opening could have been that old
    expect(refusal(iso(NOW - 86_400_000), opened).details.reason).toBe('BEFORE_SHOE_OPENED');
    expect(refusal(iso(NOW + 86_400_000), opened).details.reason).toBe('IN_THE_FUTURE');
  });

  it('Given a shoe opened long ago, Then its facts are still accepted (the max age bounds the opening only)', () => {
    const opened = iso(NOW - 3 * 86_400_000);
    expect(() => assertOccurredAtInRange(iso(NOW - 2 * 86_400_000), opened, NOW, BOUNDS)).not.toThrow();
  });

  it('reads any ISO-8601 offset as the instant it names', () => {
    expect(() => assertOccurredAtInRange('2026-11-29T13:00:04+01:00', null, NOW, BOUNDS)).not.toThrow();
    expect(refusal('2026-11-29T13:00:06+01:00', null).details.reason).toBe('IN_THE_FUTURE');
  });
});
