import { AssignerProtocol, ConfigResourceTypes, Kafka, logLevel, Partitioners, type Admin, type Consumer, type KafkaConfig, type LogEntry, type Producer } from 'kafkajs';
import type { GroupDescription, KafkaAdmin, NewTopic, PartitionOffsets, TopicMetadata } from '../admin';
import type { KafkaClient, KafkaClientOptions, KafkaLogger, KafkaLogLevel } from '../client';
import type { BatchRunOptions, ConsumerCrash, ConsumerOptions, KafkaConsumer, MessageRunOptions, TopicPartitionOffset } from '../consumer';
import type { KafkaProducer, OutgoingMessage } from '../producer';
import { TopicIdClient } from './topic-ids';

/**
 * The Kafka port's adapter on kafkajs 2.x (docs/architecture.md §6): the only production file that
 * imports `kafkajs`. Each port call maps onto one kafkajs call with the options the ledger has always
 * used; nothing is buffered, translated or retried here, so errors, timing and records are kafkajs'.
 */

const LEVELS: Readonly<Record<KafkaLogLevel, logLevel>> = {
  nothing: logLevel.NOTHING,
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
};

/**
 * A Kafka client on kafkajs. Connects nothing until a producer, consumer or admin does.
 * @param options brokers, client id, logging, retries, timeouts
 */
export function createKafka(options: KafkaClientOptions): KafkaClient {
  const config: KafkaConfig = {
    clientId: options.clientId,
    brokers: [...options.brokers],
    logLevel: LEVELS[options.logLevel ?? 'warn'],
  };
  if (options.logger) config.logCreator = logCreator(options.logger);
  if (options.retries !== undefined) config.retry = { retries: options.retries };
  if (options.connectionTimeoutMs !== undefined) config.connectionTimeout = options.connectionTimeoutMs;
  if (options.requestTimeoutMs !== undefined) config.requestTimeout = options.requestTimeoutMs;
  const kafka = new Kafka(config);
  return {
    producer: () =>
      new KafkajsProducer(
        kafka.producer({
          idempotent: true,
          maxInFlightRequests: 1,
          // Java-client-compatible murmur2 partitioning: a table id lands on the same partition for every client.
          createPartitioner: Partitioners.DefaultPartitioner,
          allowAutoTopicCreation: false,
        }),
      ),
    consumer: (o) => new KafkajsConsumer(kafka.consumer(consumerConfig(o)), o.retry?.restartOnFailure),
    admin: () => new KafkajsAdmin(kafka.admin(), new TopicIdClient(options.brokers, options.clientId, options.requestTimeoutMs ?? 10_000)),
  };
}

function consumerConfig(o: ConsumerOptions): Parameters<Kafka['consumer']>[0] {
  return {
    groupId: o.groupId,
    allowAutoTopicCreation: false,
    ...(o.maxBytesPerPartition !== undefined && { maxBytesPerPartition: o.maxBytesPerPartition }),
    ...(o.maxWaitTimeInMs !== undefined && { maxWaitTimeInMs: o.maxWaitTimeInMs }),
    ...(o.retry !== undefined && { retry: { ...o.retry } }),
  };
}

/** kafkajs log lines into the port's logger (kafkajs otherwise writes to the console). */
function logCreator(log: KafkaLogger): NonNullable<KafkaConfig['logCreator']> {
  return () =>
    ({ level, log: entry }: LogEntry) => {
      const { message, ...fields } = entry;
      if (level <= logLevel.ERROR) log.error(fields, message);
      else if (level === logLevel.WARN) log.warn(fields, message);
      else if (level === logLevel.INFO) log.info(fields, message);
      else log.debug(fields, message);
    };
}

class KafkajsProducer implements KafkaProducer {
  constructor(private readonly producer: Producer) {}

  connect(): Promise<void> {
    return this.producer.connect();
  }

  async send(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    // no compression: kafkajs' one built-in codec is gzip, and the relay is bound by its CPU, not
    // by bytes on the link (docs/architecture.md §6)
    await this.producer.send({ topic, acks: -1, messages: messages as OutgoingMessage[] });
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }
}

/** Wait before the adapter restarts a consumer kafkajs stopped for good (see {@link KafkajsConsumer}), in ms. */
export const RESTART_AFTER_STOP_MS = 2000;

/**
 * kafkajs restarts a crashed consumer only after an error it deems retriable; a broker-side error it
 * does not (`KafkaJSGroupCoordinatorNotFound` while a just-restarted or busy broker loads the group:
 * "This is not the correct coordinator for this group") stops the consumer for good, and a service
 * would die of a passing broker fault. Here the owner's `restartOnFailure` decides for EVERY error:
 * when it says restart, the adapter reconnects and runs again after {@link RESTART_AFTER_STOP_MS}
 * (again and again while that fails) and reports the crash with `restart: true` (docs/guarantees.md §13).
 */
class KafkajsConsumer implements KafkaConsumer {
  private runArgs: Parameters<Consumer['run']>[0] | null = null;
  private closing = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private readonly crashListeners: ((crash: ConsumerCrash) => void)[] = [];

  constructor(
    private readonly consumer: Consumer,
    private readonly restartOnFailure?: (error: Error) => Promise<boolean>,
  ) {
    this.consumer.on(this.consumer.events.CRASH, (e) => void this.crashed(e.payload.error, e.payload.restart));
  }

  private async crashed(error: Error, restartedByKafkajs: boolean): Promise<void> {
    let restart = restartedByKafkajs;
    const ours = !restartedByKafkajs && !this.closing && this.runArgs !== null && this.restartOnFailure !== undefined;
    if (ours) restart = await this.restartOnFailure!(error).catch(() => false);
    for (const listener of this.crashListeners) listener({ error, restart });
    if (ours && restart) this.restartTimer = setTimeout(() => void this.restart(), RESTART_AFTER_STOP_MS);
  }

