/**
 * Attack: someone with the PostgreSQL superuser rewrites one event and recomputes its hash chain
 * consistently (docs/guarantees.md §8 and §13). The in-database chain verifier is fooled; the signed
 * checkpoints kept outside PostgreSQL (anchor file, anchors topic) and the Kafka copy are not:
 * `npm run -s verify` names the stream, version and event, and exits non-zero. A forged anchor line
 * is reported too.
 *
 * Real PostgreSQL and Kafka. The spec works in a database of its own (`<TEST_DB_NAME>_anchors`,
 * created here as the superuser) so that "every stream is consistent" is a statement about its own
 * events only, and on topics of its own.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { ConfigService } from '@nestjs/config';
import type { KafkaAdmin as Admin, KafkaClient as Kafka } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import type { LedgerEvent, NewEvent } from '@ledger/events';
import { ensureTopics } from '@ledger/infra';
import { LedgerApiEnv, loadConfig } from '@ledger/config';
import { EVENT_COLUMNS, OutboxRelay, PgEventStore, computeEventHash, createDataSource, rowToEnvelope, runMigrations, type EventRow } from '@ledger/event-store';
import {
  AnchorPublisher,
  anchorText,
  kafkaClient,
  parseAnchor,
  pgSession,
  publicKeyId,
  readAnchorLines,
  readPublicKeys,
  readSigningKey,
  signCheckpoint,
  verifyLedger,
  type VerificationReport,
  type VerifyLedgerOptions,
} from '@ledger/anchors';
import { DEVICE, TEST_ADMIN_DATABASE_URL, TEST_DATABASE_URL, TEST_KAFKA_BROKERS, collectingLogger, dealerChanges, eventually, kafkaAdmin } from '../../libs/event-store/src/testing/int-support';
import { AnchorsController } from '../../apps/ledger/src/anchors/anchors.controller';

jest.setTimeout(180_000);

const ROOT = resolve(__dirname, '../..');
const DB_NAME = `${process.env.TEST_DB_NAME ?? 'ledger_test'}_anchors`;
const withDb = (url: string, db: string) => {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
};
const DB_URL = withDb(TEST_DATABASE_URL, DB_NAME);
const ADMIN_URL = withDb(TEST_ADMIN_DATABASE_URL, DB_NAME);
const EVENTS_TOPIC = 'test.attack.anchors.events.v1';
const ANCHORS_TOPIC = 'test.attack.anchors.v1';

let dir: string;
let anchorFile: string;
let privateKeyFile: string;
let publicKeyFile: string;
let ds: DataSource;
let store: PgEventStore;
let kafka: Kafka;
let admin: Admin;
let client: Client;

/** The streams of the spec and their events as recorded. */
const streams: { A: Stream; B: Stream; C: Stream } = {} as never;
interface Stream {
  readonly streamId: string;
  readonly tableId: string;
  readonly events: LedgerEvent[];
}

async function superuser<T>(url: string, work: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  await superuser(withDb(TEST_ADMIN_DATABASE_URL, 'postgres'), async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${DB_NAME} OWNER ${new URL(TEST_DATABASE_URL).username || 'ledger'}`);
  });
  ds = createDataSource(DB_URL, { poolSize: 4, applicationName: 'ledger-attack-anchors' });
  await ds.initialize();
  await runMigrations(ds);
  store = new PgEventStore(ds, { logger: collectingLogger(), topic: EVENTS_TOPIC });
  ({ kafka, admin } = await kafkaAdmin());
  await ensureTopics(admin, [{ name: EVENTS_TOPIC, partitions: 6, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
  client = new Client({ connectionString: DB_URL });
  await client.connect();

  dir = mkdtempSync(join(tmpdir(), 'ledger-anchors-'));
  anchorFile = join(dir, 'anchors.jsonl');
  privateKeyFile = join(dir, 'anchor-private.pem');
  publicKeyFile = join(dir, 'anchor-public.pem');
  const pair = generateKeyPairSync('ed25519');
  writeFileSync(privateKeyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(publicKeyFile, pair.publicKey.export({ type: 'spki', format: 'pem' }));

  for (const [name, table] of [
    ['A', 'T-1'],
    ['B', 'T-1'],
    ['C', 'T-2'],
  ] as const) {
    streams[name] = { streamId: `shoe-attack-${name}-${randomUUID()}`, tableId: `${table}-${randomUUID().slice(0, 6)}`, events: [] };
  }
});

afterAll(async () => {
  await client?.end();
  await ds?.destroy();
  await admin?.disconnect();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await superuser(withDb(TEST_ADMIN_DATABASE_URL, 'postgres'), (c) => c.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`)).catch(() => undefined);
});

