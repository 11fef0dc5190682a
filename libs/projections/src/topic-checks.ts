import type { KafkaAdmin, PartitionOffsets } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { ProjectionError } from './errors';
import type { ProjectionLogger } from './logger';
import type { PartitionHalts } from './partition-halts';
import { qualified } from './schema-name';

/** What {@link TopicChecks} works with. */
export interface TopicChecksOptions {
  readonly ds: DataSource;
  readonly schema: string;
  /** The group owning the checkpoints. */
  readonly consumerGroup: string;
  readonly topic: string;
  readonly logger: ProjectionLogger;
  /** The runner's admin client (connected while it runs). */
  readonly admin: () => KafkaAdmin;
  /** The runner's halted partitions, where the checks while idle halt those they find. */
  readonly halts: PartitionHalts;
  /** Whether a partition is assigned to the runner now. */
  readonly isAssigned: (partition: number) => boolean;
  /** See ProjectionRunnerOptions.checkTopicId. */
  readonly checkTopicId: boolean;
  /** See ProjectionRunnerOptions.checkLogStart. */
  readonly checkLogStart: boolean;
}

/** A checkpoint row as the checks read it. */
interface StoredCheckpoint {
  readonly partition: number;
  readonly topic_id: string | null;
  readonly next_offset: string;
}

const regressed = (topic: string, partition: number, high: string, checkpoint: bigint) =>
  `partition ${partition} of ${topic} ends at offset ${high}, below its checkpoint ${checkpoint}: the log went backwards (re-created topic, unclean leader election)`;
const truncated = (topic: string, partition: number, low: string, checkpoint: bigint) => `partition ${partition} of ${topic} starts at offset ${low}, beyond its checkpoint ${checkpoint}: records never applied were deleted`;

/**
 * The checks of the topic under a runner's checkpoints (docs/guarantees.md §6): its id (KIP-516)
 * against the one stored with the checkpoint (`PROJECTION.TOPIC_RECREATED`), a partition's high
 * watermark below its checkpoint (`PROJECTION.OFFSET_REGRESSED`), its log start beyond it
 * (`PROJECTION.LOG_TRUNCATED`). On a batch they throw (the runner halts the partition); while idle
 * they halt the assigned partitions not halted yet, also those that receive nothing.
 */
export class TopicChecks {
  constructor(private readonly options: TopicChecksOptions) {}

  /** The topic's id now (null: the broker has none). @throws the Kafka error, e.g. while the topic does not exist (the batch is retried) */
  async topicId(): Promise<string | null> {
    const { topic } = this.options;
    return (await this.options.admin().fetchTopicIds([topic])).get(topic) ?? null;
  }

  /** @throws ProjectionError `PROJECTION.OFFSET_REGRESSED` when the partition's high watermark is below its checkpoint */
  async checkHighWatermark(partition: number, checkpoint: bigint, firstOffset: string): Promise<void> {
    const { topic } = this.options;
    const o = (await this.options.admin().fetchTopicOffsets(topic)).find((x) => x.partition === partition);
    if (o && BigInt(o.high) < checkpoint) {
      throw new ProjectionError('PROJECTION.OFFSET_REGRESSED', regressed(topic, partition, o.high, checkpoint), {
        topic,
        partition,
        checkpoint: checkpoint.toString(),
        highWatermark: o.high,
        logStart: o.low,
        firstOffset,
      });
    }
  }

  /** @throws ProjectionError `PROJECTION.LOG_TRUNCATED` when the partition's log starts beyond its checkpoint */
  async checkLogStart(partition: number, checkpoint: bigint, firstOffset: string): Promise<void> {
    const { topic } = this.options;
    const o = (await this.options.admin().fetchTopicOffsets(topic)).find((x) => x.partition === partition);
    if (o && BigInt(o.low) > checkpoint) {
      throw new ProjectionError('PROJECTION.LOG_TRUNCATED', truncated(topic, partition, o.low, checkpoint), {
        topic,
        partition,
        checkpoint: checkpoint.toString(),
        highWatermark: o.high,
        logStart: o.low,
        firstOffset,
      });
    }
  }

