/**
 * The kafkajs adapter of the Kafka port (docs/architecture.md §6) against a recording stand-in for
 * kafkajs: each port call must reach kafkajs with the options the ledger has always used (idempotent
 * producer, acks = all, no topic auto-creation, manual offsets), and nothing the caller left out.
 * The integration specs run the same adapter against the real broker.
 */
const calls: { kafka: unknown[]; producer: unknown[]; consumer: unknown[]; send: unknown[]; run: unknown[]; createTopics: unknown[] } = {
  kafka: [],
  producer: [],
  consumer: [],
  send: [],
  run: [],
  createTopics: [],
};

/** The stand-in consumers made so far (listeners by event name, connect and disconnect counts). */
const fakeConsumers: { listeners: Record<string, (e: unknown) => void>; connects: number; disconnects: number }[] = [];

jest.mock('kafkajs', () => {
  const logLevel = { NOTHING: 0, ERROR: 1, WARN: 2, INFO: 4, DEBUG: 5 };
  const DefaultPartitioner = () => () => 0;
  class Kafka {
    constructor(config: unknown) {
      calls.kafka.push(config);
    }
    producer(options: unknown) {
      calls.producer.push(options);
      return { connect: async () => undefined, disconnect: async () => undefined, send: async (r: unknown) => void calls.send.push(r) };
    }
    consumer(options: unknown) {
      calls.consumer.push(options);
      const fake = {
        listeners: {} as Record<string, (e: unknown) => void>,
        connects: 0,
        disconnects: 0,
        connect: async () => void fake.connects++,
        disconnect: async () => void fake.disconnects++,
        run: async (r: unknown) => void calls.run.push(r),
        events: { GROUP_JOIN: 'join', CRASH: 'crash' },
        on: (event: string, listener: (e: unknown) => void) => ((fake.listeners[event] = listener), () => undefined),
      };
      fakeConsumers.push(fake);
      return fake;
    }
    admin() {
      return {
        createTopics: async (r: unknown) => (calls.createTopics.push(r), true),
        fetchTopicOffsets: async () => [{ partition: 0, offset: '7', low: '2', high: '9' }],
      };
    }
  }
  return { Kafka, logLevel, Partitioners: { DefaultPartitioner } };
});

import { Partitioners } from 'kafkajs';
import type { BatchPayload } from '../consumer';
import { createKafka, RESTART_AFTER_STOP_MS } from './kafkajs-client';

beforeEach(() => {
  for (const list of Object.values(calls)) list.length = 0;
});

