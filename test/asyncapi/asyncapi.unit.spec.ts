import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fromFile, Parser, type AsyncAPIDocumentInterface } from '@asyncapi/parser';
import type { ValidateFunction } from 'ajv';
import { explain, newAjv, stripParserKeys } from './asyncapi-support';
import { EVENT_TYPES, type LedgerEvent } from '@ledger/events';
import { LEDGER_RECORD_HEADERS, toKafkaMessage } from '../../libs/event-store/src/relay-record';
import { envelopeToRow } from '../../libs/event-store/src/rows';
import { anchorsTopic, LEDGER_ANCHORS_TOPIC, LEDGER_EVENTS_TOPIC, LEDGER_TOPICS } from '@ledger/infra';
import { DEFAULT_ANCHORS_TOPIC, DEFAULT_EVENTS_DLQ_TOPIC, DEFAULT_EVENTS_TOPIC, deadLetterTopicOf } from '@ledger/config';
import { ANCHOR_RECORD_KEY } from '@ledger/anchors';
import { deadLetterTopicDeclaration } from '@ledger/projections';
import { END_MARKER as CONFIG_END, START_MARKER as CONFIG_START } from '../../scripts/gen-config-docs';
import { ANALYTICS_ID_NAMESPACE, ANALYTICS_RECORD_KINDS, ANALYTICS_RECORD_TYPES, AnalyticsRecord, analyticsRecordId, analyticsRecordsOfEvents, DEFAULT_ANALYTICS_TOPICS, SCHEMA_ID_BASE, uuidV5 } from '@ledger/read-model';
import { smallShoe } from '../../libs/projections/src/testing/small-shoe.fixture';
import { syntheticLedger } from '../../libs/projections/src/testing/synthetic-shoes';
import { BET_CODES, VARIANTS } from '@ledger/rules';

/**
 * The topic documentation (docs/guarantees.md §10): `docs/asyncapi/asyncapi.yaml` parses
 * without errors, every JSON Schema next to it compiles, the documented topics are the declared
 * ones (`libs/infra/src/kafka/topics.ts`), the ledger schema covers the whole catalogue, and every
 * analytics record the projector's builders produce for the fixture shoe and a synthetic ledger
 * (all variants, voids, corrections, shoe voids) validates against its documented payload and
 * header schemas.
 */
jest.setTimeout(60_000);

const DOCS = resolve(__dirname, '../../docs/asyncapi');
const SCHEMAS = join(DOCS, 'schemas');
const schemaFiles = readdirSync(SCHEMAS).filter((f) => f.endsWith('.schema.json'));
const loadSchema = (file: string): Record<string, any> => JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8'));

const CHANNEL_OF_KIND = { 'round-outcome': 'roundOutcomes', settlement: 'settlements', roads: 'roads' } as const;

