import { parse } from 'csv-parse/sync';
import { Readable } from 'node:stream';
import { csvAnswer, csvFieldValue, csvStream, csvText, neutraliseCsvField } from './csv';

/** The spreadsheet-safe CSV of every answer (docs/reports.md §8). */
describe('neutraliseCsvField', () => {
  it('marks every field that starts with = + - @ tab or CR with one leading quote', () => {
    expect(neutraliseCsvField('=HYPERLINK("http://x")')).toBe(`'=HYPERLINK("http://x")`);
    expect(neutraliseCsvField("+cmd|' /C calc'!A0")).toBe(`'+cmd|' /C calc'!A0`);
    expect(neutraliseCsvField('@SUM(1)')).toBe("'@SUM(1)");
    expect(neutraliseCsvField('-2+3')).toBe("'-2+3");
    expect(neutraliseCsvField('-2-3')).toBe("'-2-3");
    expect(neutraliseCsvField('\t=1')).toBe("'\t=1");
    expect(neutraliseCsvField('\r=1')).toBe("'\r=1");
    expect(neutraliseCsvField('-')).toBe("'-");
    expect(neutraliseCsvField('+150')).toBe("'+150");
    expect(neutraliseCsvField('-1e5+1')).toBe("'-1e5+1");
  });

  it('leaves plain numbers (a spreadsheet reads them as numbers, no formula) and every other field as they are', () => {
    for (const v of ['-150', '-0.079536', '-1.5e-7', '-2E+3', '0', '150', '9007199254740993', '', 'acct-1', 'a=b', ' =1', '{"a":"=x"}', 'T-CLASSIC-01', '2026-12-01T06:00:00.000Z']) expect(neutraliseCsvField(v)).toBe(v);
  });

  it('marks a field that already starts with a quote once more, so that dropping one leading quote always gives the value back', () => {
    expect(neutraliseCsvField("'=1")).toBe("''=1");
    expect(neutraliseCsvField("'quoted")).toBe("''quoted");
    const values = ['=1', "'=1", "''", "'", '-150', '-2+3', 'plain', '', '@', "'-150", '\t', "x'"];
    for (const v of values) expect(csvFieldValue(neutraliseCsvField(v))).toBe(v);
    // and every neutralised field is safe: none starts with a formula character unless it is a plain number
    for (const v of values) expect(/^[=+@\t\r]/.test(neutraliseCsvField(v)) || /^-(?!\d+(\.\d+)?$)/.test(neutraliseCsvField(v))).toBe(false);
  });
});

describe('csvText, csvStream, csvAnswer: every writer neutralises every field', () => {
  const rows = [
    { id: '=1+1', amount: '-150', ok: true, n: -2, big: -3n, when: new Date(Date.UTC(2026, 0, 1)), data: { a: '=x' }, none: null },
    { id: 'plain', amount: '2500', ok: false, n: 1.5, big: 4n, when: null, data: null, none: undefined },
  ];
  const columns = ['id', 'amount', 'ok', 'n', 'big', 'when', 'data', 'none'];

  it('csvText: a header line, then the records; strings neutralised, numbers and casts as csv-stringify writes them', () => {
    const text = csvText(rows, { columns });
    expect(text).toBe(['id,amount,ok,n,big,when,data,none', `'=1+1,-150,1,-2,-3,${Date.UTC(2026, 0, 1)},"{""a"":""=x""}",`, 'plain,2500,,1.5,4,,,', ''].join('\n'));
    // arrays without columns: no header line
    expect(
      csvText([
        ['@a', '-1'],
        ['b', "'c"],
      ]),
    ).toBe("'@a,-1\nb,''c\n");
  });

  it('quotes a field holding ; so that a spreadsheet splitting on ; keeps it one cell (no cell that starts with =)', () => {
    const text = csvText([['acc;=1+1', 'plain', 'x;y']]);
    expect(text).toBe('"acc;=1+1",plain,"x;y"\n');
    expect(parse(text)).toEqual([['acc;=1+1', 'plain', 'x;y']]);
  });

  it('a cast of the caller is applied first, then the neutralising (also on a cast that answers options)', () => {
    expect(csvText([{ b: true, s: 'x' }], { columns: ['b', 's'], cast: { boolean: (v) => String(v), string: (v, c) => (c.header ? v : `=${v}`) } })).toBe("b,s\ntrue,'=x\n");
    expect(csvText([{ s: 'x' }], { columns: ['s'], header: false, cast: { string: (v) => ({ value: `+${v}`, quoted: true }) } })).toBe(`"'+x"\n`);
  });

  it('csvStream: the same fields as csvText', async () => {
    const chunks: string[] = [];
    for await (const c of Readable.from(rows).pipe(csvStream({ columns }))) chunks.push(String(c));
    expect(chunks.join('')).toBe(csvText(rows, { columns }));
  });

  it('csvAnswer: text/csv, the attachment, and the neutralised rows a CSV reader reads back to the values', () => {
    const headers = new Map<string, string>();
    const body = csvAnswer({ setHeader: (k, v) => headers.set(k, v) }, 'x.csv', [{ reason: '-2+3', ggr: '-150' }], ['reason', 'ggr']);
    expect(Object.fromEntries(headers)).toEqual({ 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="x.csv"' });
    const [record] = parse(body, { columns: true }) as Record<string, string>[];
    expect(record).toEqual({ reason: "'-2+3", ggr: '-150' });
    expect(csvFieldValue(record.reason)).toBe('-2+3');
  });
});
