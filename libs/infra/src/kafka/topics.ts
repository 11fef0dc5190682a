import type { KafkaAdmin } from '@ledger/kafka';

/**
 * A Kafka topic the ledger owns, declared as data so the local stack (`scripts/create-topics.ts`),
 * the tests and the services all create and check the same thing.
 */
export interface LedgerTopic {
  /** Topic name; the `.vN` suffix is the schema generation of what it carries. */
  readonly name: string;
  /** Partition count. Never lowered, and raising it reshuffles keys across partitions. */
  readonly partitions: number;
  /**
   * Replication factor; when absent the broker's `default.replication.factor` applies
   * (1 on the single-node local stack).
   */
  readonly replicationFactor?: number;
  /** Topic-level configs, as the broker spells them (`retention.ms`, `cleanup.policy`, ...). */
  readonly configs: Readonly<Record<string, string>>;
}

/**
 * The ledger's event stream, published by the outbox relay and read by the projections.
 * The stream id is the message key, so one stream's events stay in order on one partition.
 */
export const LEDGER_EVENTS_TOPIC = 'baccarat.ledger.events.v1';

/**
 * Analytics topic: one record per resulted, corrected or voided round, published
 * by the projector's analytics publisher (docs/architecture.md §7). Documented in `docs/asyncapi/asyncapi.yaml`.
 */
export const ANALYTICS_ROUND_OUTCOMES_TOPIC = 'baccarat.analytics.round-outcomes.v1';

/** Analytics topic: one record per settlement, resettlement or refund of a bet. */
export const ANALYTICS_SETTLEMENTS_TOPIC = 'baccarat.analytics.settlements.v1';

/** Analytics topic: a shoe's roads (scoreboards) after each change of its rounds. */
export const ANALYTICS_ROADS_TOPIC = 'baccarat.analytics.roads.v1';

/**
 * The significant events' own topic (docs/significant-events.md, docs/architecture.md §6): a copy,
 * byte for byte (same key, value, CloudEvents headers and signature), of every
 * `SignificantEventRaised` and `SignificantEventAcknowledged` the relay publishes to the ledger's
 * events topic, for consumers that want only those. The ledger topic keeps them too (the projector,
 * `npm run -s verify` and recall read it whole).
 */
export const SIGNIFICANT_EVENTS_TOPIC = 'baccarat.significant-events.v1';

/**
 * The significant-events topic that goes with events topic `eventsTopic`: {@link SIGNIFICANT_EVENTS_TOPIC}
 * for the ledger's own ({@link LEDGER_EVENTS_TOPIC}), `<eventsTopic>.significant` for any other (a test
 * suite's, a second ledger's), so two ledgers sharing a broker never mix their copies.
 */
export function significantEventsTopicOf(eventsTopic: string): string {
  return eventsTopic === LEDGER_EVENTS_TOPIC ? SIGNIFICANT_EVENTS_TOPIC : `${eventsTopic}.significant`;
}

/**
 * Configs shared by every ledger topic. Retention is forever (`retention.ms=-1`,
 * `retention.bytes=-1`) and records are deleted, never compacted: each topic is a replayable
 * history, not a queue nor a latest-value table. The replication factor and `min.insync.replicas`
 * are the brokers' defaults (`default.replication.factor`, `min.insync.replicas`): 1 and 1 on the
 * single-node local stack, 3 and 2 on the cluster (`npm run cluster`, docs/operations.md "The
 * production topology"), so one declaration serves both.
 */
const RETAINED_FOREVER: Readonly<Record<string, string>> = {
  'cleanup.policy': 'delete',
  'retention.ms': '-1',
  'retention.bytes': '-1',
  'message.timestamp.type': 'CreateTime',
};

/**
 * The three analytics topics (keyed by table id, JSON values, CloudEvents binary-mode headers):
 * 6 partitions, retained forever, delete policy.
 */
export const ANALYTICS_TOPICS: readonly LedgerTopic[] = [ANALYTICS_ROUND_OUTCOMES_TOPIC, ANALYTICS_SETTLEMENTS_TOPIC, ANALYTICS_ROADS_TOPIC].map((name) => ({ name, partitions: 6, configs: RETAINED_FOREVER }));

/**
 * Every topic the ledger needs: the event stream (a replayable copy of the event store), the
 * significant events' copy of it and the analytics topics derived from it.
 */