describe('AsyncAPI document', () => {
  let doc: AsyncAPIDocumentInterface;
  let diagnostics: { severity: number; code: string | number; message: string; path: (string | number)[] }[];

  beforeAll(async () => {
    const out = await fromFile(new Parser(), join(DOCS, 'asyncapi.yaml')).parse();
    diagnostics = out.diagnostics as typeof diagnostics;
    doc = out.document!;
  });

  it('parses with no error- or warning-severity diagnostics', () => {
    // Spectral severities: 0 error, 1 warning, 2 information, 3 hint
    const serious = diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.code} ${d.message} at ${d.path.join('.')}`);
    expect(serious).toEqual([]);
    expect(doc).toBeDefined();
    expect(doc.version()).toBe('3.0.0');
  });

  it('documents every topic the product writes, as the code declares them: ledger events, dead letters, anchors, analytics', () => {
    const documented = doc
      .channels()
      .all()
      .map((c) => c.address());
    const declared = [...LEDGER_TOPICS, deadLetterTopicDeclaration(deadLetterTopicOf(LEDGER_EVENTS_TOPIC)), anchorsTopic()];
    expect([...documented].sort()).toEqual(declared.map((t) => t.name).sort());
    expect(Object.values(DEFAULT_ANALYTICS_TOPICS).every((t) => documented.includes(t))).toBe(true);
    expect(documented).toEqual(expect.arrayContaining([DEFAULT_EVENTS_TOPIC, DEFAULT_EVENTS_DLQ_TOPIC, DEFAULT_ANCHORS_TOPIC, LEDGER_ANCHORS_TOPIC]));
    for (const t of declared) {
      const ch = doc
        .channels()
        .all()
        .find((c) => c.address() === t.name)!;
      const kafka = ch.bindings().get('kafka')!.json();
      expect(kafka.topic).toBe(t.name);
      expect(kafka.partitions).toBe(t.partitions);
      expect(kafka.topicConfiguration).toEqual({
        'cleanup.policy': [t.configs['cleanup.policy']],
        'retention.ms': Number(t.configs['retention.ms']),
        'retention.bytes': Number(t.configs['retention.bytes']),
      });
      // every channel is written by an operation of the product
      expect(
        doc
          .operations()
          .all()
          .some(
            (o) =>
              o.action() === 'send' &&
              o
                .channels()
                .all()
                .some((c) => c.address() === t.name),
          ),
      ).toBe(true);
    }
  });

  it('documents every topic the configuration table (docs/configuration.md) names', () => {
    const readme = readFileSync(resolve(__dirname, '../../docs/configuration.md'), 'utf8');
    const table = readme.slice(readme.indexOf(CONFIG_START), readme.indexOf(CONFIG_END));
    const named = new Set(table.match(/baccarat\.[a-z0-9.-]+\.v[0-9]+/g));
    expect(named.size).toBeGreaterThanOrEqual(6);
    const documented = doc
      .channels()
      .all()
      .map((c) => c.address());
    expect(documented).toEqual(expect.arrayContaining([...named]));
  });

  it('documents for every message: key, header names, de-duplication header, payload schema by $id', () => {
    let n = 0;
    for (const ch of doc.channels().all()) {
      for (const m of ch.messages().all()) {
        n++;
        const key = m.bindings().get('kafka')!.json();
        expect(m.correlationId()?.location()).toMatch(/^\$message\.header#\//);
        expect(m.schemaFormat()).toBe('application/schema+json;version=draft-07');
        const payload = stripParserKeys(m.payload()!.json()) as { schema?: { $id?: string } };
        expect(payload.schema?.$id).toMatch(new RegExp(`^${SCHEMA_ID_BASE.replace(/\./g, '\\.')}`));
        if (m.name() === 'DeadLetter') {
          // a refused record's key and headers as read, plus the dlq_* headers
          expect(key.key.type).toEqual(['string', 'null']);
          continue;
        }
        if (m.name() === 'AnchorCheckpoint') expect(key.key).toMatchObject({ type: 'string', const: ANCHOR_RECORD_KEY });
        else {
          expect(key.key).toMatchObject({ type: 'string' });
          expect(key['x-key-location']).toBe('$message.payload#/tableId');
        }
        expect(m.correlationId()?.location()).toBe('$message.header#/ce_id');
        const headers = stripParserKeys(m.headers()!.json()) as { required?: string[]; allOf?: { required?: string[] }[] };
        const required = [...(headers.required ?? []), ...(headers.allOf ?? []).flatMap((s) => s.required ?? [])];
        // the CloudEvents Kafka binding's required attributes (binary content mode) and the content type
        expect(required).toEqual(expect.arrayContaining(['ce_specversion', 'ce_id', 'ce_type', 'ce_source', 'content-type']));
      }
    }
    expect(n).toBe(7);
  });
});

describe('JSON Schemas (docs/asyncapi/schemas)', () => {
  it('every file is a valid draft-07 JSON Schema with a unique $id named after the file', () => {
    expect(schemaFiles.sort()).toEqual(
      [
        'analytics-headers.v1.schema.json',
        'anchor-checkpoint.v1.schema.json',
        'anchor-headers.v1.schema.json',
        'dead-letter-headers.v1.schema.json',
        'dead-letter.v1.schema.json',
        'ledger-event-headers.v1.schema.json',
        'ledger-event.v1.schema.json',
        'roads.v1.schema.json',
        'round-outcome.v1.schema.json',
        'settlement.v1.schema.json',
      ].sort(),
    );
    const ids = new Set<string>();
    for (const f of schemaFiles) {
      const s = loadSchema(f);
      expect(s.$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(s.$id).toBe(`${SCHEMA_ID_BASE}${f}`);
      ids.add(s.$id);
      const ajv = newAjv();
      expect(ajv.validateSchema(s)).toBe(true);
      expect(() => ajv.compile(s)).not.toThrow();
    }
    expect(ids.size).toBe(schemaFiles.length);
  });

  it('the payload schemas are the ones the records name in ce_dataschema', () => {
    for (const kind of ANALYTICS_RECORD_KINDS) {
      const t = ANALYTICS_RECORD_TYPES[kind];
      expect(loadSchema(t.schemaFile).$id).toBe(t.dataSchema);
    }
  });

  it('the ledger event schema covers the whole catalogue, every bet code and variant', () => {
    const s = loadSchema('ledger-event.v1.schema.json');
    expect([...s.properties.type.enum].sort()).toEqual([...EVENT_TYPES].sort());
    for (const t of EVENT_TYPES) expect(s.definitions[`${t}Data`]).toBeDefined();
    const allCodes = new Set(Object.values(BET_CODES).flat());
    expect(new Set(s.definitions.BetPlacedData.properties.betCode.enum)).toEqual(allCodes);
    expect(new Set(loadSchema('settlement.v1.schema.json').properties.betCode.enum)).toEqual(allCodes);
    expect(loadSchema('round-outcome.v1.schema.json').properties.variant.enum).toEqual([...VARIANTS]);
  });
});

describe('records validate against the documented schemas', () => {
  const fixture = [...smallShoe({ shoeId: 'fx-1', tableId: 'T-FX-1' }).events];
  const synthetic = syntheticLedger({ shoes: 6, seed: 5, prefix: 'aapi', voidRate: 0.08, correctionRate: 0.08, exposedCardRate: 0.03, shoeVoidRate: 0.34, maxRounds: 40 }).events;
  let doc: AsyncAPIDocumentInterface;
  let fixtureRecords: AnalyticsRecord[];
  let syntheticRecords: AnalyticsRecord[];

  beforeAll(async () => {
    doc = (await fromFile(new Parser(), join(DOCS, 'asyncapi.yaml')).parse()).document!;
    fixtureRecords = await analyticsRecordsOfEvents(fixture);
    syntheticRecords = await analyticsRecordsOfEvents(synthetic);
  });

  const validators = (kind: keyof typeof CHANNEL_OF_KIND) => {
    const message = doc.channels().get(CHANNEL_OF_KIND[kind])!.messages().all()[0];
    const payload = newAjv().compile(loadSchema(ANALYTICS_RECORD_TYPES[kind].schemaFile));
    const headers = newAjv().compile(stripParserKeys(message.headers()!.json()));
    return { payload, headers };
  };

  const check = (records: readonly AnalyticsRecord[]) => {
    const v = Object.fromEntries(ANALYTICS_RECORD_KINDS.map((k) => [k, validators(k)]));
    for (const r of records) {
      const value = JSON.parse(r.value) as { tableId: string; recordId: string; sourceEventId: string; occurredAt: string; schemaVersion: number };
      const { payload, headers } = v[r.kind];
      if (!payload(value)) throw new Error(explain(payload, `${r.kind} ${r.value}`));
      if (!headers(r.headers)) throw new Error(explain(headers, `${r.kind} headers ${JSON.stringify(r.headers)}`));
      expect(r.key).toBe(value.tableId);
      expect(r.headers.ce_id).toBe(value.recordId);
      expect(r.headers.ce_id).toBe(analyticsRecordId(r.kind, value.sourceEventId));
      expect(r.headers.ce_source).toBe(`/tables/${value.tableId}`);
      expect(r.headers.ce_time).toBe(value.occurredAt);
      expect(r.headers.schema_version).toBe(String(value.schemaVersion));
    }
    expect(new Set(records.map((r) => r.ceId)).size).toBe(records.length);
  };

  it('the fixture shoe: 8 outcomes (3 resulted, a voided and a corrected hand, a cut-card void), 8 roads, 20 settlements, all valid', () => {
    check(fixtureRecords);
    const outcomes = fixtureRecords.filter((r) => r.kind === 'round-outcome').map((r) => JSON.parse(r.value));
    expect(outcomes.map((o) => [o.roundId, o.status, o.revision, o.winner])).toEqual([
      ['fx-1-R1', 'RESULTED', 1, 'PLAYER'],
      ['fx-1-R2', 'RESULTED', 1, 'BANKER'],
      ['fx-1-R3', 'RESULTED', 1, 'TIE'],
      ['fx-1-R4', 'RESULTED', 1, 'PLAYER'],
      ['fx-1-R4', 'VOIDED', 2, null],
      ['fx-1-R5', 'RESULTED', 1, 'PLAYER'],
      ['fx-1-R5', 'CORRECTED', 2, 'BANKER'],
      ['fx-1-R6', 'VOIDED', 1, null],
    ]);
    expect(outcomes[0]).toMatchObject({ dealerId: 'D-ANNA', gamingDay: '2025-02-28', cards: ['9S', '7H', 'KD', 'QC'], playerTotal: 9, bankerTotal: 7, natural: true });
    expect(outcomes[6]).toMatchObject({ cards: ['6C', '8D', 'KH', 'QS'], playerTotal: 6, bankerTotal: 8, dealerId: 'D-BORIS', gamingDay: '2025-03-01' });
    const settlements = fixtureRecords.filter((r) => r.kind === 'settlement').map((r) => JSON.parse(r.value));
    expect(settlements.filter((s) => s.status === 'SETTLED')).toHaveLength(14);
    expect(settlements.filter((s) => s.status === 'RESETTLED')).toHaveLength(3);
    expect(settlements.filter((s) => s.status === 'REFUNDED').map((s) => [s.betId, s.refundedStake, s.revision])).toEqual([
      ['fx-1-B4-1', '500', 1],
      ['fx-1-B4-2', '100', 1],
      ['fx-1-B6-1', '100', 0],
    ]);
    expect(settlements.find((s) => s.betId === 'fx-1-B2-3')).toMatchObject({ result: 'WIN', stake: '15', winnings: '14', payout: '29', net: '14', dropped: '1/4' });
    const lastRoads = JSON.parse(fixtureRecords.filter((r) => r.kind === 'roads').at(-1)!.value);
    expect(lastRoads.beadPlate.map((b: { result: string }) => b.result)).toEqual(['P', 'B', 'T', 'B']);
    expect(lastRoads.bigEyeBoy.entries).toEqual([{ colour: 'BLUE', column: 1, row: 1 }]);
  });

  it('a synthetic ledger of every variant with voids, corrections and shoe voids: every record valid', () => {
    expect(syntheticRecords.length).toBeGreaterThan(500);
    const statuses = new Set(syntheticRecords.filter((r) => r.kind !== 'roads').map((r) => JSON.parse(r.value).status));
    expect(statuses).toEqual(new Set(['RESULTED', 'CORRECTED', 'VOIDED', 'SETTLED', 'RESETTLED', 'REFUNDED']));
    expect(new Set(syntheticRecords.filter((r) => r.kind === 'round-outcome').map((r) => JSON.parse(r.value).variant))).toEqual(new Set(VARIANTS));
    check(syntheticRecords);
  });

  it('records are deterministic: built again, byte-identical with the same ce_id', async () => {
    const again = await analyticsRecordsOfEvents(fixture);
    expect(again).toEqual(fixtureRecords);
  });

  it('the examples in the document validate against their message schemas', () => {
    let n = 0;
    for (const ch of doc.channels().all()) {
      for (const m of ch.messages().all()) {
        const payloadSchema = stripParserKeys((m.payload()!.json() as { schema: object }).schema);
        const payload = newAjv().compile(payloadSchema);
        const headers = newAjv().compile(stripParserKeys(m.headers()!.json()));
        for (const ex of m.examples().all()) {
          if (!payload(ex.payload())) throw new Error(explain(payload, `${m.id()} example ${ex.name()}`));
          if (!headers(ex.headers())) throw new Error(explain(headers, `${m.id()} example ${ex.name()} headers`));
          n++;
        }
      }
    }
    expect(n).toBeGreaterThanOrEqual(6);
  });

  it('ledger events and the relay’s headers validate against the ledger topic’s schemas', () => {
    const envelope = newAjv().compile(loadSchema('ledger-event.v1.schema.json'));
    const headers = newAjv().compile(loadSchema('ledger-event-headers.v1.schema.json'));
    const events: LedgerEvent[] = [...fixture, ...synthetic];
    expect(new Set(events.map((e) => e.type)).size).toBeGreaterThanOrEqual(18);
    for (const e of events) {
      if (!envelope(JSON.parse(JSON.stringify(e)))) throw new Error(explain(envelope, `${e.type} ${e.eventId}`));
      const row = envelopeToRow(e);
      const message = toKafkaMessage(row);
      // as a consumer reads them: header values as text
      const asRead = Object.fromEntries(Object.entries(message.headers!).map(([k, v]) => [k, v.toString()]));
      if (!headers(asRead)) throw new Error(explain(headers, `relay headers of ${e.type}`));
      // exactly the documented headers, each once: the binding's required attributes, content-type, ledger-sig
      expect(Object.keys(asRead)).toEqual([...LEDGER_RECORD_HEADERS]);
      expect(asRead.ce_id).toBe(e.eventId);
      expect(asRead.ce_source).toBe(`/tables/${e.tableId}`);
      expect(asRead.ce_type).toBe(`baccarat.ledger.${e.type}.v${e.schemaVersion}`);
      const value = JSON.parse(message.value!.toString());
      if (!envelope(value)) throw new Error(explain(envelope, `relay value of ${e.type}`));
      expect(value).toEqual(JSON.parse(JSON.stringify(e)));
      // the header set of older relays (a replay of an old topic) is documented too
      const legacy = { ...asRead, ce_subject: e.streamId, ce_time: e.occurredAt, schema_version: String(e.schemaVersion), global_position: e.globalPosition };
      if (!headers(legacy)) throw new Error(explain(headers, `older relay headers of ${e.type}`));
    }
    expect([...loadSchema('ledger-event-headers.v1.schema.json').required].sort()).toEqual([...LEDGER_RECORD_HEADERS].sort());
    // and nothing undocumented
    expect(headers({ ...Object.fromEntries(LEDGER_RECORD_HEADERS.map((h) => [h, 'x'])), extra: 'y' })).toBe(false);
  });

  it('evidence (docs/reports.md §7): table facts and decisions with evidence validate; malformed evidence does not', () => {
    const envelope = newAjv().compile(loadSchema('ledger-event.v1.schema.json'));
    const events: LedgerEvent[] = [...fixture, ...synthetic];
    const evidence = { cameraId: 'CAM-07', timecode: '21:04:10:12', segmentRef: 'vms://site-1/cam-07/clip-42' };
    const withEvidence = (e: LedgerEvent, ev: unknown): unknown => {
      const d = e.data as unknown as Record<string, unknown>;
      if (d.decision && typeof d.decision === 'object') return { ...e, data: { ...d, decision: { ...(d.decision as object), evidence: ev } } };
      return { ...e, data: { ...d, evidence: ev } };
    };
    const carriers = ['CardDealt', 'CardExposed', 'CardDropped', 'UnneededCardDrawn', 'CutCardDrawn', 'CardBurned', 'CommencementCardDrawn', 'RoundVoided', 'ResultCorrected', 'ShoeVoided', 'DecisionRequested', 'DecisionApproved'];
    let checked = 0;
    for (const e of events) {
      if (!carriers.includes(e.type)) continue;
      if (e.type === 'RoundVoided' && (e.data as { decision: unknown }).decision === null) continue;
      checked++;
      const good = JSON.parse(JSON.stringify(withEvidence(e, evidence)));
      if (!envelope(good)) throw new Error(explain(envelope, `${e.type} with evidence`));
      for (const bad of [{}, { cameraId: 'CAM 7' }, { timecode: '24:00:00:00' }, { timecode: '2026-11-29T21:04:10.123Z' }, { segmentRef: 'a b' }, { cameraId: 'C', extra: 1 }]) {
        expect(envelope(JSON.parse(JSON.stringify(withEvidence(e, bad))))).toBe(false);
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('ce_id is a name-based UUIDv5 (RFC 9562 test vector) in a fixed namespace', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(ANALYTICS_ID_NAMESPACE).toBe('3d0f6b3e-8a51-4c1e-9b7a-5f2c9e4d7a10');
    expect(analyticsRecordId('round-outcome', 'e-1')).not.toBe(analyticsRecordId('roads', 'e-1'));
  });
});