async function append(s: Stream, events: NewEvent[]): Promise<void> {
  const r = await store.append({ streamId: s.streamId, tableId: s.tableId, expectedVersion: s.events.length, events, metadata: { actor: DEVICE, correlationId: randomUUID() } });
  s.events.push(...r.events);
}

async function relayAll(): Promise<void> {
  const relay = new OutboxRelay({ databaseUrl: DB_URL, brokers: TEST_KAFKA_BROKERS, logger: collectingLogger(), crashPoint: null });
  try {
    expect((await relay.runOnce()).leader).toBe(true);
  } finally {
    await relay.stop();
  }
}

function publisher(logger = collectingLogger(), intervalMs = 3_600_000): AnchorPublisher {
  return new AnchorPublisher({
    databaseUrl: DB_URL,
    kafka: kafkaClient(TEST_KAFKA_BROKERS, 'ledger-attack-anchors'),
    topic: ANCHORS_TOPIC,
    anchorFile,
    signingKey: readSigningKey(privateKeyFile),
    intervalMs,
    pollMs: 100,
    logger,
  });
}

async function anchorOnce(): Promise<NonNullable<Awaited<ReturnType<AnchorPublisher['anchorNow']>>>> {
  const p = publisher();
  try {
    const a = await p.anchorNow();
    expect(a).not.toBeNull();
    return a!;
  } finally {
    await p.stop();
  }
}

async function verify(over: Partial<VerifyLedgerOptions> = {}): Promise<VerificationReport> {
  return verifyLedger({
    session: pgSession(client),
    publicKeys: readPublicKeys([publicKeyFile]),
    anchorFile,
    kafka: kafkaClient(TEST_KAFKA_BROKERS, 'ledger-attack-verify'),
    anchorsTopic: ANCHORS_TOPIC,
    eventsTopic: EVENTS_TOPIC,
    ...over,
  });
}

/** The spec's settings as `npm run -s verify` reads them from the environment (`VerifyEnv`). */
function verifyEnv(): Record<string, string> {
  return {
    DATABASE_URL: DB_URL,
    KAFKA_BROKERS: TEST_KAFKA_BROKERS.join(','),
    ANCHOR_FILE: anchorFile,
    ANCHOR_PUBLIC_KEY_FILE: publicKeyFile,
    LEDGER_EVENTS_TOPIC: EVENTS_TOPIC,
    ANCHOR_TOPIC: ANCHORS_TOPIC,
  };
}

/**
 * `npm run -s verify` as a process (node + tsx): the spec's settings as flags (`flags: false`: none),
 * `env` over the spec's own environment.
 */
