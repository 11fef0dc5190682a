import { ResponseContract } from '../support/openapi-contract';

/**
 * The contract checker itself (test/support/openapi-contract.ts) against the committed
 * docs/openapi.json (docs/architecture.md §4): it must refuse what breaks the document, or the e2e
 * tier's "every answer validated" would prove nothing.
 */
describe('ResponseContract over docs/openapi.json', () => {
  let c: ResponseContract;
  beforeAll(async () => {
    c = await ResponseContract.create();
  });
  const json = (method: string, url: string, status: number, body: unknown) => c.check({ method, url, status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) });
  const err = (code: string) => ({ error: { code, message: 'm', details: {} }, correlationId: 'c' });
  const written = { shoeId: 's', tableId: 't', streamVersion: 1, events: [{ eventId: 'e', type: 'ShoeOpened', streamVersion: 1, globalPosition: '7', data: {} }] };

  it('accepts a documented answer and a documented error', () => {
    expect(json('POST', '/tables/T-01/shoes', 201, written).problems).toEqual([]);
    expect(json('POST', '/shoes/s/burns', 422, err('SHOE.CLOSED')).problems).toEqual([]);
    expect(json('GET', '/shoes?limit=2', 401, err('AUTH.UNAUTHENTICATED')).problems).toEqual([]);
    expect(json('GET', '/nowhere', 404, err('ROUTE.NOT_FOUND')).problems).toEqual([]);
  });

  it('admits null where a nullable object is documented, and nothing else there', () => {
    const table = { tableId: 'T', name: 'n', variant: 'classic', currency: 'EUR', shoe: null, lastResults: [], beadPlate: [], bigRoad: null };
    expect(json('GET', '/tables/overview', 200, { tables: [table] }).problems).toEqual([]);
    expect(json('GET', '/tables/overview', 200, { tables: [{ ...table, shoe: 'S-1' }] }).problems.join()).toMatch(/shoe/);
    const s = { betId: 'b' };
    const problemsOf = (result: unknown) => json('GET', '/settlements/b', 200, { ...s, result }).problems.filter((p) => p.includes('/result '));
    expect(problemsOf(null)).toEqual([]);
    expect(problemsOf('WIN')).toEqual([]);
    expect(problemsOf('MAYBE').join()).toMatch(/allowed values/);
  });

  it('refuses a field the document does not name, a missing field and a wrong type', () => {
    expect(json('POST', '/tables/T-01/shoes', 201, { ...written, extra: 1 }).problems.join()).toMatch(/additional/);
    expect(json('POST', '/tables/T-01/shoes', 201, { ...written, events: undefined }).problems.join()).toMatch(/required/);
    expect(json('POST', '/tables/T-01/shoes', 201, { ...written, streamVersion: '1' }).problems.join()).toMatch(/integer/);
  });

  it('refuses an undocumented status, an error code outside the table and an undocumented content type', () => {
    expect(json('POST', '/tables/T-01/shoes', 418, err('SHOE.CLOSED')).problems.join()).toMatch(/not documented/);
    expect(json('POST', '/shoes/s/burns', 422, err('NO.SUCH_CODE')).problems.join()).toMatch(/allowed values/);
    expect(c.check({ method: 'GET', url: '/shoes', status: 200, contentType: 'text/html', body: '<p>' }).problems.join()).toMatch(/content type text\/html/);
  });

  it('refuses a success on no route and checks CSV, SSE and metrics by their type', () => {
    expect(json('GET', '/nowhere', 200, {}).problems.join()).toMatch(/no operation/);
    expect(c.check({ method: 'GET', url: '/reports/reconciliation?format=csv', status: 200, contentType: 'text/csv; charset=utf-8', body: '' }).problems.join()).toMatch(/header line/);
    expect(c.check({ method: 'GET', url: '/live/tables', status: 200, contentType: 'text/event-stream', body: null }).problems).toEqual([]);
    expect(c.check({ method: 'GET', url: '/metrics', status: 200, contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '# HELP x\n' }).problems).toEqual([]);
    expect(c.check({ method: 'GET', url: '/metrics', status: 200, contentType: 'application/json', body: '{}' }).problems.join()).toMatch(/not documented/);
  });
});
