/**
 * Reports and exports answer the media type a client asks for (docs/api-versioning.md §6): a
 * generated client sets `Accept` from the document's media types, and must get CSV for
 * `Accept: text/csv` and JSON Lines for `Accept: application/x-ndjson` without knowing the
 * `format` parameter; `format` still wins when given, and no `Accept` (or `*\/*`) gets the default;
 * an `Accept` that names none of the route's types is 406 `REQUEST.NOT_ACCEPTABLE`.
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

  it("an Accept naming none of the route's types: 406 REQUEST.NOT_ACCEPTABLE; a browser's Accept (…, */*;q=0.8) still gets the default", async () => {
    const refused = async (path: string, accept: string) => {
      const r = await fetch(`${h.baseUrl}${path}`, { headers: { authorization: `Bearer ${h.client.token('auditor', 'aud-negotiation')}`, accept } });
      return { path, accept, status: r.status, code: ((await r.json()) as { error: { code: string } }).error.code };
    };
    const cases: [string, string][] = [
      [`/exports/rejections?${PERIOD}`, 'application/json'],
      ['/reports/reconciliation', 'application/xml'],
      ['/statistics/staff?fromDay=2000-01-01&toDay=2000-01-01', 'image/png'],
    ];
    for (const [path, accept] of cases) expect(await refused(path, accept)).toEqual({ path, accept, status: 406, code: 'REQUEST.NOT_ACCEPTABLE' });
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    expect(await get('/reports/reconciliation', browser)).toEqual({ status: 200, type: 'application/json' });
    expect(await get(`/exports/rejections?${PERIOD}`, browser)).toEqual({ status: 200, type: 'application/x-ndjson' });
    expect(await get('/reports/reconciliation', 'text/*')).toEqual({ status: 200, type: 'text/csv' });
    // format wins over an Accept it does not match
    expect(await get('/reports/reconciliation?format=json', 'application/xml')).toEqual({ status: 200, type: 'application/json' });
  });

  it('answerFormat: the format given, else the best accepted type, else the first without Accept; an Accept matching none is refused', () => {
    const req = (accept: string | undefined, best: string | false) => ({ headers: accept === undefined ? {} : { accept }, accepts: (types: string[]) => (best !== false && types.includes(best) ? best : false) }) as never;
    const byType = { 'application/json': 'json', 'text/csv': 'csv' } as const;
    expect(answerFormat(req('text/csv', 'text/csv'), undefined, byType)).toBe('csv');
    expect(answerFormat(req('text/csv', 'text/csv'), 'json', byType)).toBe('json');
    expect(answerFormat(req(undefined, false), undefined, byType)).toBe('json');
    expect(answerFormat(req('application/xml', false), 'csv', byType)).toBe('csv');
    expect(() => answerFormat(req('application/xml', false), undefined, byType)).toThrow(expect.objectContaining({ code: 'REQUEST.NOT_ACCEPTABLE', status: 406 }));
  });
});