  private async restart(): Promise<void> {
    this.restartTimer = null;
    if (this.closing || !this.runArgs) return;
    try {
      await this.consumer.connect();
      await this.consumer.run(this.runArgs);
    } catch (err) {
      await this.consumer.disconnect().catch(() => undefined);
      await this.crashed(err as Error, false);
    }
  }

  connect(): Promise<void> {
    this.closing = false;
    return this.consumer.connect();
  }

  subscribe(options: { readonly topic: string; readonly fromBeginning: boolean }): Promise<void> {
    return this.consumer.subscribe({ topic: options.topic, fromBeginning: options.fromBeginning });
  }

  run(options: BatchRunOptions | MessageRunOptions): Promise<void> {
    const common = {
      ...(options.autoCommit !== undefined && { autoCommit: options.autoCommit }),
      ...(options.partitionsConsumedConcurrently !== undefined && {
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently,
      }),
    };
    if ('eachMessage' in options) {
      const handler = options.eachMessage;
      this.runArgs = { ...common, eachMessage: ({ topic, partition, message }) => handler({ topic, partition, message }) };
      return this.consumer.run(this.runArgs);
    }
    const handler = options.eachBatch;
    this.runArgs = {
      ...common,
      ...(options.autoResolve !== undefined && { eachBatchAutoResolve: options.autoResolve }),
      eachBatch: (p) =>
        handler({
          batch: p.batch,
          resolveOffset: p.resolveOffset,
          commitOffsets: (offsets) => p.commitOffsetsIfNecessary({ topics: byTopic(offsets) }),
          heartbeat: p.heartbeat,
          pause: p.pause,
          isRunning: p.isRunning,
          isStale: p.isStale,
        }),
    };
    return this.consumer.run(this.runArgs);
  }

  seek(position: TopicPartitionOffset): void {
    this.consumer.seek({ topic: position.topic, partition: position.partition, offset: position.offset });
  }

  onPartitionsAssigned(listener: (assignment: Readonly<Record<string, readonly number[]>>) => void): void {
    this.consumer.on(this.consumer.events.GROUP_JOIN, (e) => listener(e.payload.memberAssignment));
  }

  onCrash(listener: (crash: ConsumerCrash) => void): void {
    this.crashListeners.push(listener);
  }

  disconnect(): Promise<void> {
    this.closing = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    return this.consumer.disconnect();
  }
}

/** Port offsets → kafkajs' `{ topics: [{ topic, partitions: [{ partition, offset }] }] }`, in their order. */
function byTopic(offsets: readonly TopicPartitionOffset[]) {
  const topics: { topic: string; partitions: { partition: number; offset: string }[] }[] = [];
  for (const o of offsets) {
    let t = topics.find((x) => x.topic === o.topic);
    if (!t) topics.push((t = { topic: o.topic, partitions: [] }));
    t.partitions.push({ partition: o.partition, offset: o.offset });
  }
  return topics;
}

class KafkajsAdmin implements KafkaAdmin {
  constructor(
    private readonly admin: Admin,
    /** Topic ids, which kafkajs cannot fetch (see topic-ids.ts). */
    private readonly topicIds: TopicIdClient,
  ) {}

  connect(): Promise<void> {
    return this.admin.connect();
  }

  disconnect(): Promise<void> {
    this.topicIds.close();
    return this.admin.disconnect();
  }

  fetchTopicIds(topics: readonly string[]): Promise<Map<string, string | null>> {
    return this.topicIds.fetch(topics);
  }

  listTopics(): Promise<string[]> {
    return this.admin.listTopics();
  }

  createTopics(topics: readonly NewTopic[]): Promise<boolean> {
    return this.admin.createTopics({
      waitForLeaders: true,
      topics: topics.map((t) => ({
        topic: t.name,
        numPartitions: t.partitions,
        replicationFactor: t.replicationFactor ?? -1,
        configEntries: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
      })),
    });
  }

  deleteTopics(topics: readonly string[]): Promise<void> {
    return this.admin.deleteTopics({ topics: [...topics] });
  }

  async fetchTopicMetadata(topics: readonly string[]): Promise<TopicMetadata[]> {
    return (await this.admin.fetchTopicMetadata({ topics: [...topics] })).topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionId: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr })),
    }));
  }

  async describeTopicConfigs(topics: readonly string[], names: readonly string[]): Promise<Map<string, Record<string, string>>> {
    const answer = await this.admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: [...names] })),
    });
    return new Map(answer.resources.map((r) => [r.resourceName, Object.fromEntries(r.configEntries.map((c) => [c.configName, c.configValue]))]));
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const g = (await this.admin.describeGroups([groupId])).groups[0];
    return {
      groupId,
      state: g?.state ?? 'Unknown',
      members: (g?.members ?? []).map((m) => {
        const decoded = m.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment) : null;
        return { memberId: m.memberId, clientId: m.clientId, host: m.clientHost, assignment: decoded?.assignment ?? {} };
      }),
    };
  }

  async describeCluster(): Promise<{ brokers: { nodeId: number; host: string; port: number }[]; controller: number | null; clusterId: string }> {
    const c = await this.admin.describeCluster();
    return { brokers: c.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port })), controller: c.controller, clusterId: c.clusterId };
  }

  async fetchTopicOffsets(topic: string): Promise<PartitionOffsets[]> {
    return (await this.admin.fetchTopicOffsets(topic)).map((o) => ({ partition: o.partition, low: o.low, high: o.high }));
  }

  async deleteGroups(groupIds: readonly string[]): Promise<void> {
    await this.admin.deleteGroups([...groupIds]);
  }
}
