/**
 * Shared parts of the relay fault specs (docs/guarantees.md §4, §5, §13): relays as child
 * processes of the built relay (`dist/`, via {@link ServiceProcess}), events appended in-process
 * to the test database on a private topic, and the check of what the topic holds (every event
 * once in per-partition position order, or only byte-identical duplicates).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LedgerEvent } from '@ledger/events';
import type { KafkaClient } from '@ledger/kafka';
import { PgEventStore } from '@ledger/event-store';
import { ensureTopics } from '@ledger/infra';
import { DEVICE, TEST_DATABASE_URL, TEST_RELAY_DATABASE_URL, dealerChanges, ids, readRange, type ReadRecord } from '../../libs/event-store/src/testing/int-support';
import { ServiceProcess, sleep } from './cluster';

/** Polls `check` once a second until it is true. @returns whether it became true within `timeoutMs` */
export async function within(timeoutMs: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return true;
    } catch {
      /* not yet */
    }
    if (Date.now() >= deadline) return false;
    await sleep(1000);
  }
}

/** Creates `topic` (`partitions`, kept forever) unless present; retried once a second: a broker just started may answer metadata before it hosts the partitions. */
export async function ensureTopic(kafka: KafkaClient, topic: string, partitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await ensureTopics(admin, [{ name: topic, partitions, configs: { 'retention.ms': '-1', 'cleanup.policy': 'delete' } }]);
        return;
      } catch (e) {
        if (attempt >= 30) throw e;
        await sleep(1000);
      }
    }
  } finally {
    await admin.disconnect();
  }
}

/** A private run folder (logs, anchor file). */
export function runDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `ledger-${tag}-`));
}

/**
 * A relay process from `dist/` on the test database (its own role), with its anchor publisher
 * writing into `dir`. `env` overrides (KAFKA_BROKERS, RELAY_LEASE_TTL_MS …).
 */
export function relayProcess(label: string, dir: string, env: Record<string, string>): ServiceProcess & { relayLog: string; logText(): string } {
  const logFile = join(dir, `${label}.log`);
  const p = new ServiceProcess(
    'relay',
    {
      DATABASE_URL: TEST_DATABASE_URL,
      RELAY_DATABASE_URL: TEST_RELAY_DATABASE_URL,
      LOG_LEVEL: 'info',
      RELAY_CRASH_POINT: '',
      ANCHOR_FILE: join(dir, 'anchors.jsonl'),
      ANCHOR_TOPIC: 'test.int.anchors.v1',
      ...env,
    },
    logFile,
    () => undefined,
  );
  return Object.assign(p, {
    relayLog: logFile,
    logText: () => {
      try {
        return readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    },
  });
}

/** Appends `n` events in appends of 1–3 over `tables` tables (2 streams each); @returns them in position order */
export async function appendEvents(store: PgEventStore, tables: number, n: number, tag: string): Promise<LedgerEvent[]> {
  const streams = Array.from({ length: tables }, () => {
    const { tableId } = ids();
    return [0, 1].map(() => ({ tableId, streamId: ids().streamId, version: 0 }));
  }).flat();
  const all: LedgerEvent[] = [];
  for (let i = 0; all.length < n; i++) {
    const s = streams[i % streams.length];
    const r = await store.append({
      streamId: s.streamId,
      tableId: s.tableId,
      expectedVersion: s.version,
      events: dealerChanges(Math.min(1 + (i % 3), n - all.length), `${tag}${i}-`),
      metadata: { actor: DEVICE, correlationId: `${tag}-${i}` },
    });
    s.version = r.lastVersion;
    all.push(...r.events);
  }
  return all.sort((a, b) => (BigInt(a.globalPosition) < BigInt(b.globalPosition) ? -1 : 1));
}

/** Every record of `topic` from the start to its current end. */
export async function readWholeTopic(kafka: KafkaClient, topic: string, timeoutMs = 60_000): Promise<ReadRecord[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    const from = new Map(offsets.map((o) => [o.partition, BigInt(o.low)]));
    const to = new Map(offsets.map((o) => [o.partition, BigInt(o.high)]));
    // a broker just (re)started may not have its group coordinator yet: try again, once a second
    for (let attempt = 1; ; attempt++) {
      try {
        return await readRange(kafka, topic, from, to, timeoutMs);
      } catch (e) {
        if (attempt >= 10) throw e;
        await sleep(1000);
      }
    }
  } finally {
    await admin.disconnect();
  }
}

/** What {@link checkTopic} found. */
export interface TopicCheck {
  /** Events of `expected` missing from the topic. */
  readonly missing: string[];
  /** Records beyond the first of an event id (all byte-identical, else listed in `different`). */
  readonly duplicates: number;
  /** Event ids whose copies differ in key, value or headers. */
  readonly different: string[];
  /** Partitions where the first copies are not in global-position order. */
  readonly outOfOrder: number[];
  /** Records of events not in `expected` (other tests' events: ignored). */
  readonly foreign: number;
}

/**
 * Checks the records of a topic against the events appended: each expected event present, its
 * copies byte-identical (key, value, headers), and per partition the first copies in position order.
 */
export function checkTopic(records: readonly ReadRecord[], expected: readonly LedgerEvent[]): TopicCheck {
  const want = new Set(expected.map((e) => e.eventId));
  const first = new Map<string, ReadRecord>();
  let duplicates = 0;
  let foreign = 0;
  const different = new Set<string>();
  const lastPos = new Map<number, bigint>();
  const outOfOrder = new Set<number>();
  for (const r of records) {
    const id = r.headers.ce_id;
    if (!want.has(id)) {
      foreign++;
      continue;
    }
    const seen = first.get(id);
    if (seen) {
      duplicates++;
      if (seen.key !== r.key || seen.value !== r.value || JSON.stringify(seen.headers) !== JSON.stringify(r.headers)) different.add(id);
      continue;
    }
    first.set(id, r);
    const pos = BigInt((JSON.parse(r.value) as { globalPosition: string }).globalPosition); // the value is the authority (no position header)
    if (pos <= (lastPos.get(r.partition) ?? 0n)) outOfOrder.add(r.partition);
    lastPos.set(r.partition, pos);
  }
  return { missing: expected.filter((e) => !first.has(e.eventId)).map((e) => e.eventId), duplicates, different: [...different], outOfOrder: [...outOfOrder], foreign };
}