describe('createKafka (kafkajs adapter)', () => {
  it('configures the client with what was given, warn by default, kafkajs console logging without a logger', () => {
    createKafka({ clientId: 'c', brokers: ['h:1', 'h:2'] });
    expect(calls.kafka[0]).toEqual({ clientId: 'c', brokers: ['h:1', 'h:2'], logLevel: 2 });
    createKafka({ clientId: 'c', brokers: ['h:1'], logLevel: 'nothing', retries: 0, connectionTimeoutMs: 1000, requestTimeoutMs: 3000 });
    expect(calls.kafka[1]).toEqual({ clientId: 'c', brokers: ['h:1'], logLevel: 0, retry: { retries: 0 }, connectionTimeout: 1000, requestTimeout: 3000 });
  });

  it("routes the client's log lines to the logger by level, fields without the message", () => {
    const lines: [string, Record<string, unknown>, string | undefined][] = [];
    const at = (level: string) => (fields: Record<string, unknown>, msg?: string) => void lines.push([level, fields, msg]);
    createKafka({ clientId: 'c', brokers: ['h:1'], logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } });
    const write = (calls.kafka[0] as { logCreator: (l: number) => (e: unknown) => void }).logCreator(2);
    for (const level of [1, 2, 4, 5]) write({ level, log: { message: `m${level}`, logger: 'kafkajs', broker: 'h:1' } });
    expect(lines).toEqual([
      ['error', { logger: 'kafkajs', broker: 'h:1' }, 'm1'],
      ['warn', { logger: 'kafkajs', broker: 'h:1' }, 'm2'],
      ['info', { logger: 'kafkajs', broker: 'h:1' }, 'm4'],
      ['debug', { logger: 'kafkajs', broker: 'h:1' }, 'm5'],
    ]);
  });

  it('makes idempotent producers that wait for every in-sync replica and never create topics', async () => {
    const producer = createKafka({ clientId: 'c', brokers: ['h:1'] }).producer();
    expect(calls.producer[0]).toEqual({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
    });
    await producer.send('t', [{ key: 'T-1', value: '{}', headers: { ce_id: 'x' } }]);
    expect(calls.send).toEqual([{ topic: 't', acks: -1, messages: [{ key: 'T-1', value: '{}', headers: { ce_id: 'x' } }] }]);
  });

  it('passes only the consumer options given, and never creates topics', () => {
    const kafka = createKafka({ clientId: 'c', brokers: ['h:1'] });
    kafka.consumer({ groupId: 'g' });
    const restartOnFailure = async () => false;
    kafka.consumer({ groupId: 'g', maxBytesPerPartition: 10, maxWaitTimeInMs: 100, retry: { retries: 8, restartOnFailure } });
    expect(calls.consumer).toEqual([
      { groupId: 'g', allowAutoTopicCreation: false },
      { groupId: 'g', allowAutoTopicCreation: false, maxBytesPerPartition: 10, maxWaitTimeInMs: 100, retry: { retries: 8, restartOnFailure } },
    ]);
  });

  it('runs a batch handler with manual resolution, and commits offsets grouped by topic', async () => {
    const consumer = createKafka({ clientId: 'c', brokers: ['h:1'] }).consumer({ groupId: 'g' });
    let seen: BatchPayload | undefined;
    await consumer.run({ autoCommit: false, autoResolve: false, partitionsConsumedConcurrently: 2, eachBatch: async (p) => void (seen = p) });
    const run = calls.run[0] as { autoCommit: boolean; eachBatchAutoResolve: boolean; partitionsConsumedConcurrently: number; eachBatch: (p: unknown) => Promise<void> };
    expect(run).toMatchObject({ autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: 2 });
    const committed: unknown[] = [];
    const batch = { topic: 't', partition: 1, messages: [], lastOffset: () => '4' };
    await run.eachBatch({
      batch,
      resolveOffset: () => undefined,
      heartbeat: async () => undefined,
      pause: () => () => undefined,
      isRunning: () => true,
      isStale: () => false,
      commitOffsetsIfNecessary: async (o: unknown) => void committed.push(o),
    });
    expect(seen!.batch).toBe(batch);
    await seen!.commitOffsets([
      { topic: 't', partition: 1, offset: '5' },
      { topic: 'u', partition: 0, offset: '2' },
      { topic: 't', partition: 2, offset: '9' },
    ]);
    expect(committed).toEqual([
      {
        topics: [
          {
            topic: 't',
            partitions: [
              { partition: 1, offset: '5' },
              { partition: 2, offset: '9' },
            ],
          },
          { topic: 'u', partitions: [{ partition: 0, offset: '2' }] },
        ],
      },
    ]);
  });

  it('leaves kafkajs defaults alone when the run names none', async () => {
    const consumer = createKafka({ clientId: 'c', brokers: ['h:1'] }).consumer({ groupId: 'g' });
    await consumer.run({ eachMessage: async () => undefined });
    expect(Object.keys(calls.run[0] as object)).toEqual(['eachMessage']);
  });

  it('creates topics waiting for their leaders, broker replication by default', async () => {
    const admin = createKafka({ clientId: 'c', brokers: ['h:1'] }).admin();
    await admin.createTopics([
      { name: 'a', partitions: 6, configs: { 'retention.ms': '-1' } },
      { name: 'b', partitions: 3, replicationFactor: 1 },
    ]);
    expect(calls.createTopics).toEqual([
      {
        waitForLeaders: true,
        topics: [
          { topic: 'a', numPartitions: 6, replicationFactor: -1, configEntries: [{ name: 'retention.ms', value: '-1' }] },
          { topic: 'b', numPartitions: 3, replicationFactor: 1, configEntries: [] },
        ],
      },
    ]);
    await expect(admin.fetchTopicOffsets('a')).resolves.toEqual([{ partition: 0, low: '2', high: '9' }]);
  });

  describe('a consumer kafkajs stopped for good (a non-retriable broker error)', () => {
    const coordinatorGone = Object.assign(new Error('Failed to find group coordinator'), { name: 'KafkaJSGroupCoordinatorNotFound' });
    const crash = (error: Error, restart: boolean) => fakeConsumers[fakeConsumers.length - 1].listeners.crash({ payload: { error, restart } });
    const start = async (restartOnFailure?: (e: Error) => Promise<boolean>) => {
      const consumer = createKafka({ clientId: 'c', brokers: ['h:1'] }).consumer({ groupId: 'g', ...(restartOnFailure && { retry: { restartOnFailure } }) });
      const seen: { error: Error; restart: boolean }[] = [];
      consumer.onCrash((c) => void seen.push(c));
      await consumer.connect();
      await consumer.run({ eachBatch: async () => undefined });
      return { consumer, seen, fake: fakeConsumers[fakeConsumers.length - 1] };
    };
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('restarts it when the owner says restart: reconnects and runs again after the wait, reported as a restart', async () => {
      const asked: Error[] = [];
      const { seen, fake } = await start(async (e) => (asked.push(e), true));
      expect(calls.run).toHaveLength(1);
      crash(coordinatorGone, false);
      await jest.advanceTimersByTimeAsync(0);
      expect(asked).toEqual([coordinatorGone]);
      expect(seen).toEqual([{ error: coordinatorGone, restart: true }]);
      await jest.advanceTimersByTimeAsync(RESTART_AFTER_STOP_MS - 1);
      expect(calls.run).toHaveLength(1); // not before the wait
      await jest.advanceTimersByTimeAsync(1);
      expect(fake.connects).toBe(2);
      expect(calls.run).toHaveLength(2);
      expect(calls.run[1]).toBe(calls.run[0]); // the same handler and options
    });

    it('leaves it stopped when the owner says no (a data error), or when nobody asked, or while disconnecting', async () => {
      const a = await start(async () => false);
      crash(coordinatorGone, false);
      await jest.advanceTimersByTimeAsync(10 * RESTART_AFTER_STOP_MS);
      expect(a.seen).toEqual([{ error: coordinatorGone, restart: false }]);
      expect(calls.run).toHaveLength(1);

      const b = await start();
      crash(coordinatorGone, false);
      await jest.advanceTimersByTimeAsync(10 * RESTART_AFTER_STOP_MS);
      expect(b.seen).toEqual([{ error: coordinatorGone, restart: false }]);
      expect(calls.run).toHaveLength(2);

      const c = await start(async () => true);
      crash(coordinatorGone, false);
      await jest.advanceTimersByTimeAsync(0);
      await c.consumer.disconnect();
      await jest.advanceTimersByTimeAsync(10 * RESTART_AFTER_STOP_MS);
      expect(calls.run).toHaveLength(3); // the restart was cancelled
    });

    it('passes on a restart kafkajs does itself without asking again', async () => {
      const asked: Error[] = [];
      const { seen } = await start(async (e) => (asked.push(e), true));
      crash(coordinatorGone, true);
      await jest.advanceTimersByTimeAsync(10 * RESTART_AFTER_STOP_MS);
      expect(asked).toEqual([]);
      expect(seen).toEqual([{ error: coordinatorGone, restart: true }]);
      expect(calls.run).toHaveLength(1);
    });
  });
});
