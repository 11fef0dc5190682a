import { join, resolve } from 'node:path';
import { fromFile, Parser } from '@asyncapi/parser';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { IncomingMessage, KafkaClient, KafkaProducer } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { createProjectionDataSource, diffChecksums, dropProjectionSchema, projectionChecksums, ProjectionRunner, rebuildProjections, runProjectionMigrations } from '@ledger/projections';
import { GlobalPositions } from '@ledger/projections/testing/envelopes';
import { createTopic, deleteTopics, highWatermarks, produce, readAll, RawRecord, TEST_DATABASE_URL, testKafka, uniqueTopic, waitForCatchUp } from '@ledger/projections/testing/kafka-kit';
import { smallShoe, SmallShoe } from '@ledger/projections/testing/small-shoe.fixture';
import { AnalyticsPublisher, AnalyticsTopicNames, DEFAULT_ANALYTICS_TOPICS } from './analytics-publisher';
import { AnalyticsRecordKind } from './analytics-records';
import { analyticsRecordsOfEvents } from './memory-state';
import { ClaimedOutboxRow, claimOutboxSql, REFERENCED_SOURCE_TYPES, resolveOutboxRow } from './analytics-references';
import { GRACEFUL_SIGTERM_STOP, logLines, projectorStop } from '@ledger/projections/testing/log-lines';
import { startProjectorProcess, type ProjectorProcess } from '@ledger/projections/testing/projector-process';
import { ALL_PROJECTIONS } from '../all-projections';
import { READ_MODEL_MIGRATIONS } from '../migrations';
import { ANALYTICS_OUTBOX_EFFECT } from './analytics-outbox';

/**
 * The analytics topics end to end, on real PostgreSQL and Kafka (docs/guarantees.md §4, §6):
 *
 * 1. Two fixture shoes (each with a management void, a cut-card void and a correction) go to a
 *    unique ledger topic. The projector PROCESS (`apps/projector/src/main.ts`) runs with analytics
 *    on into per-test analytics topics (documented names with a unique prefix), its publisher set
 *    to die (exit 137) after Kafka acknowledged its first batch and before marking it published.
 *    Restarted, it catches up and publishes everything: the outbox equals, byte for byte, the
 *    records the pure builders give for the same events, and Kafka holds every record, the only
 *    duplicates being byte-identical re-sends with the same `ce_id`.
 * 2. A consumer written ONLY from `docs/asyncapi/asyncapi.yaml` and its schema files (no import
 *    from the projector's code) reads the round-outcomes topic, validates every record, de-duplicates
 *    by the documented header and sees every round with the expected winners and revisions.
 * 3. A ledger event delivered again changes nothing; a rebuild (scratch and in place) emits
 *    nothing on the analytics topics; an in-place rebuild refuses while records are unpublished.
 */
jest.setTimeout(300_000);

const REPO = resolve(__dirname, '../../../..');
const ASYNCAPI = join(REPO, 'docs/asyncapi/asyncapi.yaml');
const SCHEMA = 'read_it_analytics';
const SCRATCH = 'read_it_analytics_rb';
const KINDS: AnalyticsRecordKind[] = ['round-outcome', 'settlement', 'roads'];

