/**
 * The admin side of the Kafka port (docs/architecture.md §6): topics, offsets, groups.
 */

/** A topic to create. The shape of `LedgerTopic` (`@ledger/infra`), so a declaration is passed as is. */
export interface NewTopic {
  readonly name: string;
  readonly partitions: number;
  /** @default the broker's `default.replication.factor` */
  readonly replicationFactor?: number;
  /** Topic-level configs, as the broker spells them (`retention.ms`, `cleanup.policy`, ...). @default none */
  readonly configs?: Readonly<Record<string, string>>;
}

/** What the cluster knows about a topic. */
export interface TopicMetadata {
  readonly name: string;
  /**
   * One entry per partition: its id, the broker id of its leader, the broker ids of its replicas
   * and of those in sync with the leader (the ISR; docs/operations.md, "The production topology").
   */
  readonly partitions: readonly { readonly partitionId: number; readonly leader: number; readonly replicas: readonly number[]; readonly isr: readonly number[] }[];
}

/** A consumer group as its coordinator describes it: its state and, per member, the partitions it holds. */
export interface GroupDescription {
  readonly groupId: string;
  /** `Stable`, `PreparingRebalance`, `CompletingRebalance`, `Empty`, `Dead`, or `Unknown`. */
  readonly state: string;
  readonly members: readonly {
    readonly memberId: string;
    readonly clientId: string;
    readonly host: string;
    /** Topic → partition ids assigned to the member (empty while the group rebalances). */
    readonly assignment: Readonly<Record<string, readonly number[]>>;
  }[];
}

/** A partition's offsets: `low` the first one still held, `high` the next one to be written (the high watermark). Decimal strings. */
export interface PartitionOffsets {
  readonly partition: number;
  readonly low: string;
  readonly high: string;
}

/** An admin client. Connect before use, disconnect after. */
export interface KafkaAdmin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** Names of every topic of the cluster. */
  listTopics(): Promise<string[]>;
  /**
   * Creates the topics and waits until each partition has a leader.
   * @returns false (not an error) when one of them existed already
   */
  createTopics(topics: readonly NewTopic[]): Promise<boolean>;
  /** Deletes the topics. @throws the client's error, e.g. for an unknown topic */
  deleteTopics(topics: readonly string[]): Promise<void>;
  /**
   * Metadata of the named topics.
   * @throws the client's error while a topic is unknown, or not yet hosted by its leader (retry then)
   */
  fetchTopicMetadata(topics: readonly string[]): Promise<TopicMetadata[]>;
  /** Low and high offsets of every partition of `topic`. */
  fetchTopicOffsets(topic: string): Promise<PartitionOffsets[]>;
  /**
   * The topic id of each named topic (KIP-516): what tells a re-created topic from the old one of
   * the same name. Kafka's spelling (`Uuid.toString`: 22 characters of URL-safe base64); `null`
   * for a broker without topic ids (before Kafka 2.8).
   * @throws an error naming the topic when a broker answers one for it (`UNKNOWN_TOPIC_OR_PARTITION` while it does not exist)
   */
  fetchTopicIds(topics: readonly string[]): Promise<Map<string, string | null>>;
  /**
   * The brokers of the cluster and its controller (a round trip to a broker: the readiness probes'
   * Kafka check, docs/architecture.md §8).
   * @throws the client's error when no broker answers
   */
  describeCluster(): Promise<{ readonly brokers: readonly { readonly nodeId: number; readonly host: string; readonly port: number }[]; readonly controller: number | null; readonly clusterId: string }>;
  /**
   * The effective value of each named config of each topic, as the brokers read it back (a
   * topic-level value, else the broker's default): e.g. `min.insync.replicas`.
   * @returns topic → config name → value (a name the broker does not know is absent)
   * @throws the client's error when a topic is unknown
   */
  describeTopicConfigs(topics: readonly string[], names: readonly string[]): Promise<Map<string, Record<string, string>>>;
  /** The consumer group `groupId`: its state and members' assignments. @throws the client's error when no coordinator answers */
  describeGroup(groupId: string): Promise<GroupDescription>;
  /** Deletes consumer groups (they must have no member left). @throws the client's error when one cannot be deleted */
  deleteGroups(groupIds: readonly string[]): Promise<void>;
}
