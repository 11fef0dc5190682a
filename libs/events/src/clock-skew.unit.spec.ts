import { clockSkewMs, DEVICE_CLOCK_ROLES, deviceClockOf } from './clock-skew';

describe('clockSkewMs (docs/architecture.md, "Time the ledger vouches for")', () => {
  it('is occurredAt − recordedAt in whole ms: positive for a device ahead of the ledger, negative behind', () => {
    expect(clockSkewMs('2026-12-07T12:00:03.250Z', '2026-12-07T12:00:00.000Z')).toBe(3250);
    expect(clockSkewMs('2026-12-07T11:59:58.999Z', '2026-12-07T12:00:00.000Z')).toBe(-1001);
    expect(clockSkewMs('2026-12-07T12:00:00.000Z', '2026-12-07T12:00:00.000Z')).toBe(0);
  });

  it('reads any offset of ISO-8601 and stays an exact integer over days', () => {
    expect(clockSkewMs('2026-12-07T13:00:00.001+01:00', '2026-12-07T12:00:00.000Z')).toBe(1);
    const skew = clockSkewMs('2026-12-17T12:00:00.007Z', '2026-12-07T12:00:00.000Z');
    expect([skew, Number.isSafeInteger(skew)]).toEqual([864_000_007, true]);
  });

  it('refuses a timestamp that is not an instant', () => {
    expect(() => clockSkewMs('yesterday', '2026-12-07T12:00:00.000Z')).toThrow(/occurredAt "yesterday" is not an ISO-8601 instant/);
    expect(() => clockSkewMs('2026-12-07T12:00:00.000Z', '')).toThrow(/recordedAt "" is not an ISO-8601 instant/);
  });
});

describe('deviceClockOf', () => {
  const base = { occurredAt: '2026-12-07T12:00:02.000Z', recordedAt: '2026-12-07T12:00:00.000Z', tableId: 'T-CLASSIC-01', globalPosition: '42' };
  it('names the device (the actor of a table device or betting platform), its table and the skew', () => {
    expect(deviceClockOf({ ...base, actor: { id: 'device-1', role: 'table-device' } })).toEqual({ deviceId: 'device-1', tableId: 'T-CLASSIC-01', skewMs: 2000 });
    expect(deviceClockOf({ ...base, actor: { id: 'bp-1', role: 'betting-platform' } })).toEqual({ deviceId: 'bp-1', tableId: 'T-CLASSIC-01', skewMs: 2000 });
  });
  it('is null for the ledger itself, pit managers and auditors (their occurredAt is not a device clock)', () => {
    for (const role of ['system', 'pit-manager', 'auditor'] as const) expect(deviceClockOf({ ...base, actor: { id: 'x', role } })).toBeNull();
    expect(DEVICE_CLOCK_ROLES).toEqual(['table-device', 'betting-platform']);
  });
});