function startProjector(env: Record<string, string>): ProjectorProcess {
  return startProjectorProcess(env);
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const headerText = (h: RawRecord['headers'], name: string): string | undefined => {
  const v = h?.[name];
  const x = Array.isArray(v) ? v[0] : v;
  return x === undefined ? undefined : x.toString();
};

describe('analytics topics (PostgreSQL + Kafka)', () => {
  let ds: DataSource;
  let kafka: KafkaClient;
  let producer: KafkaProducer;
  let ledgerTopic: string;
  let topics: AnalyticsTopicNames;
  let prefix: string;
  const group = `projector-analytics-${Date.now()}`;
  const positions = new GlobalPositions();
  const shoes: SmallShoe[] = [smallShoe({ shoeId: 'an-1', tableId: 'T-AN-1', positions }), smallShoe({ shoeId: 'an-2', tableId: 'T-AN-2', positions })];
  const events = shoes.flatMap((s) => s.events);
  let env: Record<string, string>;
  const q = <T = any>(sql: string, params: unknown[] = []): Promise<T[]> => ds.query(sql, params);
  const outboxCounts = async () => (await q<{ total: number; pending: number }>(`SELECT count(*)::int AS total, (count(*) FILTER (WHERE published_at IS NULL))::int AS pending FROM ${SCHEMA}.analytics_outbox`))[0];
  const topicRecordCount = async () => {
    let n = 0n;
    for (const t of Object.values(topics)) for (const hw of (await highWatermarks(kafka, t)).values()) n += hw;
    return n;
  };

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'analytics-int' });
    await ds.initialize();
    await dropProjectionSchema(ds, SCHEMA);
    await dropProjectionSchema(ds, SCRATCH);
    await runProjectionMigrations(ds, { schema: SCHEMA, migrations: READ_MODEL_MIGRATIONS });
    kafka = testKafka('analytics-test');
    ledgerTopic = uniqueTopic('analytics');
    prefix = `test.${Date.now()}.${process.pid}.`;
    topics = {
      'round-outcome': prefix + DEFAULT_ANALYTICS_TOPICS['round-outcome'],
      settlement: prefix + DEFAULT_ANALYTICS_TOPICS.settlement,
      roads: prefix + DEFAULT_ANALYTICS_TOPICS.roads,
    };
    await createTopic(kafka, ledgerTopic, 3);
    for (const t of Object.values(topics)) await createTopic(kafka, t, 6);
    producer = kafka.producer();
    await producer.connect();
    await produce(producer, ledgerTopic, events);
    env = {
      DATABASE_URL: TEST_DATABASE_URL,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
      LEDGER_EVENTS_TOPIC: ledgerTopic,
      PROJECTOR_GROUP: group,
      PROJECTIONS_SCHEMA: SCHEMA,
      PROJECTOR_MAX_RECORDS_PER_TX: '25',
      ANALYTICS_ROUND_OUTCOMES_TOPIC: topics['round-outcome'],
      ANALYTICS_SETTLEMENTS_TOPIC: topics.settlement,
      ANALYTICS_ROADS_TOPIC: topics.roads,
      ANALYTICS_PUBLISH_BATCH_SIZE: '5',
      LOG_LEVEL: 'warn',
    };
  });

  afterAll(async () => {
    await producer?.disconnect();
    if (kafka && ledgerTopic) await deleteTopics(kafka, [ledgerTopic, ...Object.values(topics ?? {})]);
    if (ds?.isInitialized) {
      await dropProjectionSchema(ds, SCRATCH).catch(() => undefined);
      await dropProjectionSchema(ds, SCHEMA).catch(() => undefined);
      await ds.destroy();
    }
  });

  it('the projector process, its publisher killed after a send and restarted: every record, duplicates only with the same ce_id', async () => {
    // 1. publisher dies (exit 137) after Kafka acknowledged its first batch, before marking it
    const first = startProjector({ ...env, ANALYTICS_PUBLISHER_CRASH_POINT: 'after-send' });
    const code = await first.exited;
    expect({ code, output: first.output() }).toMatchObject({ code: 137 });
    expect(first.output()).toMatch(/ANALYTICS_PUBLISHER_CRASH_POINT reached/);
    const afterCrash = await outboxCounts();
    expect(afterCrash.total).toBeGreaterThan(0);
    expect(afterCrash.pending).toBe(afterCrash.total); // the claimed batch was never marked
    const sentBeforeCrash = await topicRecordCount();
    expect(sentBeforeCrash).toBeGreaterThan(0n); // …but it reached Kafka

    // 2. restart: catches up, publishes everything (the crashed batch again)
    const second = startProjector({ ...env, LOG_LEVEL: 'info' });
    await waitForCatchUp(kafka, ds, SCHEMA, group, ledgerTopic).catch((e) => {
      throw new Error(`${e.message}\n${second.output()}`);
    });
    await until('the outbox to be published', async () => (await outboxCounts()).pending === 0).catch((e) => {
      throw new Error(`${e.message}\n${second.output()}`);
    });
    // graceful stop (SIGTERM to the process group, as a supervisor would): runner, then publisher
    process.kill(-second.child.pid!, 'SIGTERM');
    // exactly the graceful stop: not the fatal path, which logs "projector stopped" too
    const exitCode = await second.exited; // then read the output: it is complete once the process is gone
    expect(projectorStop(second.output(), exitCode)).toEqual(GRACEFUL_SIGTERM_STOP);
    expect(logLines(second.output()).some((l) => l.msg === 'analytics publisher stopped' && l.level === 30)).toBe(true);

    // the outbox holds exactly the records the pure builders give for these events, in order
    const expected = await analyticsRecordsOfEvents(events);
    // (a settlement of a BetSettled / BetResettled as a reference, built as the publisher builds it)
    const rows = (await q<ClaimedOutboxRow>(claimOutboxSql(SCHEMA, { includePublished: true }), [1_000_000])).map(resolveOutboxRow);
    expect(rows.map((r) => [r.kind, r.record_key, r.value])).toEqual(expected.map((r) => [r.kind, r.key, r.value]));
    expect(rows.map((r) => r.headers)).toEqual(expected.map((r) => r.headers));
    expect(expected).toHaveLength(2 * (8 + 8 + 20));
    const shapes = await q<{ kind: AnalyticsRecordKind; reference: boolean; n: number }>(`SELECT kind, value IS NULL AS reference, count(*)::int AS n FROM ${SCHEMA}.analytics_outbox GROUP BY 1, 2 ORDER BY 1, 2`);
    const referenced = events.filter((e) => REFERENCED_SOURCE_TYPES.has(e.type)).length;
    expect(referenced).toBeGreaterThan(0);
    expect(shapes).toEqual(
      [
        { kind: 'roads', reference: false, n: 16 },
        { kind: 'round-outcome', reference: false, n: 16 },
        { kind: 'settlement', reference: false, n: 40 - referenced },
        { kind: 'settlement', reference: true, n: referenced },
      ].filter((r) => r.n > 0),
    );

    // Kafka: every record at least once; extra copies are byte-identical and share the ce_id
    let duplicates = 0;
    for (const kind of KINDS) {
      const onKafka = await readAll(kafka, topics[kind]);
      const byId = new Map<string, RawRecord[]>();
      for (const r of onKafka) byId.set(headerText(r.headers, 'ce_id')!, [...(byId.get(headerText(r.headers, 'ce_id')!) ?? []), r]);
      const want = expected.filter((r) => r.kind === kind);
      expect(new Set(byId.keys())).toEqual(new Set(want.map((r) => r.ceId)));
      for (const r of want) {
        const copies = byId.get(r.ceId)!;
        duplicates += copies.length - 1;
        for (const c of copies) {
          expect(c.value!.toString()).toBe(r.value);
          for (const [k, v] of Object.entries(r.headers)) expect(headerText(c.headers, k)).toBe(v);
        }
        expect(new Set(copies.map((c) => c.partition)).size).toBe(1); // same key, same partition
      }
      // per table (key), first copies arrive in ledger order
      for (const tableId of ['T-AN-1', 'T-AN-2']) {
        const firsts = [...byId.values()].map((c) => c[0]).filter((c) => JSON.parse(c.value!.toString()).tableId === tableId);
        expect(new Set(firsts.map((c) => c.partition)).size).toBe(1); // one key, one partition
        firsts.sort((a, b) => Number(BigInt(a.offset) - BigInt(b.offset)));
        const order = firsts.map((c) => BigInt(JSON.parse(c.value!.toString()).globalPosition));
        expect(order).toEqual([...order].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      }
    }
    expect(duplicates).toBeGreaterThan(0);
    expect(duplicates).toBeLessThanOrEqual(5); // the one batch the crashed publisher had sent
  });

  it('a consumer written only from the AsyncAPI document sees every round, winner and revision', async () => {
    const seen = await consumeAsDocumented(kafka, 'roundOutcomes', (address) => prefix + address);
    expect(seen.records).toHaveLength(16); // 8 per shoe
    const onTopic = [...(await highWatermarks(kafka, topics['round-outcome'])).values()].reduce((a, b) => a + b, 0n);
    expect(seen.duplicatesDropped).toBe(Number(onTopic) - 16); // the crashed batch's re-sends, if it held outcomes
    for (const shoe of ['an-1', 'an-2']) {
      const mine = seen.records.filter((r) => r.shoeId === shoe).sort((a, b) => (a.handNumber as number) - (b.handNumber as number) || (a.revision as number) - (b.revision as number));
      expect(mine.map((r) => [r.roundId, r.status, r.revision, r.winner])).toEqual([
        [`${shoe}-R1`, 'RESULTED', 1, 'PLAYER'],
        [`${shoe}-R2`, 'RESULTED', 1, 'BANKER'],
        [`${shoe}-R3`, 'RESULTED', 1, 'TIE'],
        [`${shoe}-R4`, 'RESULTED', 1, 'PLAYER'],
        [`${shoe}-R4`, 'VOIDED', 2, null],
        [`${shoe}-R5`, 'RESULTED', 1, 'PLAYER'],
        [`${shoe}-R5`, 'CORRECTED', 2, 'BANKER'],
        [`${shoe}-R6`, 'VOIDED', 1, null],
      ]);
      // the revision in force per round
      const current = new Map<string, Record<string, unknown>>();
      for (const r of mine) if (((current.get(r.roundId as string)?.revision as number) ?? 0) < (r.revision as number)) current.set(r.roundId as string, r);
      expect([...current.values()].map((r) => [r.roundId, r.status, r.winner])).toEqual([
        [`${shoe}-R1`, 'RESULTED', 'PLAYER'],
        [`${shoe}-R2`, 'RESULTED', 'BANKER'],
        [`${shoe}-R3`, 'RESULTED', 'TIE'],
        [`${shoe}-R4`, 'VOIDED', null],
        [`${shoe}-R5`, 'CORRECTED', 'BANKER'],
        [`${shoe}-R6`, 'VOIDED', null],
      ]);
      expect(current.get(`${shoe}-R5`)).toMatchObject({ cards: ['6C', '8D', 'KH', 'QS'], playerTotal: 6, bankerTotal: 8, dealerId: 'D-BORIS', gamingDay: '2025-03-01' });
      expect(current.get(`${shoe}-R6`)).toMatchObject({ voidCause: 'CUT_CARD', cards: [] });
    }
  });

  it('a ledger event delivered again changes nothing: no outbox row, no analytics record', async () => {
    const before = { outbox: await outboxCounts(), onKafka: await topicRecordCount() };
    const runner = new ProjectionRunner({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], kafka, ds, topic: ledgerTopic, groupId: group, schema: SCHEMA });
    const publisher = new AnalyticsPublisher({ kafka, databaseUrl: TEST_DATABASE_URL, schema: SCHEMA, topics });
    try {
      await runner.start();
      // the outcome-bearing and settlement events of hand 5 again, at new offsets
      const again = shoes[0].events.filter((e) => ['RoundResulted', 'ResultCorrected', 'BetResettled', 'RoundVoided', 'BetRefunded'].includes(e.type));
      await produce(producer, ledgerTopic, again);
      await waitForCatchUp(kafka, ds, SCHEMA, group, ledgerTopic);
      expect(runner.progress.skippedDuplicates).toBe(again.length);
      expect(runner.progress.applied).toBe(0);
      expect(await publisher.runOnce()).toMatchObject({ leader: true, published: 0 });
    } finally {
      await runner.stop();
      await publisher.stop();
    }
    expect(await outboxCounts()).toEqual(before.outbox);
    expect(await topicRecordCount()).toBe(before.onKafka);
  });

  it('a rebuild emits nothing: scratch and in-place rebuilds leave the analytics topics as they were', async () => {
    const onKafka = await topicRecordCount();
    const live = await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS);

    // scratch: same checksums as live (the outbox is not part of them), empty outbox
    const scratch = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic: ledgerTopic, schema: SCRATCH, checkpointGroup: group, maxRecordsPerTransaction: 11 });
    expect(diffChecksums(scratch.checksums, live)).toEqual([]);
    expect((await q(`SELECT count(*)::int AS n FROM ${SCRATCH}.analytics_outbox`))[0].n).toBe(0);

    // in place, then a live projector with analytics on resumes after it: still nothing new
    const inPlace = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic: ledgerTopic, schema: SCHEMA, checkpointGroup: group });
    expect(diffChecksums(inPlace.checksums, live)).toEqual([]);
    expect(await outboxCounts()).toEqual({ total: 0, pending: 0 });
    const runner = new ProjectionRunner({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], kafka, ds, topic: ledgerTopic, groupId: group, schema: SCHEMA });
    const publisher = new AnalyticsPublisher({ kafka, databaseUrl: TEST_DATABASE_URL, schema: SCHEMA, topics });
    try {
      await runner.start();
      await publisher.start();
      await waitForCatchUp(kafka, ds, SCHEMA, group, ledgerTopic);
      await new Promise((r) => setTimeout(r, 1500)); // give a (wrong) publisher the time to send something
      expect(runner.progress.applied).toBe(0);
    } finally {
      await runner.stop();
      await publisher.stop();
    }
    expect(await outboxCounts()).toEqual({ total: 0, pending: 0 });
    expect(await topicRecordCount()).toBe(onKafka);
  });

  it('an in-place rebuild refuses while the outbox holds unpublished records, and runs once they are published', async () => {
    // a third shoe, applied by a projector whose publisher is not running
    const third = smallShoe({ shoeId: 'an-3', tableId: 'T-AN-3', positions });
    const runner = new ProjectionRunner({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], kafka, ds, topic: ledgerTopic, groupId: group, schema: SCHEMA });
    try {
      await runner.start();
      await produce(producer, ledgerTopic, third.events);
      await waitForCatchUp(kafka, ds, SCHEMA, group, ledgerTopic);
    } finally {
      await runner.stop();
    }
    expect(await outboxCounts()).toEqual({ total: 36, pending: 36 });
    await expect(rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic: ledgerTopic, schema: SCHEMA, checkpointGroup: group })).rejects.toMatchObject({
      code: 'PROJECTION.SCHEMA_IN_USE',
      details: { pending: 36 },
    });
    const onKafka = await topicRecordCount();
    const publisher = new AnalyticsPublisher({ kafka, databaseUrl: TEST_DATABASE_URL, schema: SCHEMA, topics, batchSize: 7 });
    expect(await publisher.runOnce()).toMatchObject({ leader: true, published: 36, batches: 6 });
    await publisher.stop();
    expect(await topicRecordCount()).toBe(onKafka + 36n);
    await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic: ledgerTopic, schema: SCHEMA, checkpointGroup: group });
    expect(await topicRecordCount()).toBe(onKafka + 36n);
  });

  it('one publisher at a time: a second one stands by while the first holds the lock', async () => {
    const a = new AnalyticsPublisher({ kafka, databaseUrl: TEST_DATABASE_URL, schema: SCHEMA, topics, pollIntervalMs: 50 });
    const b = new AnalyticsPublisher({ kafka, databaseUrl: TEST_DATABASE_URL, schema: SCHEMA, topics, standbyRetryMs: 50 });
    try {
      await a.start();
      await until('a to lead', async () => a.isLeader);
      expect(await b.runOnce()).toEqual({ leader: false, published: 0, batches: 0 });
    } finally {
      await a.stop();
      await b.stop();
    }
    expect(await b.runOnce()).toMatchObject({ leader: true });
    await b.stop();
  });
});

