import { ApiError } from './api-error';
import { parseWindow } from './pagination';

/** The code and details of what `parseWindow` throws for `q`. */
function refusal(q: { from?: string; to?: string }) {
  try {
    parseWindow(q);
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, details: e.details };
    throw e;
  }
  throw new Error('not refused');
}

describe('parseWindow', () => {
  it('gives the half-open window as UTC times, either end open', () => {
    expect(parseWindow({ from: '2026-12-01T06:00:00+01:00', to: '2026-12-02T05:00:00Z' })).toEqual({ from: '2026-12-01T05:00:00.000Z', to: '2026-12-02T05:00:00.000Z' });
    expect(parseWindow({ from: '2026-12-01T06:00:00Z' })).toEqual({ from: '2026-12-01T06:00:00.000Z', to: null });
    expect(parseWindow({})).toEqual({ from: null, to: null });
  });

  it('refuses a reversed or empty window (400 VALIDATION.FAILED with both ends), compared as instants, not as text', () => {
    expect(refusal({ from: '2026-12-08T00:00:00Z', to: '2026-12-01T00:00:00Z' })).toEqual({
      code: 'VALIDATION.FAILED',
      details: { problems: ['from must be before to'], from: '2026-12-08T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' },
    });
    expect(refusal({ from: '2026-12-01T00:00:00Z', to: '2026-12-01T00:00:00Z' }).code).toBe('VALIDATION.FAILED');
    // 06:00+02:00 is 04:00Z: before 05:00Z, though its text sorts after
    expect(parseWindow({ from: '2026-12-01T06:00:00+02:00', to: '2026-12-01T05:00:00Z' })).toEqual({ from: '2026-12-01T04:00:00.000Z', to: '2026-12-01T05:00:00.000Z' });
  });
});
