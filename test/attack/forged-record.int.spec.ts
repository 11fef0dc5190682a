/**
 * Attack: someone who can write to the ledger topic produces records of their own (docs/guarantees.md
 * §8 and §13). Before the projector verified what it applied, anything that parsed was projected: a
 * made-up shoe with its rounds and settlements entered the read model and the reconciliation.
 *
 * Now every record must carry the relay's signature (`ledger-sig`, HMAC-SHA256 over key and value
 * with `RECORD_SIGNING_KEY`), a hash equal to the hash of its canonical bytes and a link to its
 * stream's head. A forged record is quarantined (`<schema>.quarantine`, with the reason) and copied
 * to the dead-letter topic, never applied, while the legitimate records before and after it, on the
 * same partition, are projected in full.
 *
 * Real PostgreSQL and Kafka: a topic of ONE partition (every record shares it) and its dead-letter
 * topic, both unique to this run; an in-process projector logged in as its runtime role
 * `ledger_projector`, configured with a production-like key the forger does not have.
 */
import { randomBytes } from 'node:crypto';
import { databaseUrlForRole } from '@ledger/config';
import { DEV_RECORD_SIGNING_KEY, RECORD_SIGNATURE_HEADER } from '@ledger/event-store';
import type { LedgerEvent } from '@ledger/events';
import type { KafkaClient, KafkaProducer, OutgoingMessage } from '@ledger/kafka';
import { createProjectionDataSource, dropProjectionSchema, ProjectionRunner, quarantineCounts, runProjectionMigrations } from '@ledger/projections';
import type { DataSource } from 'typeorm';
import { createTopic, deleteTopics, highWatermarks, readAll, TEST_DATABASE_URL, testKafka, toMessage, uniqueTopic, waitForCatchUp } from '../../libs/projections/src/testing/kafka-kit';
import { GlobalPositions } from '../../libs/projections/src/testing/envelopes';
import { smallShoe } from '../../libs/projections/src/testing/small-shoe.fixture';
import { ALL_PROJECTIONS, ANALYTICS_OUTBOX_EFFECT, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

jest.setTimeout(180_000);

const SCHEMA = 'read_attack_forged';
/** The key the relay and the projector share; the forger does not have it. */
const KEY = randomBytes(48).toString('base64');

/** The shoe's events up to and including its first BetSettled: a shoe, a round, bets, cards, a result, a settlement. */
function throughFirstSettlement(events: LedgerEvent[]): LedgerEvent[] {
  const i = events.findIndex((e) => e.type === 'BetSettled');
  const prefix = events.slice(0, i + 1);
  expect(prefix.map((e) => e.type)).toEqual(expect.arrayContaining(['ShoeOpened', 'RoundOpened', 'BetPlaced', 'RoundResulted', 'BetSettled']));
  return prefix;
}

/** The same events with made-up hashes, chained to each other (prevHash = the previous made-up hash). */
function withMadeUpHashes(events: LedgerEvent[]): LedgerEvent[] {
  let prev = '0'.repeat(64);
  return events.map((e) => {
    const hash = randomBytes(32).toString('hex');
    const forged = { ...e, prevHash: prev, hash } as LedgerEvent;
    prev = hash;
    return forged;
  });
}

/** `m` with one byte of its value changed (a digit of an amount), its signature left as it was. */
function tamperedInOneByte(m: OutgoingMessage, needle: string): OutgoingMessage {
  const value = Buffer.from(m.value as string, 'utf8');
  const at = value.indexOf(needle);
  expect(at).toBeGreaterThan(0);
  const i = at + needle.length;
  expect(value[i]).toBeGreaterThanOrEqual(0x30);
  expect(value[i]).toBeLessThanOrEqual(0x39);
  value[i] = value[i] === 0x39 ? 0x38 : value[i] + 1;
  return { ...m, value };
}

describe('attack: forged records on the ledger topic (docs/guarantees.md §8)', () => {
  let owner: DataSource;
  let ds: DataSource;
  let kafka: KafkaClient;
  let producer: KafkaProducer;
  let runner: ProjectionRunner;
  let topic: string;
  let dlq: string;
  const group = `attack-forged-${Date.now()}`;
  const q = <T = any>(sql: string, params: unknown[] = []): Promise<T[]> => owner.query(sql, params);

  // legitimate shoes: A before the forgeries, C after them (with one record tampered in flight), on
  // tables of their own; the forgeries take plausible global positions too
  const positions = new GlobalPositions();
  const legitA = smallShoe({ shoeId: 'atk-legit-a', tableId: 'T-ATK-A', positions });
  const legitC = smallShoe({ shoeId: 'atk-legit-c', tableId: 'T-ATK-C', positions });
  // forgeries, each a new stream on a table of its own (the topic has one partition: all share it)
  const forgedA = withMadeUpHashes(throughFirstSettlement(smallShoe({ shoeId: 'atk-forged-a', tableId: 'T-FORGED-A', positions }).events));
  const forgedA2 = withMadeUpHashes(throughFirstSettlement(smallShoe({ shoeId: 'atk-forged-a2', tableId: 'T-FORGED-A2', positions }).events));
  const forgedB = throughFirstSettlement(smallShoe({ shoeId: 'atk-forged-b', tableId: 'T-FORGED-B', positions }).events);
  const forgedB2 = throughFirstSettlement(smallShoe({ shoeId: 'atk-forged-b2', tableId: 'T-FORGED-B2', positions }).events);
  const settledA = legitA.events.find((e) => e.type === 'BetSettled')!;
  const cSettled = legitC.events.findIndex((e) => e.type === 'BetSettled');
  const FORGED_SHOES = ['atk-forged-a', 'atk-forged-a2', 'atk-forged-b', 'atk-forged-b2'];

  const sent = {
    // (a) a made-up hash chain, unsigned
    madeUpUnsigned: forgedA.map((e) => toMessage(e, null)),
    // (a) a made-up hash chain signed with the real key (an insider with the key, or a relay fed garbage): the hash check holds
    madeUpSigned: forgedA2.map((e) => toMessage(e, KEY)),
    // (b) a self-consistent chain (hashes computed with the store's function), without a signature
    chainUnsigned: forgedB.map((e) => toMessage(e, null)),
    // (b) the same, signed with the public development key from the repository
    chainDevKey: forgedB2.map((e) => toMessage(e, DEV_RECORD_SIGNING_KEY)),
    // (c) a copy of an applied settlement of shoe A with one byte of its payout changed
    tamperedCopy: tamperedInOneByte(toMessage(settledA, KEY), '"payout":"'),
    // (c) shoe C's first settlement tampered in flight, then the genuine record
    tamperedInFlight: tamperedInOneByte(toMessage(legitC.events[cSettled], KEY), '"payout":"'),
  };

  beforeAll(async () => {
    owner = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'attack-forged-owner', poolSize: 2 });
    await owner.initialize();
    await dropProjectionSchema(owner, SCHEMA);
    await runProjectionMigrations(owner, { schema: SCHEMA, migrations: READ_MODEL_MIGRATIONS });
    ds = createProjectionDataSource(databaseUrlForRole(TEST_DATABASE_URL, 'ledger_projector'), { applicationName: 'attack-forged-projector', poolSize: 4 });
    await ds.initialize();

    kafka = testKafka('attack-forged');
    topic = uniqueTopic('forged');
    dlq = `${topic}.dlq`;
    await createTopic(kafka, topic, 1);
    producer = kafka.producer();
    await producer.connect();
    const send = (messages: OutgoingMessage[]) => producer.send(topic, messages);
    await send(legitA.events.map((e) => toMessage(e, KEY)));
    await send(sent.madeUpUnsigned);
    await send(sent.madeUpSigned);
    await send(sent.chainUnsigned);
    await send(sent.chainDevKey);
    await send([sent.tamperedCopy]);
    await send([...legitC.events.slice(0, cSettled).map((e) => toMessage(e, KEY)), sent.tamperedInFlight, ...legitC.events.slice(cSettled).map((e) => toMessage(e, KEY))]);

    runner = new ProjectionRunner({ projections: ALL_PROJECTIONS, effects: [ANALYTICS_OUTBOX_EFFECT], kafka, ds, topic, groupId: group, schema: SCHEMA, recordSigningKey: KEY, maxRecordsPerTransaction: 9 });
    await runner.start();
    await Promise.race([waitForCatchUp(kafka, owner, SCHEMA, group, topic), runner.failed]);
    // the dead-letter copies follow the commits
    const expected = Object.values(sent).flat().length;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const hw = await highWatermarks(kafka, dlq).catch(() => new Map<number, bigint>());
      if ((hw.get(0) ?? 0n) >= BigInt(expected)) break;
      if (Date.now() > deadline) throw new Error(`dead-letter topic ${dlq} holds ${hw.get(0) ?? 0} records, expected ${expected}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  afterAll(async () => {
    await runner?.stop();
    await producer?.disconnect();
    if (kafka && topic) await deleteTopics(kafka, [topic, dlq]);
    if (ds?.isInitialized) await ds.destroy();
    if (owner?.isInitialized) {
      await dropProjectionSchema(owner, SCHEMA).catch(() => undefined);
      await owner.destroy();
    }
  });

  const quarantined = async (shoeId: string) =>
    q<{ reason: string; authentic: boolean; stream_version: number; event_id: string }>(`SELECT reason, authentic, stream_version, event_id FROM ${SCHEMA}.quarantine WHERE stream_id = $1 ORDER BY kafka_offset`, [
      `shoe-${shoeId}`,
    ]);

  it('(a) a made-up hash is quarantined: unsigned as SIGNATURE_INVALID, signed with the real key as HASH_MISMATCH', async () => {
    expect((await quarantined('atk-forged-a')).map((r) => r.reason)).toEqual(forgedA.map(() => 'SIGNATURE_INVALID'));
    const signed = await quarantined('atk-forged-a2');
    expect(signed.map((r) => [r.reason, r.authentic])).toEqual(forgedA2.map(() => ['HASH_MISMATCH', true]));
  });

  it('(b) a self-consistent chain without a valid signature is quarantined as SIGNATURE_INVALID (also signed with the development key)', async () => {
    expect((await quarantined('atk-forged-b')).map((r) => [r.reason, r.stream_version])).toEqual(forgedB.map((e) => ['SIGNATURE_INVALID', e.streamVersion]));
    expect((await quarantined('atk-forged-b2')).map((r) => r.reason)).toEqual(forgedB2.map(() => 'SIGNATURE_INVALID'));
  });

  it('(c) a legitimate record tampered in one byte is quarantined as SIGNATURE_INVALID', async () => {
    const rows = await q<{ event_id: string; reason: string }>(`SELECT event_id, reason FROM ${SCHEMA}.quarantine WHERE stream_id = ANY($1) ORDER BY kafka_offset`, [[legitA.events[0].streamId, legitC.events[0].streamId]]);
    expect(rows).toEqual([
      { event_id: settledA.eventId, reason: 'SIGNATURE_INVALID' },
      { event_id: legitC.events[cSettled].eventId, reason: 'SIGNATURE_INVALID' },
    ]);
    // the projected settlements are the genuine ones
    const [a] = await q(`SELECT payout::text AS payout FROM ${SCHEMA}.bet_settlements WHERE bet_id = $1`, [(settledA.data as { betId: string }).betId]);
    expect(a.payout).toBe((settledA.data as { payout: string }).payout);
  });

  it('(d) nothing forged reaches shoe_state, hand_outcomes, bet_settlements, reconciliation or the audit trail', async () => {
    for (const table of ['shoe_state', 'hand_outcomes', 'bet_settlements', 'reconciliation', 'audit_events', 'roads']) {
      const [{ n }] = await q(`SELECT count(*)::int AS n FROM ${SCHEMA}.${table} WHERE shoe_id = ANY($1)`, [FORGED_SHOES]);
      expect([table, n]).toEqual([table, 0]);
    }
    const [{ n }] = await q(`SELECT count(*)::int AS n FROM ${SCHEMA}.applied_events WHERE stream_id = ANY($1)`, [FORGED_SHOES.map((s) => `shoe-${s}`)]);
    expect(n).toBe(0);
    const [{ tables }] = await q(`SELECT count(DISTINCT table_id)::int AS tables FROM ${SCHEMA}.reconciliation WHERE table_id LIKE 'T-FORGED%'`);
    expect(tables).toBe(0);
  });

  it('(d) the quarantine table and the dead-letter topic hold every forged record, with its reason', async () => {
    const all = Object.values(sent).flat();
    const counts = await quarantineCounts(owner, SCHEMA);
    expect(counts).toMatchObject({ total: all.length, dlqPending: 0 });
    expect(counts.byReason).toMatchObject({ SIGNATURE_INVALID: all.length - forgedA2.length, HASH_MISMATCH: forgedA2.length });
    expect(runner.progress.quarantined).toBe(all.length);

    const copies = await readAll(kafka, dlq);
    expect(copies).toHaveLength(all.length);
    const header = (h: unknown) => (h === undefined ? undefined : String(Array.isArray(h) ? h[0] : h));
    const byOffset = new Map(copies.map((c) => [header(c.headers?.dlq_source_offset), c]));
    const rows = await q<{ kafka_offset: string; reason: string; value: Buffer; value_bytes: number }>(`SELECT kafka_offset::text, reason, value, value_bytes FROM ${SCHEMA}.quarantine ORDER BY kafka_offset`);
    for (const r of rows) {
      const copy = byOffset.get(r.kafka_offset)!;
      expect(copy).toBeDefined();
      expect(header(copy.headers?.dlq_reason)).toBe(r.reason);
      expect(header(copy.headers?.dlq_source_topic)).toBe(topic);
      expect(copy.value!.equals(r.value)).toBe(true);
      expect(r.value_bytes).toBe(r.value.length);
    }
    // the forger's own (missing or wrong) signature travels with the copy as evidence
    const devSigned = copies.filter((c) => header(c.headers?.[RECORD_SIGNATURE_HEADER]) !== undefined && header(c.headers?.dlq_reason) === 'SIGNATURE_INVALID');
    expect(devSigned.length).toBe(forgedB2.length + 2);
  });

  it('(e) the legitimate shoes before and after the forgeries, on the same partition, are projected in full', async () => {
    for (const shoe of [legitA, legitC]) {
      const [s] = await q(`SELECT status, stream_version, hand_number FROM ${SCHEMA}.shoe_state WHERE shoe_id = $1`, [shoe.shoeId]);
      expect(s).toEqual({ status: 'CLOSED', stream_version: shoe.events.length, hand_number: 6 });
      const [head] = await q(`SELECT version, hash FROM ${SCHEMA}.stream_heads WHERE stream_id = $1`, [shoe.events[0].streamId]);
      expect(head).toEqual({ version: shoe.events.length, hash: shoe.events[shoe.events.length - 1].hash });
      const [{ n }] = await q(`SELECT count(*)::int AS n FROM ${SCHEMA}.applied_events WHERE stream_id = $1`, [shoe.events[0].streamId]);
      expect(n).toBe(shoe.events.length);
      // the fixture's reconciliation (EUR minor units): turnover 1600 + 3705, payouts 2000 + 5029
      const [r] = await q(`SELECT sum(turnover)::text AS turnover, sum(payouts)::text AS payouts FROM ${SCHEMA}.reconciliation WHERE shoe_id = $1`, [shoe.shoeId]);
      expect(r).toEqual({ turnover: '5305', payouts: '7029' });
      const rounds = await q(`SELECT status FROM ${SCHEMA}.hand_outcomes WHERE shoe_id = $1 ORDER BY hand_number`, [shoe.shoeId]);
      expect(rounds.map((x) => x.status)).toEqual(['RESULTED', 'RESULTED', 'RESULTED', 'VOIDED', 'CORRECTED', 'VOIDED']);
    }
  });
});
