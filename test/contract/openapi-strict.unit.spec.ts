import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { committedDocument } from '../support/openapi-contract';
import type { OpenAPIObject } from '@nestjs/swagger';
import { schemaTo31 } from '../../apps/ledger/src/common/openapi-31';
import { withOperationNames } from '../../apps/ledger/src/common/openapi-operations';

/**
 * docs/openapi.json read by a strict JSON Schema 2020-12 validator (Ajv 2020, `strict: true`), as an
 * integrator's generated client or response validator reads it (docs/api-versioning.md §6): every
 * component schema compiles with no unknown keyword, "or null" is said so that null is admitted
 * where the document allows it (a nullable reference, a nullable enum) and nowhere else, and money
 * and card fields are strings of a pattern, not free objects.
 */
describe('the OpenAPI document under a strict JSON Schema validator', () => {
  const doc = committedDocument() as unknown as { openapi: string; components: { schemas: Record<string, unknown> } };
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  // OpenAPI's own schema vocabulary beside JSON Schema's (the OpenAPI 3.1 Schema Object): annotations a validator must ignore
  ajv.addKeyword({ keyword: 'discriminator' });
  ajv.addKeyword({ keyword: 'xml' });
  ajv.addKeyword({ keyword: 'externalDocs' });
  // the components as one schema's definitions (`#/components/schemas/X` → `doc#/$defs/X`)
  const defs = JSON.parse(JSON.stringify(doc.components.schemas).replace(/"#\/components\/schemas\//g, '"doc#/$defs/')) as Record<string, object>;
  ajv.addSchema({ $id: 'doc', $defs: defs });
  const validate = (name: string, value: unknown): boolean => ajv.validate({ $ref: `doc#/$defs/${name}` }, value);

  it('is OpenAPI 3.1 and every component schema compiles strictly', () => {
    expect(doc.openapi).toBe('3.1.0');
    const bad: string[] = [];
    for (const name of Object.keys(doc.components.schemas)) {
      try {
        ajv.compile({ $ref: `doc#/$defs/${name}` });
      } catch (e) {
        bad.push(`${name}: ${(e as Error).message}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('admits null for a nullable reference and refuses a value of the wrong shape there', () => {
    const table = { tableId: 'T', name: 'n', variant: 'classic', currency: 'EUR', shoe: null, lastResults: [], beadPlate: [], bigRoad: null };
    expect(validate('TablesOverviewResponse', { tables: [table] })).toBe(true);
    expect(validate('TablesOverviewResponse', { tables: [{ ...table, shoe: 'S-1' }] })).toBe(false);
  });

  it('types a stake and a card as patterned strings', () => {
    const bet = { betId: 'B-1', accountId: 'acct-1', betCode: 'BANKER', stake: '2500', currency: 'EUR' };
    expect(validate('BetDto', bet)).toBe(true);
    expect(validate('BetDto', { ...bet, stake: { amount: 5 } })).toBe(false);
    expect(validate('BetDto', { ...bet, stake: '25.00' })).toBe(false);
    const burn = (card: unknown) => validate('BurnCardDto', { occurredAt: '2026-01-01T00:00:00Z', card });
    expect([burn('2C'), burn('10h'), burn(null)]).toEqual([true, true, true]);
    expect([burn('1C'), burn({ rank: 2 })]).toEqual([false, false]);
  });

  it('types the card lists of a correction, a dealt card, a recalled round and a hold as patterned strings', () => {
    const correction = (cards: unknown) => validate('CorrectResultDto', { reason: 'misread', cards });
    expect(correction(['2S', 'KC', '3H', '6D', 'AS'])).toBe(true);
    expect([correction(['2S', 'KC', '3H', 'XX']), correction(['2S', 'KC', '3H', 6])]).toEqual([false, false]);
    const card = (doc.components.schemas as Record<string, { properties: Record<string, Record<string, unknown>> }>).DealtCard.properties.card;
    expect(card.pattern).toBe('^(10|[2-9TJQKAtjqka])[SHDCshdc]$');
    const recall = (doc.components.schemas as Record<string, { properties: Record<string, { items?: Record<string, unknown> }> }>).RecallRound.properties.cards;
    expect(recall.items?.pattern).toBe('^(10|[2-9TJQKAtjqka])[SHDCshdc]$');
    // every list of card codes a round answers with: the player's, the banker's, the unneeded ones
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, { items?: Record<string, unknown> }> }>;
    for (const [schema, field] of ['RecallRound', 'RoundRow', 'RoundRevision'].flatMap((n) => ['playerCards', 'bankerCards', 'unneededCards'].map((f) => [n, f] as const))) {
      const prop = schemas[schema]?.properties[field];
      if (prop) expect([schema, field, prop.items?.pattern]).toEqual([schema, field, '^(10|[2-9TJQKAtjqka])[SHDCshdc]$']);
    }
    expect(['RecallRound', 'RoundRow', 'RoundRevision'].filter((n) => schemas[n]?.properties.playerCards)).toHaveLength(3);
    const hold = (doc.components.schemas as Record<string, { properties: Record<string, Record<string, unknown>> }>).ReconciliationRow.properties.hold;
    const re = new RegExp(hold.pattern as string);
    expect(['0.125892', '-0.079536', '1.000000'].every((h) => re.test(h))).toBe(true);
    expect(['0.5', '1/2', 'NaN'].some((h) => re.test(h))).toBe(false);
  });

  it('converts OpenAPI 3.0 nullability to 3.1 without losing the description', () => {
    expect(schemaTo31({ nullable: true, description: 'd', type: 'object', allOf: [{ $ref: '#/x' }] })).toEqual({ oneOf: [{ $ref: '#/x' }, { type: 'null' }], description: 'd' });
    expect(schemaTo31({ type: 'string', nullable: true, enum: ['A'], example: 'A' })).toEqual({ type: ['string', 'null'], enum: ['A', null], examples: ['A'] });
    expect(schemaTo31({ type: 'array', items: { type: 'integer', nullable: true } })).toEqual({ type: 'array', items: { type: ['integer', 'null'] } });
  });
});

describe('the OpenAPI document names its operations by hand (docs/api-versioning.md §6)', () => {
  const doc = committedDocument() as unknown as OpenAPIObject;
  const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item as Record<string, Record<string, unknown>>).map(([m, op]) => ({ key: `${m.toUpperCase()} ${path}`, op })));

  it('every operation: a unique camelCase id from no class name, a description with its roles, a declared tag', () => {
    const ids = ops.map((o) => o.op.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !/^[a-z][A-Za-z]+$/.test(id) || /Controller/.test(id))).toEqual([]);
    expect(ops.filter((o) => typeof o.op.description !== 'string' || !/(Roles: `|No token needed)/.test(o.op.description as string)).map((o) => o.key)).toEqual([]);
    const tags = new Set((doc.tags ?? []).map((t) => t.name));
    expect((doc.tags ?? []).every((t) => (t.description ?? '').length > 10)).toBe(true);
    expect(ops.filter((o) => !((o.op.tags as string[]) ?? []).every((t) => tags.has(t)) || !((o.op.tags as string[]) ?? []).length).map((o) => o.key)).toEqual([]);
    expect(doc.servers?.length).toBeGreaterThan(0);
  });

  it('documents the headers the API answers with: request id and version everywhere, Retry-After on 429 and 503, the export headers', () => {
    const r = doc.components!.responses as Record<string, { headers?: Record<string, unknown> }>;
    expect(Object.keys(r.Error429.headers ?? {})).toEqual(expect.arrayContaining(['X-Request-Id', 'API-Version', 'Retry-After']));
    expect(Object.keys(r.Error503.headers ?? {})).toContain('Retry-After');
    const exp = doc.paths['/exports/{kind}'].get!.responses['200'] as { headers?: Record<string, unknown> };
    expect(Object.keys(exp.headers ?? {})).toEqual(expect.arrayContaining(['Ledger-Export-Receipt', 'Ledger-Export-Count', 'Ledger-Report-Header']));
    const unheaded = ops.flatMap((o) =>
      Object.entries(o.op.responses as Record<string, { $ref?: string; headers?: Record<string, unknown> }>)
        .filter(([, a]) => !a.$ref && !a.headers?.['X-Request-Id'])
        .map(([s]) => `${o.key} ${s}`),
    );
    expect(unheaded).toEqual([]);
  });

  it('documents X-Correlation-Id on every answer, the caller budget on every token operation, Content-Disposition on the downloads', () => {
    const headersOf = (a: { $ref?: string; headers?: Record<string, unknown> }) =>
      Object.keys((a.$ref ? (doc.components!.responses as Record<string, { headers?: Record<string, unknown> }>)[a.$ref.split('/').pop()!] : a).headers ?? {});
    const answers = ops.flatMap((o) => Object.entries(o.op.responses as Record<string, { $ref?: string; headers?: Record<string, unknown> }>).map(([s, a]) => ({ key: `${o.key} ${s}`, op: o.op, names: headersOf(a) })));
    expect(answers.filter((a) => !a.names.includes('X-Correlation-Id')).map((a) => a.key)).toEqual([]);
    const tokenOps = answers.filter((a) => ((a.op['x-roles'] as string[] | undefined) ?? []).length > 0);
    expect(tokenOps.length).toBeGreaterThan(40);
    const limitNames = ['X-RateLimit-Limit-caller', 'X-RateLimit-Remaining-caller', 'X-RateLimit-Reset-caller'];
    expect(tokenOps.filter((a) => !limitNames.every((n) => a.names.includes(n))).map((a) => a.key)).toEqual([]);
    expect(Object.keys((doc.components!.responses as Record<string, { headers?: Record<string, unknown> }>).Error429.headers ?? {})).toContain('Retry-After-caller');
    const downloads = ['/exports/{kind}', '/reports/reconciliation', '/statistics/staff', '/reconciliation/wallet-files/{runId}/items', '/gaming-days/{day}/close'];
    expect(downloads.filter((p) => !headersOf(doc.paths[p].get!.responses['200'] as { headers?: Record<string, unknown> }).includes('Content-Disposition'))).toEqual([]);
    for (const n of [...limitNames, 'X-Correlation-Id', 'Content-Disposition', 'Retry-After-caller']) expect(doc.components!.headers?.[n]).toBeDefined();
  });

  it("gives a close's signed bytes a media type of their own, apart from the list of closes", () => {
    const content = (doc.paths['/gaming-days/{day}/close'].get!.responses['200'] as unknown as { content: Record<string, { schema: Record<string, unknown> }> }).content;
    expect(content['application/json'].schema).toEqual({ $ref: '#/components/schemas/GamingDayCloses' });
    expect(content['application/vnd.ledger.close-report+json'].schema.$ref).toBe('#/components/schemas/CloseReportBodyDto');
  });

  it('documents 406 on exactly the operations that negotiate several media types', () => {
    const negotiated = ops.filter((o) => Object.entries(o.op.responses as Record<string, { content?: Record<string, unknown> }>).some(([s, a]) => s.startsWith('2') && Object.keys(a.content ?? {}).length > 1)).map((o) => o.key);
    expect(negotiated).toEqual(expect.arrayContaining(['GET /exports/{kind}', 'GET /reports/reconciliation', 'GET /gaming-days/{day}/close']));
    expect(ops.filter((o) => (o.op.responses as Record<string, unknown>)['406'] !== undefined).map((o) => o.key)).toEqual(negotiated);
  });

  it('refuses to build a document with an operation it has no name for, or a name for no operation', () => {
    const base = (): OpenAPIObject => ({ openapi: '3.0.0', info: { title: 't', version: '1' }, paths: { '/health': { get: { responses: {} } } }, components: {} }) as OpenAPIObject;
    const extra = base();
    extra.paths['/nowhere'] = { get: { responses: {} } };
    expect(() => withOperationNames(extra)).toThrow(/GET \/nowhere has no operationId/);
    expect(() => withOperationNames(base())).toThrow(/OPERATION_IDS names POST \/tables\/\{tableId\}\/shoes, which is no operation/);
  });
});
