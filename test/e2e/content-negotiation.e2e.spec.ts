/**
 * Reports and exports answer the media type a client asks for (docs/api-versioning.md §6): a
 * generated client sets `Accept` from the document's media types, and must get CSV for
 * `Accept: text/csv` and JSON Lines for `Accept: application/x-ndjson` without knowing the
 * `format` parameter; `format` still wins when given, and no `Accept` (or `*\/*`) gets the default.
 * Real PostgreSQL and Kafka, the API in-process.
 */
import { answerFormat } from '../../apps/ledger/src/kernel/answer-format';
import { LedgerHarness, startLedger } from '../support/ledger-harness';

jest.setTimeout(120_000);

describe('content negotiation of the report and export answers', () => {
  let h: LedgerHarness;
  const PERIOD = `from=2000-01-01T00:00:00Z&to=${encodeURIComponent('2000-01-02T00:00:00Z')}`;

  /** GET as an auditor with `accept` (none: no header); the status and content type. */
  async function get(path: string, accept?: string): Promise<{ status: number; type: string }> {
    const headers: Record<string, string> = { authorization: `Bearer ${h.client.token('auditor', 'aud-negotiation')}` };
    if (accept !== undefined) headers.accept = accept;
    const r = await fetch(`${h.baseUrl}${path}`, { headers });
    await r.text();
    return { status: r.status, type: (r.headers.get('content-type') ?? '').split(';')[0] };
  }

  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the reconciliation and the staff statistics: CSV for Accept text/csv, JSON otherwise, format first', async () => {
    for (const path of ['/reports/reconciliation', '/statistics/staff?fromDay=2000-01-01&toDay=2000-01-01']) {
      const q = path.includes('?') ? '&' : '?';
      expect({ path, ...(await get(path, 'text/csv')) }).toEqual({ path, status: 200, type: 'text/csv' });
      expect({ path, ...(await get(path, 'application/json')) }).toEqual({ path, status: 200, type: 'application/json' });
      expect({ path, ...(await get(path)) }).toEqual({ path, status: 200, type: 'application/json' });
      expect({ path, ...(await get(path, '*/*')) }).toEqual({ path, status: 200, type: 'application/json' });
      expect({ path, ...(await get(path, 'text/csv;q=0.9, application/json;q=0.5')) }).toEqual({ path, status: 200, type: 'text/csv' });
      expect({ path, ...(await get(`${path}${q}format=json`, 'text/csv')) }).toEqual({ path, status: 200, type: 'application/json' });
    }
  });

  it('an export: JSON Lines by default or for application/x-ndjson, CSV for text/csv', async () => {
    expect(await get(`/exports/rejections?${PERIOD}`, 'text/csv')).toEqual({ status: 200, type: 'text/csv' });
    expect(await get(`/exports/rejections?${PERIOD}`, 'application/x-ndjson')).toEqual({ status: 200, type: 'application/x-ndjson' });
    expect(await get(`/exports/rejections?${PERIOD}`)).toEqual({ status: 200, type: 'application/x-ndjson' });
    expect(await get(`/exports/rejections?${PERIOD}&format=jsonl`, 'text/csv')).toEqual({ status: 200, type: 'application/x-ndjson' });
  });

  it('answerFormat: the format given, else the best accepted type, else the first', () => {
    const req = (accept: string | false) => ({ accepts: (types: string[]) => (accept === false ? false : types.includes(accept) ? accept : false) }) as never;
    const byType = { 'application/json': 'json', 'text/csv': 'csv' } as const;
    expect(answerFormat(req('text/csv'), undefined, byType)).toBe('csv');
    expect(answerFormat(req('text/csv'), 'json', byType)).toBe('json');
    expect(answerFormat(req(false), undefined, byType)).toBe('json');
  });
});