// ================================================================================================
// A downstream consumer written ONLY from docs/asyncapi/asyncapi.yaml and the JSON Schema files it
// references: topic name, key schema and key location, header names and schema, de-duplication
// header, content type and payload schema all come from the document. Nothing above is used.
// ================================================================================================

/** What {@link consumeAsDocumented} read. */
interface DocumentedConsumption {
  readonly records: Record<string, unknown>[];
  readonly duplicatesDropped: number;
}

/** JSON Pointer (RFC 6901) lookup. */
function pointer(doc: unknown, ptr: string): unknown {
  if (ptr === '' || ptr === '/') return doc;
  return ptr
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((o, k) => (o === null || typeof o !== 'object' ? undefined : (o as Record<string, unknown>)[k]), doc);
}

/** Drops the `x-parser-*` annotations the AsyncAPI parser adds to schemas. */
function plainSchema<T>(v: T): T {
  if (Array.isArray(v)) return v.map(plainSchema) as T;
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !k.startsWith('x-parser-'))
        .map(([k, x]) => [k, plainSchema(x)]),
    ) as T;
  return v;
}

/**
 * Reads a channel of the documented API from offset 0 to its current end, validates every record
 * (key, headers, payload) against the document, and de-duplicates on the header the message's
 * `correlationId` names.
 * @param topicName maps the documented address to the real topic (tests prefix it)
 */
