/**
 * The topics' JSON Schemas served by the API at `GET /schemas/<file>` (schemas.controller.ts,
 * docs/architecture.md §6): every `$id` (`urn:baccarat-ledger:schemas:<file>`), every `$ref` inside
 * a schema, every `ce_dataschema` the AsyncAPI document names and the one the analytics records
 * carry resolve through the API, without a token; each answer is `application/schema+json`,
 * cacheable, with an ETag; all compile together with ajv, loaded only through the API.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { analyticsRecordsOfEvents, ANALYTICS_RECORD_KINDS, ANALYTICS_RECORD_TYPES, SCHEMA_ID_BASE, schemaServedPath } from '@ledger/read-model';
import { createTopic, deleteTopics, testKafka } from '../../libs/projections/src/testing/kafka-kit';
import { smallShoe } from '../../libs/projections/src/testing/small-shoe.fixture';
import { LedgerHarness, startLedger, TEST_BROKERS } from '../support/ledger-harness';

jest.setTimeout(120_000);

const FILES = readdirSync(join(__dirname, '../../docs/asyncapi/schemas')).filter((f) => f.endsWith('.schema.json'));

/** Every `$ref` string anywhere under `n`. */
function refsOf(n: unknown, out: string[] = []): string[] {
  if (Array.isArray(n)) n.forEach((v) => refsOf(v, out));
  else if (n && typeof n === 'object') for (const [k, v] of Object.entries(n)) k === '$ref' && typeof v === 'string' ? out.push(v) : refsOf(v, out);
  return out;
}

