import type { KafkaClient } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { ProjectionError } from './errors';
import { openIncidents, resolveIncidents, TOPIC_LOSS_CODES, type ProjectionIncident } from './incidents';
import { assertSchemaName } from './schema-name';

/** Options of {@link resumePartitions}. */
export interface ResumeOptions {
  /** As the projector's login (it may write incidents and checkpoints). */
  readonly ds: DataSource;
  readonly kafka: KafkaClient;
  readonly schema: string;
  readonly consumerGroup: string;
  readonly topic: string;
  /** Only this partition. @default every halted partition of the group on the topic */
  readonly partition?: number;
  /**
   * After a lost topic, once it is republished (`npm run -s republish`): move each resumed
   * partition's checkpoint to the log start offset of the topic as it is now and record its
   * topic id; the projector reads the whole topic again, and what it applied already is skipped by
   * event id (docs/guarantees.md §6). Required to resume a topic-loss incident
   * (`PROJECTION.TOPIC_RECREATED`, `OFFSET_REGRESSED`, `LOG_TRUNCATED`): its check would halt the
   * partition again.
   */
  readonly resetOffsets: boolean;
  /** Operator, kept in `resolved_by`. */
  readonly by: string;
  /** Why it can resume (the fix), kept in `resolution`. */
  readonly reason: string;
}

/**
 * Resumes halted partitions (docs/guarantees.md §6): resolves their open incidents, in one
 * transaction with the checkpoint moves of `resetOffsets`. A running projector resumes them within
 * `PROJECTOR_INCIDENT_POLL_MS`, from their checkpoint; one started later, at once. An event that
 * still cannot be applied halts its partition again with a new incident.
 * @returns the incidents resolved
 * @throws ProjectionError `PROJECTION.NO_INCIDENT` when none is open; `PROJECTION.BAD_CONFIG` when a
 *   topic-loss incident is to be resumed without `resetOffsets`
 */
export async function resumePartitions(o: ResumeOptions): Promise<ProjectionIncident[]> {
  const schema = assertSchemaName(o.schema);
  const open = await openIncidents(o.ds, schema, { consumerGroup: o.consumerGroup, topic: o.topic, partition: o.partition });
  if (open.length === 0) {
    throw new ProjectionError('PROJECTION.NO_INCIDENT', `no open incident for group ${o.consumerGroup} on ${o.topic}${o.partition === undefined ? '' : ` partition ${o.partition}`}`, {
      group: o.consumerGroup,
      topic: o.topic,
      partition: o.partition,
    });
  }
  const loss = open.filter((i) => (TOPIC_LOSS_CODES as readonly string[]).includes(i.code));
  if (loss.length > 0 && !o.resetOffsets) {
    throw new ProjectionError('PROJECTION.BAD_CONFIG', `partition(s) ${loss.map((i) => `${i.partition} (${i.code})`).join(', ')} lost their topic: republish it, then resume with --reset-offsets`, { name: 'resetOffsets' });
  }
  let resetTo: { topicId: string | null; offsets: Map<number, bigint> } | undefined;
  if (o.resetOffsets) {
    const admin = o.kafka.admin();
    await admin.connect();
    try {
      const topicId = (await admin.fetchTopicIds([o.topic])).get(o.topic) ?? null;
      const offsets = new Map((await admin.fetchTopicOffsets(o.topic)).map((x) => [x.partition, BigInt(x.low)]));
      resetTo = { topicId, offsets };
    } finally {
      await admin.disconnect();
    }
  }
  return resolveIncidents(o.ds, schema, { consumerGroup: o.consumerGroup, topic: o.topic, partition: o.partition, by: o.by, resolution: o.reason, resetTo });
}