async function consumeAsDocumented(kafka: KafkaClient, channelId: string, topicName: (address: string) => string): Promise<DocumentedConsumption> {
  const { document, diagnostics } = await fromFile(new Parser(), ASYNCAPI).parse();
  if (!document) throw new Error(`the AsyncAPI document does not parse: ${JSON.stringify(diagnostics.filter((d) => d.severity === 0))}`);
  const channel = document.channels().get(channelId);
  if (!channel) throw new Error(`no channel ${channelId}`);
  const message = channel.messages().all()[0];
  const topic = topicName(channel.address()!);

  const ajv = () => {
    const a = new Ajv({ allErrors: true });
    addFormats(a);
    return a;
  };
  const payloadSchema = plainSchema((message.payload()!.json() as { schema: Record<string, unknown> }).schema);
  const validatePayload = ajv().compile(payloadSchema);
  const headersSchema = plainSchema(message.headers()!.json()) as { properties?: Record<string, unknown>; required?: string[]; allOf?: { properties?: Record<string, unknown>; required?: string[] }[] };
  const validateHeaders = ajv().compile(headersSchema);
  const headerNames = new Set([...Object.keys(headersSchema.properties ?? {}), ...(headersSchema.allOf ?? []).flatMap((s) => Object.keys(s.properties ?? {}))]);
  const kafkaBinding = message.bindings().get('kafka')!.json() as { key: Record<string, unknown>; 'x-key-location'?: string };
  const validateKey = ajv().compile(plainSchema(kafkaBinding.key));
  const keyLocation = kafkaBinding['x-key-location'];
  const dedupeHeader = (message.correlationId()?.location() ?? '').replace(/^\$message\.header#\//, '');
  if (!dedupeHeader) throw new Error(`message ${message.id()} documents no correlationId to de-duplicate on`);
  const contentType = message.contentType() ?? document.defaultContentType();

  const admin = kafka.admin();
  await admin.connect();
  const end = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, BigInt(o.high)]));
  const groupId = `asyncapi-consumer-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const consumer = kafka.consumer({ groupId });
  const raw: { partition: number; message: IncomingMessage }[] = [];
  const reached = new Map<number, bigint>();
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((done, fail) => {
    const check = () => [...end].every(([p, h]) => h === 0n || (reached.get(p) ?? 0n) >= h) && done();
    check();
    consumer
      .run({
        eachMessage: async ({ partition, message: m }) => {
          if (BigInt(m.offset) < (end.get(partition) ?? 0n)) raw.push({ partition, message: m });
          reached.set(partition, BigInt(m.offset) + 1n);
          check();
        },
      })
      .catch(fail);
  });
  await consumer.disconnect();
  await admin.deleteGroups([groupId]).catch(() => undefined);
  await admin.disconnect();

  const seen = new Set<string>();
  const records: Record<string, unknown>[] = [];
  let duplicatesDropped = 0;
  for (const { message: m } of raw) {
    const headers = Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, (Array.isArray(v) ? v[0] : v)!.toString()]));
    if (!validateHeaders(headers)) throw new Error(`headers do not match the document: ${JSON.stringify(validateHeaders.errors)}`);
    for (const name of headerNames) if (headersSchema.allOf?.some((s) => s.required?.includes(name)) && !(name in headers)) throw new Error(`header ${name} missing`);
    if (headers['content-type'] !== contentType) throw new Error(`content-type ${headers['content-type']}, documented ${contentType}`);
    const payload = JSON.parse(m.value!.toString('utf8')) as Record<string, unknown>;
    if (!validatePayload(payload)) throw new Error(`payload does not match the document: ${JSON.stringify(validatePayload.errors)}`);
    if (headers.ce_dataschema !== undefined && headers.ce_dataschema !== payloadSchema.$id) throw new Error(`ce_dataschema ${headers.ce_dataschema} is not the payload schema ${String(payloadSchema.$id)}`);
    const key = m.key!.toString('utf8');
    if (!validateKey(key)) throw new Error(`key does not match the document: ${JSON.stringify(validateKey.errors)}`);
    if (keyLocation && pointer(payload, keyLocation.replace(/^\$message\.payload#/, '')) !== key) throw new Error(`key ${key} is not the payload's ${keyLocation}`);
    const id = headers[dedupeHeader];
    if (seen.has(id)) {
      duplicatesDropped++;
      continue;
    }
    seen.add(id);
    records.push(payload);
  }
  return { records, duplicatesDropped };
}
