import { catalogueCounter } from '@ledger/metrics';
import type { DataSource } from 'typeorm';
import type { ProjectionError } from './errors';
import { openIncidents, recordIncident, type NewIncident, type ProjectionIncident } from './incidents';
import type { ProjectionLogger } from './logger';

/** Partitions halted by this process, by code (docs/architecture.md §8). */
const haltsTotal = () => catalogueCounter('projectionHalts');

/** An incident as a runner opens it: the consumer group and the topic are its own. */
export type RunnerIncident = Omit<NewIncident, 'consumerGroup' | 'topic'>;

/** What {@link PartitionHalts} works with. */
export interface PartitionHaltsOptions {
  readonly ds: DataSource;
  readonly schema: string;
  /** The group owning the checkpoints, and so the incidents. */
  readonly consumerGroup: string;
  readonly topic: string;
  readonly logger: ProjectionLogger;
  /** The partitions' checkpoints now (partition → next offset). */
  readonly checkpoints: () => Promise<ReadonlyMap<number, bigint>>;
  /** Whether a partition is assigned to the runner now. */
  readonly isAssigned: (partition: number) => boolean;
  /** Called when an incident is opened (see ProjectionRunnerOptions.onHalt). */
  readonly onHalt?: (incident: ProjectionIncident) => void;
}

/**
 * The partitions of a runner halted by an open incident (docs/guarantees.md §6, `incidents.ts`):
 * opening an incident (or finding the one open) counts it in `ledger_projection_halts_total{code}`
 * and pauses the partition; a partition whose incident was resolved, here or by another process,
 * resumes from its checkpoint; one with an incident another process opened halts here too.
 */
export class PartitionHalts {
  /** Partitions halted by an open incident, with the function that un-pauses them (once a batch paused them). */
  private readonly halted = new Map<number, { incidentId: string; code: string; resume?: () => void }>();

  constructor(private readonly options: PartitionHaltsOptions) {}

  /** Whether a partition is halted. */
  has(partition: number): boolean {
    return this.halted.has(partition);
  }

  /** The halted partitions: partition → code. */
  codes(): ReadonlyMap<number, string> {
    return new Map([...this.halted].map(([p, h]) => [p, h.code]));
  }

  /**
   * Pauses a batch's partition when it is halted, keeping the function that un-pauses it (the
   * partition fetches nothing more until its incident is resolved).
   * @returns whether the partition is halted (the batch is then not applied)
   */
  holdBatch(partition: number, pause: () => () => void): boolean {
    const halt = this.halted.get(partition);
    if (!halt) return false;
    halt.resume = pause();
    return true;
  }

  /**
   * Halts a partition on a data error: opens its incident (or finds the one open), counts it,
   * pauses the partition. Nothing of the batch was applied (the applier rolled back).
   * @param topicId the topic's id seen with the batch
   * @throws the database error when the incident cannot be written (the batch is then retried)
   */
  async haltOnError(partition: number, err: ProjectionError, pause: () => () => void, topicId: string | null): Promise<void> {
    const d = err.details as Record<string, any>;
    const checkpoint = d.checkpoint ?? (await this.options.checkpoints()).get(partition)?.toString() ?? '0';
    await this.open(
      {
        partition,
        code: err.code,
        message: err.message,
        projection: typeof d.projection === 'string' ? d.projection : null,
        kafkaOffset: d.offset ?? d.firstOffset ?? null,
        eventId: typeof d.eventId === 'string' ? d.eventId : null,
        globalPosition: d.globalPosition ?? null,
        checkpointOffset: checkpoint,
        topicId: d.topicId ?? topicId,
        details: d,
      },
      pause,
    );
  }

  /**
   * Opens an incident (or finds the one open on its partition) and marks its partition halted.
   * @param pause pauses the partition once the incident is written (a batch in hand), if given
   */
  async open(i: RunnerIncident, pause?: () => () => void): Promise<void> {
    const { options } = this;
    const { incident, created } = await recordIncident(options.ds, options.schema, { consumerGroup: options.consumerGroup, topic: options.topic, ...i });
    if (created) {
      haltsTotal().inc({ code: incident.code });
      options.onHalt?.(incident);
    }
    options.logger.error(
      { incident: incident.id, code: incident.code, partition: incident.partition, offset: incident.kafkaOffset, eventId: incident.eventId, projection: incident.projection, err: incident.message },
      'partition halted: projection incident open (other partitions go on; resolve it with projections:resume)',
    );
    this.halted.set(i.partition, pause ? { incidentId: incident.id, code: incident.code, resume: pause() } : { incidentId: incident.id, code: incident.code });
  }

  /** On assignment: marks the given partitions that have an open incident as halted; un-halts those whose incident was resolved. */
  async load(partitions: readonly number[]): Promise<void> {
    const open = await this.openIncidents();
    for (const [p, h] of this.halted) {
      if (!open.some((i) => i.partition === p)) {
        this.halted.delete(p);
        h.resume?.();
      }
    }
    for (const i of open) {
      if (!partitions.includes(i.partition)) continue;
      const h = this.halted.get(i.partition);
      if (h) h.incidentId = i.id;
      else {
        this.halted.set(i.partition, { incidentId: i.id, code: i.code });
        this.options.logger.warn({ incident: i.id, code: i.code, partition: i.partition }, 'partition stays halted: its incident is open');
      }
    }
  }

  /**
   * Reads the open incidents again: a halted partition whose incident was resolved is un-halted,
   * `resumeAt` its checkpoint (which the resume command may have moved) then un-paused; an assigned
   * partition with an incident another process opened is halted.
   */
  async refresh(resumeAt: (partition: number, offset: bigint) => void): Promise<void> {
    const open = await this.openIncidents();
    for (const [p, h] of [...this.halted]) {
      const still = open.find((i) => i.partition === p);
      if (still) {
        h.incidentId = still.id;
        continue;
      }
      this.halted.delete(p);
      const offset = (await this.options.checkpoints()).get(p) ?? 0n;
      resumeAt(p, offset);
      h.resume?.();
      this.options.logger.info({ partition: p, offset: offset.toString(), incident: h.incidentId }, 'incident resolved: partition resumes from its checkpoint');
    }
    for (const i of open) if (this.options.isAssigned(i.partition) && !this.halted.has(i.partition)) this.halted.set(i.partition, { incidentId: i.id, code: i.code });
  }

  private openIncidents(): Promise<ProjectionIncident[]> {
    return openIncidents(this.options.ds, this.options.schema, { consumerGroup: this.options.consumerGroup, topic: this.options.topic });
  }
}