/** The value at a JSON pointer fragment (`#/a/b`) of `doc`, or undefined. */
function at(doc: unknown, fragment: string): unknown {
  if (fragment === '' || fragment === '/') return doc;
  return fragment
    .slice(1)
    .split('/')
    .map((t) => decodeURIComponent(t).replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((o, k) => (o === undefined || o === null ? undefined : o[k]), doc);
}

describe('GET /schemas: the topics JSON Schemas, resolvable by $id', () => {
  let h: LedgerHarness;
  const fetched = new Map<string, Record<string, any>>();

  /** The schema of `id` fetched through the API (no token), its answer's headers checked. */
  async function resolveId(id: string): Promise<Record<string, any>> {
    const path = schemaServedPath(id);
    if (!path) throw new Error(`${id} is not a ledger schema id`);
    if (!fetched.has(id)) {
      const res = await fetch(`${h.baseUrl}${path}`);
      expect([id, res.status]).toEqual([id, 200]);
      expect(res.headers.get('content-type')).toBe('application/schema+json');
      expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
      expect(res.headers.get('etag')).toMatch(/^"sha256-[A-Za-z0-9_-]{43}"$/);
      const schema = (await res.json()) as Record<string, any>;
      expect(schema.$id).toBe(id);
      fetched.set(id, schema);
    }
    return fetched.get(id)!;
  }

  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the index lists every schema file of docs/asyncapi/schemas by $id and path, without a token', async () => {
    const res = await fetch(`${h.baseUrl}/schemas`);
    expect(res.status).toBe(200);
    const { schemas } = (await res.json()) as { schemas: { id: string; path: string }[] };
    expect(schemas.map((s) => s.id).sort()).toEqual(FILES.map((f) => `${SCHEMA_ID_BASE}${f}`).sort());
    for (const s of schemas) expect(s.path).toBe(schemaServedPath(s.id));
    expect(FILES.length).toBe(10);
  });

  it('every $id and every $ref inside resolves through GET /schemas, and all compile with ajv loading them from the API', async () => {
    const ids = FILES.map((f) => `${SCHEMA_ID_BASE}${f}`);
    let refs = 0;
    for (const id of ids) {
      const schema = await resolveId(id);
      for (const ref of refsOf(schema)) {
        refs++;
        const [base, fragment = ''] = ref.split('#');
        const target = base === '' ? schema : await resolveId(base); // a local ref, or another schema's id
        expect([id, ref, at(target, fragment) !== undefined]).toEqual([id, ref, true]);
      }
    }
    expect(refs).toBeGreaterThan(20);
    // ajv resolves whatever it is missing through the API only (loadSchema), then compiles every schema
    const loaded: string[] = [];
    const ajv = new Ajv({
      allErrors: true,
      strict: true,
      loadSchema: async (uri) => {
        loaded.push(uri);
        return resolveId(uri);
      },
    });
    addFormats(ajv);
    for (const id of ids) {
      const validate = await ajv.compileAsync({ $ref: id });
      expect(typeof validate).toBe('function');
    }
    expect(loaded.sort()).toEqual([...ids].sort());
  });

  it('the ids the AsyncAPI document names (payload $id, ce_dataschema) and the analytics records carry are served', async () => {
    const token = h.client.token('betting-platform', 'bp-1');
    const doc = (await (await fetch(`${h.baseUrl}/asyncapi`, { headers: { authorization: `Bearer ${token}` } })).json()) as unknown;
    const named = new Set<string>();
    const walk = (n: unknown) => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === 'object') for (const v of Object.values(n)) walk(v);
      else if (typeof n === 'string' && n.startsWith(SCHEMA_ID_BASE)) named.add(n);
    };
    walk(doc);
    for (const kind of ANALYTICS_RECORD_KINDS) {
      expect(named.has(ANALYTICS_RECORD_TYPES[kind].dataSchema)).toBe(true);
      expect((await resolveId(ANALYTICS_RECORD_TYPES[kind].dataSchema)).$id).toBe(ANALYTICS_RECORD_TYPES[kind].dataSchema);
    }
    expect(named.size).toBeGreaterThanOrEqual(FILES.length);
    for (const id of named) expect((await resolveId(id)).$id).toBe(id);
  });

  it('answers 304 to a matching If-None-Match and 404 ROUTE.NOT_FOUND to anything else under /schemas', async () => {
    const path = schemaServedPath(`${SCHEMA_ID_BASE}round-outcome.v1.schema.json`)!;
    const first = await fetch(`${h.baseUrl}${path}`);
    const etag = first.headers.get('etag')!;
    const again = await fetch(`${h.baseUrl}${path}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    for (const p of ['/schemas/nope.v1.schema.json', '/schemas/asyncapi.yaml', '/schemas/.ledger-event.v1.schema.json']) {
      const res = await fetch(`${h.baseUrl}${p}`);
      expect([p, res.status]).toEqual([p, 404]);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ROUTE.NOT_FOUND');
    }
    // an encoded separator is refused before any controller (the edge's path check), never served
    const traversal = await fetch(`${h.baseUrl}/schemas/..%2Fasyncapi.yaml`);
    expect(traversal.status).toBe(400);
    expect(((await traversal.json()) as { error: { code: string } }).error.code).toMatch(/^[A-Z_]+\.[A-Z_]+$/);
  });

  it('the standalone consumer example validates real records with the schemas it fetches from GET /schemas', async () => {
    const kafka = testKafka('schemas-e2e');
    const topic = `schemas-e2e-${randomUUID()}.settlements`;
    const records = (await analyticsRecordsOfEvents(smallShoe({ shoeId: 'sch-1', tableId: 'T-SCH-1' }).events)).filter((r) => r.kind === 'settlement');
    expect(records.length).toBeGreaterThan(0);
    await createTopic(kafka, topic, 1);
    try {
      const producer = kafka.producer();
      await producer.connect();
      await producer.send(
        topic,
        records.map((r) => ({ key: r.key, value: r.value, headers: { ...r.headers } })),
      );
      await producer.disconnect();
      const example = join(__dirname, '../../examples/outcome-consumer/consume.mjs');
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [example, '--brokers', TEST_BROKERS.join(','), '--topic', topic, '--schemas-url', `${h.baseUrl}/schemas`, '--idle-ms', '5000'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => (stdout += c));
        child.stderr.on('data', (c) => (stderr += c));
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`))));
      });
      const final = JSON.parse(
        out
          .split('\n')
          .find((l) => l.startsWith('FINAL '))!
          .slice('FINAL '.length),
      ) as { records: number; duplicates: number; invalid: number };
      expect(final).toMatchObject({ records: records.length, duplicates: 0, invalid: 0 });
    } finally {
      await deleteTopics(kafka, [topic]);
    }
  });
});