  /**
   * The checks while idle, on every assigned partition not halted: the topic id first (when
   * checked; a re-created topic is TOPIC_RECREATED, not the offset regression it also shows), then
   * the offsets.
   */
  async whileIdle(): Promise<void> {
    if (this.options.checkTopicId) await this.checkTopicIdWhileIdle();
    await this.checkOffsetsWhileIdle();
  }

  /** Halts the assigned partitions whose checkpoint was taken on another topic id than the topic's now. */
  private async checkTopicIdWhileIdle(): Promise<void> {
    const { topic, halts } = this.options;
    let id: string | null;
    try {
      id = await this.topicId();
    } catch (err) {
      this.options.logger.warn({ err: String(err), topic }, 'topic id unavailable (topic deleted?)');
      return;
    }
    if (id === null) return;
    for (const r of await this.storedCheckpoints()) {
      if (!this.options.isAssigned(r.partition) || halts.has(r.partition) || r.topic_id === null || r.topic_id === id) continue;
      await halts.open({
        partition: r.partition,
        code: 'PROJECTION.TOPIC_RECREATED',
        message: `PROJECTION.TOPIC_RECREATED: topic ${topic} has id ${id}, the checkpoint of partition ${r.partition} (offset ${r.next_offset}) was taken on id ${r.topic_id}: the topic was deleted and re-created`,
        checkpointOffset: r.next_offset,
        topicId: id,
        details: { storedTopicId: r.topic_id, topicId: id, checkpoint: r.next_offset },
      });
    }
  }

  /**
   * The offset checks of {@link checkHighWatermark} and {@link checkLogStart} for every assigned
   * partition not halted, also those that receive nothing (a batch may never come to show it).
   */
  private async checkOffsetsWhileIdle(): Promise<void> {
    const { topic, halts } = this.options;
    const stored = new Map((await this.storedCheckpoints()).map((r) => [r.partition, r]));
    let offsets: PartitionOffsets[];
    let idAfter: string | null = null;
    try {
      offsets = await this.options.admin().fetchTopicOffsets(topic);
      // read after the offsets: offsets of a topic re-created meanwhile are the next poll's TOPIC_RECREATED
      if (this.options.checkTopicId) idAfter = await this.topicId();
    } catch (err) {
      this.options.logger.warn({ err: String(err), topic }, 'topic offsets unavailable (topic deleted?)');
      return;
    }
    for (const o of offsets) {
      if (!this.options.isAssigned(o.partition) || halts.has(o.partition)) continue;
      const row = stored.get(o.partition);
      if (idAfter && row?.topic_id && row.topic_id !== idAfter) continue;
      const checkpoint = row ? BigInt(row.next_offset) : 0n;
      let code: 'PROJECTION.OFFSET_REGRESSED' | 'PROJECTION.LOG_TRUNCATED' | null = null;
      if (BigInt(o.high) < checkpoint) code = 'PROJECTION.OFFSET_REGRESSED';
      else if (this.options.checkLogStart && BigInt(o.low) > checkpoint) code = 'PROJECTION.LOG_TRUNCATED';
      if (!code) continue;
      const message = code === 'PROJECTION.OFFSET_REGRESSED' ? regressed(topic, o.partition, o.high, checkpoint) : truncated(topic, o.partition, o.low, checkpoint);
      await halts.open({
        partition: o.partition,
        code,
        message: `${code}: ${message}`,
        checkpointOffset: checkpoint,
        details: { topic, partition: o.partition, checkpoint: checkpoint.toString(), highWatermark: o.high, logStart: o.low },
      });
    }
  }

  /** The checkpoints of the runner's group on the topic, with the topic id each was taken on. */
  private storedCheckpoints(): Promise<StoredCheckpoint[]> {
    return this.options.ds.query(`SELECT partition, topic_id, next_offset::text AS next_offset FROM ${qualified(this.options.schema, 'checkpoints')} WHERE consumer_group = $1 AND topic = $2`, [
      this.options.consumerGroup,
      this.options.topic,
    ]);
  }
}
