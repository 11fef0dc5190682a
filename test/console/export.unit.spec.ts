import ExcelJS from 'exceljs';
import { downloadBlob, exportColumns, integerColumn, exportFilename, reconciliationWorkbook, workbookBytes, type DownloadDocument } from '../../apps/console/src/lib/export';
import type { ReportRowLike } from '../../apps/console/src/lib/report';

const rows: ReportRowLike[] = [
  {
    tableId: 'T-CLASSIC-01',
    currency: 'EUR',
    turnover: '3322000',
    payouts: '3586220',
    ggr: '-264220',
    hold: '-0.079536',
    voidedStakes: '33400',
    correctionPayoutDelta: '-38590',
    betsSettled: '1332',
    betsRefunded: '11',
    betsResettled: '20',
    roundsResulted: '179',
    roundsVoided: '1',
    corrections: '2',
  },
  {
    tableId: 'T-FAB4-01',
    currency: 'EUR',
    turnover: '2802000',
    payouts: '2449250',
    ggr: '352750',
    hold: '0.125892',
    voidedStakes: '204600',
    correctionPayoutDelta: '0',
    betsSettled: '1119',
    betsRefunded: '73',
    betsResettled: '7',
    roundsResulted: '132',
    roundsVoided: '6',
    corrections: '1',
  },
  {
    tableId: 'T-BIG',
    currency: 'JPY',
    turnover: '9007199254740993',
    payouts: '0',
    ggr: '9007199254740993',
    hold: '1.000000',
    voidedStakes: '0',
    correctionPayoutDelta: '0',
    betsSettled: '1',
    betsRefunded: '0',
    betsResettled: '0',
    roundsResulted: '1',
    roundsVoided: '0',
    corrections: '0',
  },
];

describe('integerColumn', () => {
  it('is all exact numbers while every value has at most 15 digits; empty cells stay empty', () => {
    expect(integerColumn(['2500', '-38590', '999999999999999', '-999999999999999', null, undefined])).toEqual([2500, -38590, 999999999999999, -999999999999999, null, null]);
  });

  it('turns the whole column into exact text when one value has more digits (never a column that mixes numbers and text)', () => {
    expect(integerColumn(['2500', '1000000000000000', null])).toEqual(['2500', '1000000000000000', null]);
    expect(integerColumn(['-9007199254740993', '0'])).toEqual(['-9007199254740993', '0']);
  });

  it('refuses what is not an integer of minor units (never a float)', () => {
    expect(() => integerColumn(['25.00'])).toThrow(/not an integer/);
    expect(() => integerColumn(['1e3'])).toThrow(/not an integer/);
  });
});

describe('reconciliationWorkbook', () => {
  it('writes the rows and per-currency totals that read back digit for digit', async () => {
    const query = { groupBy: ['table', 'currency'] as const, fromDay: '2026-12-01' };
    const bytes = await workbookBytes(reconciliationWorkbook(rows, { ...query, groupBy: [...query.groupBy] }, '2026-12-02T08:00:00.000Z'));
    expect(bytes[0]).toBe(0x50); // "PK": a zip
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(bytes) as unknown as ExcelJS.Buffer);
    const sheet = wb.getWorksheet('Reconciliation')!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header).toEqual([
      'Table',
      'Currency',
      'Turnover (minor units)',
      'Payouts (minor units)',
      'GGR (minor units)',
      'Hold (GGR / turnover)',
      'Voided stakes (minor units)',
      'Correction payout delta (minor units)',
      'Bets settled',
      'Bets refunded',
      'Bets resettled',
      'Rounds resulted',
      'Rounds voided',
      'Corrections',
    ]);
    const values = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
    // turnover and GGR hold a 16-digit value (the JPY row): those two columns are exact text from top to bottom; the others numbers
    expect(values(2)).toEqual(['T-CLASSIC-01', 'EUR', '3322000', 3586220, '-264220', '-0.079536', 33400, -38590, 1332, 11, 20, 179, 1, 2]);
    expect(values(4).slice(0, 5)).toEqual(['T-BIG', 'JPY', '9007199254740993', 0, '9007199254740993']);
    expect(values(5)).toEqual(['Total EUR', 'EUR', '6124000', 6035470, '88530', '0.014456', 238000, -38590, 2451, 84, 27, 311, 7, 3]);
    expect(values(6).slice(0, 5)).toEqual(['Total JPY', 'JPY', '9007199254740993', 0, '9007199254740993']);
    expect(sheet.rowCount).toBe(6);
    for (const c of [3, 5, 6]) expect(new Set([2, 3, 4, 5, 6].map((n) => typeof sheet.getRow(n).getCell(c).value))).toEqual(new Set(['string']));
    for (const c of [4, 7, 8, 9]) expect(new Set([2, 3, 4, 5, 6].map((n) => typeof sheet.getRow(n).getCell(c).value))).toEqual(new Set(['number']));
    expect(sheet.getColumn(4).numFmt).toBe('0');
    const about = wb.getWorksheet('About')!;
    expect((about.getRow(3).values as unknown[]).slice(1)).toEqual(['groupBy', 'table,currency']);
  });

  it('without a value past 15 digits every amount and count column is numbers, rows and totals alike', async () => {
    const small = rows.slice(0, 2);
    const bytes = await workbookBytes(reconciliationWorkbook(small, { groupBy: ['currency'] }, '2026-12-02T08:00:00.000Z'));
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(bytes) as unknown as ExcelJS.Buffer);
    const sheet = wb.getWorksheet('Reconciliation')!;
    expect((sheet.getRow(4).values as unknown[]).slice(1)).toEqual(['Total EUR', 6124000, 6035470, 88530, '0.014456', 238000, -38590, 2451, 84, 27, 311, 7, 3]);
    for (let c = 2; c <= 13; c++) if (c !== 5) expect([2, 3, 4].map((n) => typeof sheet.getRow(n).getCell(c).value)).toEqual(['number', 'number', 'number']);
  });

  it('refuses rows that would add currencies (no currency column)', () => {
    const noCurrency = rows.map(({ currency: _c, ...r }) => r as ReportRowLike);
    expect(() => reconciliationWorkbook(noCurrency, { groupBy: ['table'] }, '2026-12-02T08:00:00.000Z')).toThrow(/currency/);
  });
});

describe('export helpers', () => {
  it('columns follow the groups in the API order', () => {
    expect(exportColumns(['day', 'currency']).slice(0, 3)).toEqual(['gamingDay', 'currency', 'turnover']);
  });

  it('names files from the query', () => {
    expect(exportFilename({ groupBy: ['table', 'currency'], tableId: 'T 1/x', fromDay: '2026-12-01' }, 'csv')).toBe('reconciliation_table-currency_T-1-x_2026-12-01.csv');
  });

  it('downloadBlob clicks a temporary link on an object URL and revokes it', () => {
    jest.useFakeTimers();
    const events: string[] = [];
    const link = { href: '', download: '', rel: '', click: () => events.push(`click ${link.href} ${link.download}`), remove: () => events.push('remove') };
    const doc: DownloadDocument = { createElement: () => link, body: { appendChild: () => events.push('append') } };
    downloadBlob(new Blob(['a,b\n']), 'r.csv', doc, { createObjectURL: () => 'blob:1', revokeObjectURL: (u) => events.push(`revoke ${u}`) });
    jest.runAllTimers();
    expect(events).toEqual(['append', 'click blob:1 r.csv', 'remove', 'revoke blob:1']);
    jest.useRealTimers();
  });
});
