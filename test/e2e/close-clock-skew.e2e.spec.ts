/**
 * The gaming-day close states the largest device clock skew of the day per table (docs/reports.md §2,
 * docs/architecture.md §9 "Time the ledger vouches for"), through the real API, relay and projector:
 * a table device whose clock runs behind the ledger's opens a shoe and reports facts at the table;
 * the day's early close (four eyes) signs, per table of its set, the event with the largest
 * |occurredAt − recordedAt|, its device and position, and its GamingDayClosed event states the same;
 * the close route shows it, the signature verifies, the bytes are computed again from the events, and
 * the same close in layout 1 has no clock skew.
 */
import { clockSkewMs } from '@ledger/events';
import { publicKeyId, readPublicKeys } from '@ledger/anchors';
import { GamingDayCloseService } from '../../apps/ledger/src/gaming-day-close/gaming-day-close.service';
import { CloseComputation } from '../../apps/ledger/src/gaming-day-close/close-computation.service';
import { canonicalReportBytes, verifyReport } from '../../apps/ledger/src/kernel/closes/close-report';
import { CloseRecords } from '../../apps/ledger/src/kernel/closes/close-records';
import { LedgerHarness, runId, startLedger } from '../support/ledger-harness';
import { waitApplied, waitAsOf } from '../support/shoe-steps';

jest.setTimeout(240_000);

describe('gaming-day close: the largest device clock skew of the day per table, signed', () => {
  let h: LedgerHarness;
  const shoeId = runId('skewclose');
  const token = (role: 'auditor' | 'pit-manager', sub: string) => h.client.token(role, sub);
  const call = (method: string, path: string, sub: string, body?: unknown) =>
    fetch(`${h.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token(sub.startsWith('aud') ? 'auditor' : 'pit-manager', sub)}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    h = await startLedger({ env: { GAMING_DAY_CLOSE_SWEEP_MS: '0' } });
    await h.startRelay();
    await h.startProjector();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('signs the event with the largest |skew| of the day per table, with its device and position, in the report and the event; layout 1 has none', async () => {
    const at = (behindMs: number) => new Date(Date.now() - behindMs).toISOString();
    const dev = (sub: string, path: string, body: Record<string, unknown>) => h.client.post('table-device', sub, path, body);
    await dev('device-skew-1', `/tables/T-FAB4-01/shoes`, { shoeId, dealerId: 'dealer-1', occurredAt: at(20_000) });
    await dev('device-skew-2', `/shoes/${shoeId}/commencement`, { card: '2C', occurredAt: at(3_000) });
    await dev('device-skew-1', `/shoes/${shoeId}/burns`, { card: '3C' }); // no occurredAt: the ledger's time, skew 0
    const stored = await h.store.readStream(`shoe-${shoeId}`);
    const skews = stored.map((e) => ({ e, skew: clockSkewMs(e.occurredAt, e.recordedAt) }));
    const largest = skews.reduce((a, b) => (Math.abs(b.skew) > Math.abs(a.skew) ? b : a));
    expect([largest.e.actor.id, largest.skew <= -20_000]).toEqual(['device-skew-1', true]);
    await waitApplied(h.client, stored[stored.length - 1].eventId);
    await waitAsOf(h.baseUrl, token('auditor', 'aud-1'), BigInt(stored[stored.length - 1].globalPosition));

    const day = h.app.get(GamingDayCloseService).dayOf(new Date());
    const asked = await call('POST', `/gaming-days/${day}/close`, 'pm-1', { tableIds: ['T-FAB4-01', 'T-TIGER-01'], early: true, reason: 'clock skew spec' });
    expect(asked.status).toBe(202);
    const res = await call('POST', `/gaming-days/${day}/close-requests/${((await asked.json()) as any).requestId}/approve`, 'pm-2');
    expect(res.status).toBe(201);
    const close = (await res.json()) as any;

    const expected = [
      { tableId: 'T-FAB4-01', deviceEvents: stored.length, largest: { deviceId: 'device-skew-1', skewMs: largest.skew, globalPosition: largest.e.globalPosition, eventId: largest.e.eventId } },
      { tableId: 'T-TIGER-01', deviceEvents: 0, largest: null },
    ];
    expect(close.report.header.reportVersion).toBe(3);
    expect(close.report.clockSkew).toEqual(expected);
    expect(JSON.parse(close.bytes).clockSkew).toEqual(expected);
    // signed: the signature verifies over the bytes that state it
    const pub = readPublicKeys(['.stack/anchors/anchor-public.pem']).get(close.keyId)!;
    expect(publicKeyId(pub)).toBe(close.keyId);
    expect(verifyReport(Buffer.from(close.bytes, 'utf8'), close.signature, pub)).toBe(true);
    // the event states the same, and the close route shows it
    const [event] = (await h.store.readStream(h.app.get(CloseRecords).streamOf(day))).filter((e) => e.type === 'GamingDayClosed');
    expect((event.data as any).clockSkew).toEqual(expected);
    const shown = (await (await call('GET', `/gaming-days/${day}/close?tableId=T-FAB4-01`, 'aud-1')).json()) as any;
    expect(shown.closes.map((c: any) => c.report.clockSkew)).toEqual([expected]);
    // computed again from the events at its position: the same bytes; in layout 1, no clock skew
    expect((await h.app.get(GamingDayCloseService).recompute(close)).toString('utf8')).toBe(close.bytes);
    const v1 = await h.app.get(CloseComputation).body({ gamingDay: day, tableIds: close.tableIds, throughPosition: BigInt(close.throughPosition), trigger: 'MANAGER', early: close.early, reportVersion: 1 });
    expect([v1.header.reportVersion, 'clockSkew' in v1]).toEqual([1, false]);
    expect(canonicalReportBytes(v1).toString('utf8')).not.toContain('clockSkew');
  });
});
