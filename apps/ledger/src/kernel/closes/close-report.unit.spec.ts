import { generateKeyPairSync } from 'node:crypto';
import { canonicalReportBytes, closeCsvRecords, sha256Hex, signReport, verifyReport, type CloseReportBody } from './close-report';

const body = (over: Partial<CloseReportBody> = {}): CloseReportBody => ({
  header: {
    title: 'Gaming-day close',
    report: 'gaming-day-close',
    reportVersion: 1,
    period: { from: '2026-03-01', to: '2026-03-01' },
    filters: { gamingDay: '2026-03-01' },
    software: { name: 'ledger', version: '1.0.0' },
    generatedAt: '2026-03-02T05:59:59.000Z',
    noActivity: false,
  },
  gamingDay: '2026-03-01',
  tableIds: ['T1'],
  throughPosition: '42',
  trigger: 'MANAGER',
  early: null,
  gamingDayRule: { timeZone: 'UTC', cutoffHour: 6 },
  rows: [
    {
      tableId: 'T1',
      dealerId: 'd',
      currency: 'EUR',
      turnover: '100',
      payouts: '50',
      ggr: '50',
      hold: '0.500000',
      voidedStakes: '0',
      correctionPayoutDelta: '0',
      betsSettled: '1',
      betsRefunded: '0',
      betsResettled: '0',
      roundsResulted: '1',
      roundsVoided: '0',
      corrections: '0',
      dropped: '1/2',
    },
  ],
  totals: [],
  adjustments: [],
  ...over,
});

describe('close report bytes and signature (docs/reports.md §2)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');

  it('canonical bytes do not depend on key order', () => {
    const a = body();
    const b = Object.fromEntries(Object.entries(a).reverse()) as unknown as CloseReportBody;
    expect(canonicalReportBytes(b).equals(canonicalReportBytes(a))).toBe(true);
    expect(sha256Hex(canonicalReportBytes(a))).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a signature verifies with the public key and fails on one changed byte', () => {
    const bytes = canonicalReportBytes(body());
    const sig = signReport(bytes, privateKey);
    expect(verifyReport(bytes, sig, publicKey)).toBe(true);
    const altered = Buffer.from(bytes);
    altered[altered.indexOf('100')] = '2'.charCodeAt(0);
    expect(verifyReport(altered, sig, publicKey)).toBe(false);
    expect(verifyReport(bytes, 'not base64!', publicKey)).toBe(false);
  });

  it('CSV records: rows, totals, adjustments', () => {
    const recs = closeCsvRecords(body());
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({ section: 'row', gamingDay: '2026-03-01', tableId: 'T1', dropped: '1/2' });
  });
});
