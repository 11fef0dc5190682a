import { decodeIdCursor, decodePositionCursor, decodeTimePositionCursor, encodeCursor } from './pagination';
import { isGamingDay, isIntegerText, isIsoTime } from './query.dto';

describe('read-side query checks (docs/guarantees.md §11)', () => {
  it('gaming days must exist, in a four-digit year (Date.UTC reads 0..99 as 19xx)', () => {
    expect(['2026-12-02', '2024-02-29', '1000-01-01', '9999-12-31'].map(isGamingDay)).toEqual([true, true, true, true]);
    expect(['2026-13-45', '2026-02-30', '2025-02-29', '0000-00-00', '99999-01-01', '-000001-01-01', '2026-1-1', '', 'yesterday', '2026-12-02\u0000', '0001-01-01', '0099-12-31', '0999-12-31'].map(isGamingDay)).toEqual(
      Array(13).fill(false),
    );
    expect(isGamingDay(['2026-12-02'])).toBe(false);
  });

  it('times must be ISO-8601 of years 1000..9999 with a real clock and, with a clock, an offset', () => {
    expect(['2026-12-02T10:00:00Z', '2026-12-02T10:00:00.123Z', '2026-12-02T10:00+01:00', '2026-12-02'].map(isIsoTime)).toEqual([true, true, true, true]);
    expect(
      [
        '+275760-09-13T00:00:00.001Z',
        '99999-01-01',
        '2026-12-02T25:61:61Z',
        '2026-02-30T00:00:00Z',
        '1',
        '20261202',
        'NaN',
        '',
        '1000-01-01T00:00:00+23:59',
        '9999-12-31T23:59:59-23:59',
        '2026-12-02T10:00:00',
        '2026-12-02T10:00',
        '0001-01-01T00:00:00Z',
      ].map(isIsoTime),
    ).toEqual(Array(13).fill(false));
  });

  it('integers are plain decimal text in range', () => {
    expect(['1', '1000', '0'].map((v) => isIntegerText(v, 0, 1000))).toEqual([true, true, true]);
    expect(['1001', '-1', '-0', '1e3', '0x10', '1.5', ' 1', '01', 'NaN', 'Infinity', '9007199254740993', ''].map((v) => isIntegerText(v, 0, 1000))).toEqual(Array(12).fill(false));
    expect(isIntegerText('9007199254740993', 0, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('cursors decode only to the keys this API writes', () => {
    expect(decodePositionCursor(encodeCursor('42'))).toBe('42');
    expect(decodeIdCursor(encodeCursor('b-1'))).toBe('b-1');
    for (const key of ['abc', '1.5', '-5', '99999999999999999999', '\u0000', 1, [1], { a: 1 }, true]) {
      expect(() => decodePositionCursor(encodeCursor(key))).toThrow(expect.objectContaining({ code: 'VALIDATION.FAILED' }));
    }
    for (const key of ['a b', '\u0000', 1, [1], { a: 1 }]) expect(() => decodeIdCursor(encodeCursor(key))).toThrow(expect.objectContaining({ code: 'VALIDATION.FAILED' }));
    expect(() => decodePositionCursor('not-base64-!!')).toThrow(expect.objectContaining({ code: 'VALIDATION.FAILED' }));
  });

  it("a time-ordered page's cursor decodes only to [time with microseconds, position], never to a global-order page's", () => {
    expect(decodeTimePositionCursor(encodeCursor(['2026-12-02T10:00:00.123456Z', '42']))).toEqual({ time: '2026-12-02T10:00:00.123456Z', position: '42' });
    expect(decodeTimePositionCursor(undefined)).toBeNull();
    for (const key of [
      '42',
      ['2026-12-02T10:00:00.123Z', '42'],
      ['2026-12-02T10:00:00.123456Z', 42],
      ['2026-12-02T10:00:00.123456Z', '99999999999999999999'],
      ['2026-13-02T10:00:00.123456Z', '42'],
      ['2026-12-02T10:00:00.123456Z', '42', 'x'],
      ["2026-12-02T10:00:00.123456Z'", '42'],
      { time: '2026-12-02T10:00:00.123456Z', position: '42' },
    ]) {
      expect(() => decodeTimePositionCursor(encodeCursor(key))).toThrow(expect.objectContaining({ code: 'VALIDATION.FAILED' }));
    }
  });
});