function verifyCli(extra: string[] = [], o: { flags?: boolean; env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const flags = o.flags === false ? [] : ['--database-url', DB_URL, '--brokers', TEST_KAFKA_BROKERS.join(','), '--anchor-file', anchorFile, '--public-key', publicKeyFile, '--topic', EVENTS_TOPIC, '--anchors-topic', ANCHORS_TOPIC];
  const args = ['--import', 'tsx', 'scripts/verify.ts', ...flags, ...extra];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((res) => child.on('exit', (code) => res({ code, stdout, stderr })));
}

const shoeClosed = (): NewEvent => ({ eventId: randomUUID(), type: 'ShoeClosed', data: { roundsPlayed: 0, cardsRemaining: 400 } });

describe('anchors outside PostgreSQL against a superuser who rewrites history (docs/guarantees.md §8, §13)', () => {
  it('signs checkpoints of every changed stream head, to the anchor file and the anchors topic', async () => {
    const { A, B, C } = streams;
    // 11 events interleaved over the streams: one checkpoint's range crosses positions 9 → 10 (order by number, not text)
    await append(A, dealerChanges(2, 'a'));
    await append(B, dealerChanges(3, 'b'));
    await append(C, dealerChanges(1, 'c'));
    await append(B, dealerChanges(3, 'b1'));
    await append(C, dealerChanges(2, 'c1'));
    await relayAll();
    const first = await anchorOnce();
    expect(first.checkpoint.seq).toBe(1);
    expect(first.checkpoint.streams).toEqual(
      [A, B, C].map((s) => ({ streamId: s.streamId, version: s.events.length, headHash: s.events[s.events.length - 1].hash })).sort((x, y) => Buffer.compare(Buffer.from(x.streamId), Buffer.from(y.streamId))),
    );
    expect(first.checkpoint.globalPosition).toBe(C.events[2].globalPosition);
    expect(first.checkpoint.globalPosition).toBe('11');

    await append(A, dealerChanges(2, 'a2'));
    await relayAll();
    const second = await anchorOnce();
    expect(second.checkpoint.seq).toBe(2);
    expect(second.checkpoint.streams.map((s) => [s.streamId, s.version])).toEqual([[A.streamId, 4]]);

    const lines = await readAnchorLines(anchorFile);
    expect(lines.map((l) => l.text)).toEqual([anchorText(first), anchorText(second)]);
    const idle = publisher();
    try {
      expect(await idle.anchorNow()).toBeNull(); // nothing new: no checkpoint
    } finally {
      await idle.stop();
    }
  });

  it('waits for the interval, but signs at once when a shoe closes', async () => {
    const { B, C } = streams;
    const logger = collectingLogger();
    const p = publisher(logger);
    p.start();
    try {
      await eventually(async () => p.lastAnchor?.checkpoint.seq === 2, 20_000, 'the loop to load the state');
      await append(B, dealerChanges(1, 'b2'));
      await relayAll();
      await new Promise((r) => setTimeout(r, 1500));
      expect(p.lastAnchor!.checkpoint.seq).toBe(2); // the interval (1 h) has not passed
      await append(C, [shoeClosed()]);
      await relayAll();
      await eventually(async () => p.lastAnchor?.checkpoint.seq === 3, 10_000, 'a checkpoint after ShoeClosed');
      expect(p.lastAnchor!.checkpoint.streams.map((s) => [s.streamId, s.version]).sort()).toEqual(
        [
          [B.streamId, 7],
          [C.streamId, 4],
        ].sort(),
      );
    } finally {
      await p.stop();
    }
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('verify: every stream consistent with the anchors and the Kafka copy; the in-database verifier agrees', async () => {
    const r = await verify();
    expect(r.divergences).toEqual([]);
    expect(r).toMatchObject({ ok: true, anchorsChecked: 3, streamsChecked: 3, eventsChecked: 15, firstDivergence: null });
    expect(r.kafkaRecordsChecked).toBeGreaterThanOrEqual(15);
    expect((await store.verifyAll()).ok).toBe(true);

    const cli = await verifyCli();
    expect([cli.code, cli.stderr]).toEqual([0, '']);
    expect(cli.stdout).toMatch(/anchors checked 3 .*streams checked 3; events checked 15/);
    expect(cli.stdout).toContain('divergences 0');
  });

  it('verify reads its settings from the validated environment (VerifyEnv): a flag takes precedence, a bad value stops it naming the variable', async () => {
    const fromEnv = await verifyCli([], { flags: false, env: verifyEnv() });
    expect([fromEnv.code, fromEnv.stderr]).toEqual([0, '']);
    expect(fromEnv.stdout).toMatch(/anchors checked 3 .*streams checked 3; events checked 15/);

    // the environment names a file that does not exist; the flag wins
    const flagWins = await verifyCli(['--anchor-file', anchorFile], { flags: false, env: { ...verifyEnv(), ANCHOR_FILE: join(dir, 'none.jsonl') } });
    expect([flagWins.code, flagWins.stderr]).toEqual([0, '']);

    const bad = await verifyCli([], { env: { ANCHOR_TOPIC: 'not a topic' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('ANCHOR_TOPIC: expected a Kafka topic name');
    expect(bad.stdout).toBe('');
  });

  it('a forged anchor line (a head changed after signing, or signed by another key) is reported', async () => {
    const forgedFile = join(dir, 'forged.jsonl');
    copyFileSync(anchorFile, forgedFile);
    const lines = await readAnchorLines(anchorFile);
    const last = parseAnchor(lines[lines.length - 1].text);
    if ('error' in last) throw new Error(last.error);
    const a = last.anchor;
    const altered = { ...a, checkpoint: { ...a.checkpoint, streams: a.checkpoint.streams.map((s) => ({ ...s, headHash: 'f'.repeat(64) })) } };
    appendFileSync(forgedFile, anchorText(altered) + '\n');
    const r = await verify({ anchorFile: forgedFile, kafka: null });
    expect(r.ok).toBe(false);
    expect(r.divergences.map((d) => [d.source, d.kind, d.anchorSeq])).toEqual([['anchor-file', 'ANCHOR_SIGNATURE_INVALID', 3]]);
    expect(r.firstDivergence!.reason).toContain(`${forgedFile} line 4`);

    const mallory = generateKeyPairSync('ed25519');
    const foreign = signCheckpoint({ ...a.checkpoint, seq: 4, keyId: publicKeyId(mallory.publicKey) }, mallory.privateKey);
    copyFileSync(anchorFile, forgedFile);
    appendFileSync(forgedFile, anchorText(foreign) + '\n');
    const r2 = await verify({ anchorFile: forgedFile, kafka: null });
    expect(r2.divergences.map((d) => [d.kind, d.anchorSeq])).toEqual([['ANCHOR_KEY_UNKNOWN', 4]]);

    const cli = await verifyCli(['--anchor-file', forgedFile, '--no-kafka']);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain('ANCHOR_KEY_UNKNOWN');
  });

  it('a consistent rewrite of one event and its chain as the superuser: the in-database verifier says ok, verify names stream, version and event through the anchors and the Kafka copy', async () => {
    const { A } = streams;
    const victim = A.events[1]; // version 2, the head checkpoint #1 signed
    expect(victim.streamVersion).toBe(2);
    await rewriteChain(A.streamId, 2, { ...(victim.data as object), dealerId: 'mallory' });

    // the insider's rewrite is consistent: the chain stored in PostgreSQL checks out
    const inDb = await store.verifyChain(A.streamId);
    expect(inDb).toMatchObject({ ok: true, problems: [] });
    const [{ data }] = (await client.query(`SELECT data FROM events WHERE event_id = $1`, [victim.eventId])).rows;
    expect(data.dealerId).toBe('mallory');

    const at = { streamId: A.streamId, version: 2, eventId: victim.eventId, globalPosition: victim.globalPosition };
    // through the anchors alone
    const byAnchors = await verify({ kafka: null });
    expect(byAnchors.ok).toBe(false);
    expect(byAnchors.firstDivergence).toMatchObject({ source: 'anchors', kind: 'HEAD_MISMATCH', anchorSeq: 1, ...at });
    expect(byAnchors.firstDivergence!.reason).toMatch(/versions 1\.\.2/);
    // the signed head of version 4 (checkpoint #2) differs too
    expect(byAnchors.divergences.filter((d) => d.kind === 'HEAD_MISMATCH')).toHaveLength(1); // one per stream: the first
    expect(byAnchors.divergences.every((d) => d.streamId === A.streamId)).toBe(true);

    // through the Kafka copy alone
    const byKafka = await verify({ anchorFile: null, anchorsTopic: null, publicKeys: new Map(), graceMs: 3_600_000 });
    expect(byKafka.firstDivergence).toMatchObject({ source: 'kafka', kind: 'KAFKA_MISMATCH', ...at });
    expect(byKafka.firstDivergence!.reason).toMatch(/in data, hash/);
    expect(byKafka.firstDivergence!.reason).toContain('the Kafka copy is consistent with its own hash');
    expect(byKafka.divergences.filter((d) => d.kind === 'KAFKA_MISMATCH').map((d) => d.version)).toEqual([2, 3, 4]);

    // both together, as `npm run -s verify` runs
    const both = await verify();
    expect(both.divergences.map((d) => [d.source, d.kind, d.version])).toEqual(
      expect.arrayContaining([
        ['anchors', 'HEAD_MISMATCH', 2],
        ['kafka', 'KAFKA_MISMATCH', 2],
      ]),
    );
    expect(both.firstDivergence).toMatchObject(at);

    const cli = await verifyCli();
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(`FIRST: [anchors] HEAD_MISMATCH (stream ${A.streamId}, version 2, event ${victim.eventId}`);
    const json = await verifyCli(['--json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as VerificationReport;
    expect(report.firstDivergence).toMatchObject(at);
  });

  it('GET /audit/anchors/verify gives the same report (the anchor file; with ?kafka=true the topics too)', async () => {
    const { A } = streams;
    const victim = A.events[1];
    // the API's configuration as its main reads it, with this spec's anchors and topics
    const config = loadConfig(LedgerApiEnv, {
      LEDGER_ENV: 'development',
      ANCHOR_FILE: anchorFile,
      ANCHOR_PUBLIC_KEY_FILE: publicKeyFile,
      ANCHOR_TOPIC: ANCHORS_TOPIC,
      LEDGER_EVENTS_TOPIC: EVENTS_TOPIC,
      KAFKA_BROKERS: TEST_KAFKA_BROKERS.join(','),
    });
    const route = new AnchorsController(ds, new ConfigService<LedgerApiEnv, true>({ ...config }));
    const fileOnly = await route.verify({});
    expect(fileOnly).toMatchObject({ ok: false, kafkaRecordsChecked: null, anchorsChecked: 3 });
    expect(fileOnly.firstDivergence).toMatchObject({ source: 'anchors', kind: 'HEAD_MISMATCH', streamId: A.streamId, version: 2, eventId: victim.eventId });
    const withKafka = await route.verify({ kafka: 'true' });
    expect(withKafka.divergences).toEqual(expect.arrayContaining([expect.objectContaining({ source: 'kafka', kind: 'KAFKA_MISMATCH', streamId: A.streamId, version: 2, eventId: victim.eventId })]));
    await expect(route.verify({ kafka: 'yes' })).rejects.toMatchObject({ code: 'VALIDATION.FAILED', status: 400 });
  });

  it('the anchor publisher does not sign the rewritten stream onward: the next checkpoint leaves it out', async () => {
    const { A, B } = streams;
    await append(A, dealerChanges(1, 'after')); // chains onto the rewritten head the store now holds
    await append(B, dealerChanges(1, 'b3'));
    await relayAll();
    const logger = collectingLogger();
    const p = publisher(logger);
    let a;
    try {
      a = await p.anchorNow();
    } finally {
      await p.stop();
    }
    expect(a!.checkpoint.streams.map((s) => s.streamId)).toEqual([B.streamId]);
    expect(logger.lines.filter((l) => l.level === 'error').map((l) => [l.msg, l.fields.streamId])).toEqual([
      ['stream does not extend its signed head: its history was rewritten in PostgreSQL; left out of the checkpoint', A.streamId],
    ]);
    const r = await verify();
    expect(r.divergences).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'NOT_ANCHORED', streamId: A.streamId, version: 5 })]));
  });
});

/**
 * As the superuser: replaces the data of `streamId`@`version`, recomputes its hash and every later
 * hash of the stream (prev_hash links included), moves the stream head: a rewrite the chain stored
 * in PostgreSQL cannot tell.
 */
async function rewriteChain(streamId: string, version: number, data: unknown): Promise<void> {
  await superuser(ADMIN_URL, async (c) => {
    await c.query('BEGIN');
    await c.query('ALTER TABLE events DISABLE TRIGGER USER');
    const { rows } = await c.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.stream_id = $1 AND e.stream_version >= $2 ORDER BY e.stream_version`, [streamId, version]);
    let prevHash = rows[0].prev_hash;
    for (const [i, row] of rows.entries()) {
      const e = { ...rowToEnvelope(row), prevHash, ...(i === 0 ? { data } : {}) };
      const hash = computeEventHash(e);
      await c.query(`UPDATE events SET data = $2::jsonb, prev_hash = $3, hash = $4 WHERE event_id = $1`, [e.eventId, JSON.stringify(e.data), prevHash, hash]);
      prevHash = hash;
    }
    await c.query(`UPDATE streams SET last_hash = $2 WHERE stream_id = $1`, [streamId, prevHash]);
    await c.query('ALTER TABLE events ENABLE TRIGGER USER');
    await c.query('COMMIT');
  });
}
