import { readFileSync } from 'node:fs';
import { fromFile, Parser } from '@asyncapi/parser';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { dataDefinitionName, EVENT_DATA_SCHEMAS, EVENT_TYPES, SCHEMA_VERSIONS, type LedgerEvent, type LedgerEventType } from '@ledger/events';
import { ASYNCAPI_FILE, EVENT_SCHEMA_FILE, renderEventSchema, withEventTypes } from '../../scripts/gen-event-schemas';
import { smallShoe } from '../../libs/projections/src/testing/small-shoe.fixture';
import { syntheticLedger } from '../../libs/projections/src/testing/synthetic-shoes';

/**
 * The ledger event's JSON Schema is generated from the event catalogue (docs/guarantees.md §10):
 * the committed `ledger-event.v1.schema.json` and the AsyncAPI document's type count and list are
 * what `scripts/gen-event-schemas.ts` writes (this spec fails while they are out of date); every
 * event of a synthetic ledger validates against its type's `data` schema; a wrong `data` is refused.
 */
jest.setTimeout(60_000);

type Schema = { definitions: Record<string, object>; properties: { type: { enum: string[] } } };
const committed = (): Schema => JSON.parse(readFileSync(EVENT_SCHEMA_FILE, 'utf8'));

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats(ajv);
  return ajv;
}

function explain(validate: ValidateFunction, what: string): string {
  return `${what}: ${JSON.stringify(validate.errors, null, 1)}`;
}

const events: LedgerEvent[] = [
  ...smallShoe({ shoeId: 'fx-1', tableId: 'T-FX-1' }).events,
  ...syntheticLedger({ shoes: 8, seed: 7, prefix: 'evs', voidRate: 0.08, correctionRate: 0.08, exposedCardRate: 0.05, shoeVoidRate: 0.3, maxRounds: 40 }).events,
].map((e) => JSON.parse(JSON.stringify(e)));

describe('the ledger event schema, generated from the catalogue', () => {
  it('is up to date: the committed file is what the generator writes (regenerate: npx tsx scripts/gen-event-schemas.ts)', () => {
    const text = readFileSync(EVENT_SCHEMA_FILE, 'utf8');
    expect(text === renderEventSchema() ? 'up to date' : 'out of date: run `npx tsx scripts/gen-event-schemas.ts`').toBe('up to date');
  });

  it('the AsyncAPI document states the type count and lists the types as generated', async () => {
    const yaml = readFileSync(ASYNCAPI_FILE, 'utf8');
    expect(withEventTypes(yaml) === yaml ? 'up to date' : 'out of date: run `npx tsx scripts/gen-event-schemas.ts`').toBe('up to date');
    expect(yaml).toContain(`all ${EVENT_TYPES.length} types of the catalogue`);
    const doc = (await fromFile(new Parser(), ASYNCAPI_FILE).parse()).document!;
    expect(doc.components().messages().get('LedgerEvent')!.summary()).toContain(`all ${EVENT_TYPES.length} types`);
    // a document without the generated places is refused rather than silently left stale
    expect(() => withEventTypes('asyncapi: 3.0.0\n')).toThrow(/Event types/);
  });

  it('has one data schema per type of the catalogue, titled with its schema version, selected by type', () => {
    const s = committed();
    expect(s.properties.type.enum).toEqual([...EVENT_TYPES]);
    expect(Object.keys(EVENT_DATA_SCHEMAS).sort()).toEqual([...EVENT_TYPES].sort());
    for (const t of EVENT_TYPES) expect(s.definitions[dataDefinitionName(t)]).toMatchObject({ type: 'object', additionalProperties: false, title: `${t} data (v${SCHEMA_VERSIONS[t]})` });
  });

  describe('validates events', () => {
    const s = committed();
    const envelope = newAjv().compile(s);
    const data = new Map<LedgerEventType, ValidateFunction>(EVENT_TYPES.map((t) => [t, newAjv().compile({ definitions: s.definitions, $ref: `#/definitions/${dataDefinitionName(t)}` })]));

    it('every event of the fixture shoe and of a synthetic ledger: its data against its type’s data schema, the whole against the envelope', () => {
      const seen = new Set<string>();
      for (const e of events) {
        const v = data.get(e.type)!;
        if (!v(e.data)) throw new Error(explain(v, `${e.type} ${e.eventId} data`));
        if (!envelope(e)) throw new Error(explain(envelope, `${e.type} ${e.eventId}`));
        seen.add(e.type);
      }
      expect(seen.size).toBeGreaterThanOrEqual(18);
    });

    it('a wrong data shape is refused: an unknown field, a required field missing, a field of the wrong type, another type’s data', () => {
      const byType = new Map<string, LedgerEvent>();
      for (const e of events) if (!byType.has(e.type)) byType.set(e.type, e);
      let refused = 0;
      for (const e of byType.values()) {
        const v = data.get(e.type)!;
        const d = e.data as unknown as Record<string, unknown>;
        const required = (EVENT_DATA_SCHEMAS[e.type] as { required?: readonly string[] }).required ?? [];
        const wrong: unknown[] = [{ ...d, unexpected: 1 }, ...Object.keys(d).map((k) => ({ ...d, [k]: { nope: true } }))];
        for (const k of required) {
          const { [k]: _gone, ...rest } = d;
          wrong.push(rest);
        }
        for (const w of wrong) {
          expect({ type: e.type, data: w, valid: v(w) }).toEqual({ type: e.type, data: w, valid: false });
          expect(envelope({ ...e, data: w })).toBe(false);
          refused++;
        }
        // the data of another type under this type
        const other = [...byType.values()].find((o) => o.type !== e.type && !v(o.data));
        expect(other).toBeDefined();
        expect(envelope({ ...e, data: other!.data })).toBe(false);
      }
      expect(refused).toBeGreaterThan(100);
    });
  });
});