export const LEDGER_TOPICS: readonly LedgerTopic[] = [
  {
    name: LEDGER_EVENTS_TOPIC,
    partitions: 6,
    configs: RETAINED_FOREVER,
  },
  { name: SIGNIFICANT_EVENTS_TOPIC, partitions: 6, configs: RETAINED_FOREVER },
  ...ANALYTICS_TOPICS,
];

/** The declaration of a significant-events topic (as {@link SIGNIFICANT_EVENTS_TOPIC}'s: 6 partitions, retained forever). */
export function significantEventsTopicDeclaration(name: string): LedgerTopic {
  return { name, partitions: 6, configs: RETAINED_FOREVER };
}

/**
 * Retries `fn` while a just-started broker (or a just-created topic) still answers "This server does
 * not host this topic-partition" (metadata not propagated yet): up to 20 tries, 250 ms apart.
 */
async function withMetadataRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      const transient = /does not host this topic-partition|UNKNOWN_TOPIC_OR_PARTITION|LEADER_NOT_AVAILABLE/i.test(`${(e as Error).message} ${(e as { type?: string }).type ?? ''}`);
      if (!transient || attempt >= 20) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** What {@link ensureTopics} found and did. */
export interface EnsureTopicsResult {
  /** Topics that were missing and have been created. */
  readonly created: string[];
  /** Topics that already existed with the declared partition count. */
  readonly existing: string[];
}

/**
 * Creates the declared topics that are missing (waiting for their partition leaders) and checks that
 * those that exist have the declared partition count. Configs of existing topics are left as they are.
 *
 * Idempotent, so every `stack.sh up` and every service start may call it.
 *
 * @param admin a connected admin client of the Kafka port (`@ledger/kafka`)
 * @param topics the topics to ensure; {@link LEDGER_TOPICS} when omitted
 * @throws Error naming the topic when an existing topic's partition count differs from the declared one
 *   (partitions are never changed here: that would move keys between partitions and break per-stream order).
 */
export async function ensureTopics(admin: KafkaAdmin, topics: readonly LedgerTopic[] = LEDGER_TOPICS): Promise<EnsureTopicsResult> {
  const present = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !present.has(t.name));

  if (missing.length > 0) {
    // createTopics resolves false (not an error) when another client created one of them first
    // (so does a retry here); the partition check below covers that case too. On several brokers
    // its wait for the new partitions' leaders can meet a broker that has not had the topic's
    // metadata yet (UNKNOWN_TOPIC_OR_PARTITION): transient, so retried like the metadata read.
    await withMetadataRetry(() => admin.createTopics(missing));
  }

  const metadata = await withMetadataRetry(() => admin.fetchTopicMetadata(topics.map((t) => t.name)));
  const actual = new Map(metadata.map((m) => [m.name, m.partitions.length]));
  const mismatches = topics.filter((t) => actual.get(t.name) !== t.partitions).map((t) => `${t.name}: declared ${t.partitions} partitions, broker has ${actual.get(t.name) ?? 'none'}`);
  if (mismatches.length > 0) {
    throw new Error(`Kafka topics do not match their declarations (libs/infra/src/kafka/topics.ts): ${mismatches.join('; ')}`);
  }

  const createdNames = new Set(missing.map((t) => t.name));
  return {
    created: topics.filter((t) => createdNames.has(t.name)).map((t) => t.name),
    existing: topics.filter((t) => !createdNames.has(t.name)).map((t) => t.name),
  };
}

/**
 * The ledger's signed anchor checkpoints (docs/guarantees.md §8, docs/architecture.md §10): one record
 * per checkpoint, key `anchors`, value the signed anchor as canonical JSON (see `libs/anchors`). One
 * partition, so the checkpoints are in order; retained forever. Not in {@link LEDGER_TOPICS}: the
 * anchor publisher of the relay creates it on start.
 */
export const LEDGER_ANCHORS_TOPIC = 'baccarat.ledger.anchors.v1';

/** Declaration of {@link LEDGER_ANCHORS_TOPIC} (a topic of another name gets the same settings). */
export function anchorsTopic(name: string = LEDGER_ANCHORS_TOPIC): LedgerTopic {
  return { name, partitions: 1, configs: RETAINED_FOREVER };
}
