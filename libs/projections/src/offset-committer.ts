import type { ProjectionLogger } from './logger';

/** What {@link OffsetCommitter.commit} sends: kafkajs' `commitOffsets` of the batch payload. */
export type CommitOffsets = (offsets: { topic: string; partition: number; offset: string }[]) => Promise<void>;

/**
 * Commits the projector's offsets to Kafka WITHOUT the batch waiting for it (docs/architecture.md
 * §7): the committed offset there is informational (it shows the group's lag to Kafka tools); the
 * truth is the PostgreSQL checkpoint committed with the rows, and the runner seeks to it on every
 * assignment (docs/guarantees.md §6). So a batch never spends a round trip on it: at most one
 * commit is in flight per partition, and a commit asked for meanwhile replaces the pending one
 * (only the latest offset matters) and is sent when the previous one settles. A failed commit is
 * logged at debug and forgotten (the next batch commits a later offset).
 */
export class OffsetCommitter {
  private readonly inFlight = new Set<string>();
  private readonly pending = new Map<string, { commit: CommitOffsets; topic: string; partition: number; offset: string }>();

  constructor(private readonly logger: ProjectionLogger) {}

  /**
   * Asks for `offset` (the next offset to read, a decimal string) to be committed for `topic`/`partition`.
   * Returns at once.
   */
  commit(commit: CommitOffsets, topic: string, partition: number, offset: string): void {
    const key = `${topic}\u0000${partition}`;
    if (this.inFlight.has(key)) {
      this.pending.set(key, { commit, topic, partition, offset });
      return;
    }
    this.inFlight.add(key);
    commit([{ topic, partition, offset }])
      .catch((err) => this.logger.debug({ err: String(err), partition }, 'offset commit to Kafka failed (informational only)'))
      .finally(() => {
        this.inFlight.delete(key);
        const next = this.pending.get(key);
        if (next) {
          this.pending.delete(key);
          this.commit(next.commit, next.topic, next.partition, next.offset);
        }
      });
  }
}
