/**
 * docs/openapi.json (the console's types are generated from it, `npm run -s console:types`) is the
 * document the running API serves at `/docs-json`: a change of a route or schema without
 * `npm run -s openapi:write` fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LedgerHarness, startLedger } from '../support/ledger-harness';

jest.setTimeout(60_000);

describe('docs/openapi.json', () => {
  let h: LedgerHarness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('equals the running API’s /docs-json (run `npm run -s openapi:write` after changing a route or schema)', async () => {
    const served = await (await fetch(`${h.baseUrl}/docs-json`)).json();
    const file = JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8'));
    expect(file).toEqual(served);
  });
});
