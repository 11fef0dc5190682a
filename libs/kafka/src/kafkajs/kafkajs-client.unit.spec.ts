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
      return { run: async (r: unknown) => void calls.run.push(r), events: { GROUP_JOIN: 'join', CRASH: 'crash' }, on: () => () => undefined };
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
import { createKafka } from './kafkajs-client';

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
          { topic: 't', partitions: [{ partition: 1, offset: '5' }, { partition: 2, offset: '9' }] },
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
});
