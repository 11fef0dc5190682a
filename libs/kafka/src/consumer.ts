/**
 * The consuming side of the Kafka port (docs/architecture.md §6), shaped by what the projector needs
 * (docs/architecture.md §7): a consumer group, batches of one partition with explicit offset
 * resolution and commit, seeking on assignment, pausing a partition, and a crash that may or may not
 * be restarted.
 */

/** A header value as received: bytes (or text, or several values of one name). */
export type IncomingHeaders = Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;

/** One record as fetched. */
export interface IncomingMessage {
  /** Offset in its partition, a decimal string. */
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: IncomingHeaders;
  /** Record timestamp, milliseconds since the epoch as a decimal string. */
  readonly timestamp: string;
}

/** A position in a topic: partition and offset (decimal string). */
export interface TopicPartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/** Options of a consumer. */
export interface ConsumerOptions {
  /** Consumer group; partitions of a subscribed topic are shared among its members. */
  readonly groupId: string;
  /** Bytes fetched per partition per request. @default the client's (1048576) */
  readonly maxBytesPerPartition?: number;
  /** Longest wait of a fetch for data, in ms (it also bounds how long a disconnect waits). @default the client's (5000) */
  readonly maxWaitTimeInMs?: number;
  /**
   * When a handler throws: how often the batch is retried, then whether the consumer restarts
   * (`restartOnFailure` resolving true) or stops for good ({@link KafkaConsumer.onCrash} with
   * `restart: false`). `restartOnFailure` decides for every crash, a broker-side one too (kafkajs by
   * itself stops for good after errors it deems non-retriable, such as a group coordinator not found
   * after a broker restart; the adapter then reconnects and runs again, docs/guarantees.md §13).
   * @default the client's (5 retries, then restart)
   */
  readonly retry?: {
    readonly retries?: number;
    readonly restartOnFailure?: (error: Error) => Promise<boolean>;
  };
}

/** A fetched batch: records of one partition, in offset order. */
export interface IncomingBatch {
  readonly topic: string;
  readonly partition: number;
  readonly messages: readonly IncomingMessage[];
  /** Offset of the last record fetched (also when `messages` were filtered), a decimal string. */
  lastOffset(): string;
}

/** What a batch handler gets: the batch and the controls of its partition. */
export interface BatchPayload {
  readonly batch: IncomingBatch;
  /**
   * Marks the records up to `offset` (inclusive) as processed: the next fetch of this partition
   * starts after it. With `autoResolve: false`, records not resolved are fetched again.
   */
  resolveOffset(offset: string): void;
  /** Commits these offsets for the group now (each the NEXT offset to read). */
  commitOffsets(offsets: readonly TopicPartitionOffset[]): Promise<void>;
  /** Tells the group this member is alive (call it during long batches). */
  heartbeat(): Promise<void>;
  /** Stops fetching this partition; returns the function that resumes it. */
  pause(): () => void;
  /** False once the consumer is stopping: finish quickly. */
  isRunning(): boolean;
  /** True when a seek on this partition makes the rest of the batch obsolete. */
  isStale(): boolean;
}

/** What a message handler gets. */
export interface MessagePayload {
  readonly topic: string;
  readonly partition: number;
  readonly message: IncomingMessage;
}

/** Options shared by both ways of running. */
interface RunOptionsBase {
  /** Commit resolved offsets for the group automatically. @default true */
  readonly autoCommit?: boolean;
  /** Partitions handled at the same time (each one's batches stay in order). @default 1 */
  readonly partitionsConsumedConcurrently?: number;
}

/** Run with a batch handler. */
export interface BatchRunOptions extends RunOptionsBase {
  readonly eachBatch: (payload: BatchPayload) => Promise<void>;
  /** Resolve the whole batch when the handler returns. @default true */
  readonly autoResolve?: boolean;
}

/** Run with a handler per record (each resolved when its handler returns). */
export interface MessageRunOptions extends RunOptionsBase {
  readonly eachMessage: (payload: MessagePayload) => Promise<void>;
}

/** How the consumer stopped or restarted after a handler or client error. */
export interface ConsumerCrash {
  readonly error: Error;
  /** True when the consumer rejoins and goes on; false when it stopped for good. */
  readonly restart: boolean;
}

/**
 * A group consumer. Register the listeners, `connect`, `subscribe`, then `run`; `disconnect` lets
 * the batch in hand finish, then leaves the group.
 */
export interface KafkaConsumer {
  connect(): Promise<void>;
  /** Subscribes to a topic; `fromBeginning`: a group with no committed offset starts at offset 0. */
  subscribe(options: { readonly topic: string; readonly fromBeginning: boolean }): Promise<void>;
  /** Starts fetching in the background; resolves once running (not when caught up). */
  run(options: BatchRunOptions | MessageRunOptions): Promise<void>;
  /** Moves the next fetch of a partition to `offset` (the batch in hand becomes stale). Only after {@link run}. */
  seek(position: TopicPartitionOffset): void;
  /**
   * Called after every rebalance this member joins, with its new assignment (topic → partitions),
   * synchronously before the first fetch of the new generation (work it starts in the background may
   * still be running when the first batch arrives).
   */
  onPartitionsAssigned(listener: (assignment: Readonly<Record<string, readonly number[]>>) => void): void;
  /** Called when the consumer crashed; see {@link ConsumerCrash.restart}. */
  onCrash(listener: (crash: ConsumerCrash) => void): void;
  disconnect(): Promise<void>;
}
