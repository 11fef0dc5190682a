import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { gauge } from '@ledger/metrics';
import type { ProjectionStatus } from '@ledger/projections';
import type { ReadModel } from '@ledger/read-model';
import { ApiError } from '../kernel/api-error';
import { READ_MODEL } from '../kernel/tokens';

/** What `GET /health` says of the projections: the halted partitions, without ids or payloads. */
export interface ProjectionHealth {
  readonly status: 'running' | 'halted' | 'unknown';
  readonly halted: readonly { readonly consumerGroup: string; readonly topic: string; readonly partition: number; readonly code: string; readonly haltedAt: string }[];
}

/**
 * How long one read of the incidents serves `/health` and `/metrics`, in ms: both are public and
 * not rate-limited, so a flood of them costs at most one query per second (and callers arriving
 * while a read is in flight share it).
 */
export const PROBE_CACHE_MS = 1000;

/** The source the halted-partitions gauge reads at scrape time (one API per process; the last one started). */
let scrapeSource: (() => Promise<number>) | null = null;

/**
 * The projections' state for the API (docs/guarantees.md §6, docs/architecture.md §8): the status
 * route, the health endpoint and the gauge `ledger_projection_halted_partitions`, which is computed
 * at each scrape of `GET /metrics` from the open incidents (`readModel.health`; the projector process
 * counts its halts in `ledger_projection_halts_total{code}`).
 */
@Injectable()
export class ProjectionHealthService implements OnModuleInit, OnModuleDestroy {
  private readonly source = async () => {
    const h = await this.health();
    if (h.status === 'unknown') throw new Error('read model unreadable');
    return h.halted.length;
  };
  private cached: { readonly at: number; readonly value: Promise<ProjectionHealth> } | null = null;

  constructor(@Inject(READ_MODEL) private readonly readModel: ReadModel) {}

  /**
   * Whether the projections have applied an event (callers wait on it to read their own writes;
   * `GET /projections/applied/{eventId}`). @throws ApiError 400 `VALIDATION.FAILED`
   */
  async applied(eventId: string): Promise<{ eventId: string; applied: boolean }> {
    if (!/^[0-9a-f-]{36}$/i.test(eventId)) throw new ApiError('VALIDATION.FAILED', 'eventId must be a UUID');
    return { eventId, applied: await this.readModel.health.applied(eventId.toLowerCase()) };
  }

  onModuleInit(): void {
    scrapeSource = this.source;
    gauge('ledger_projection_halted_partitions', 'projection partitions halted by an open incident (read from projection_incidents at scrape)', [], async function () {
      // a failed read leaves the gauge as it was: /metrics must answer while the database is away
      const n = scrapeSource ? await scrapeSource().catch(() => null) : null;
      if (n !== null) this.set(n);
    });
  }

  onModuleDestroy(): void {
    if (scrapeSource === this.source) scrapeSource = null;
  }

  /** Every partition with checkpoint, lag-free, and the open incidents (`GET /projections/status`). */
  status(): Promise<ProjectionStatus> {
    return this.readModel.health.status();
  }

  /**
   * The halted partitions for `GET /health`; `unknown` when the read model cannot be read. One
   * read serves every caller for {@link PROBE_CACHE_MS}.
   */
  health(): Promise<ProjectionHealth> {
    const now = performance.now();
    if (this.cached && now - this.cached.at < PROBE_CACHE_MS) return this.cached.value;
    const value = this.readHealth();
    this.cached = { at: now, value };
    return value;
  }

  private async readHealth(): Promise<ProjectionHealth> {
    try {
      const s = await this.readModel.health.status();
      return {
        status: s.status,
        halted: s.openIncidents.map((i) => ({ consumerGroup: i.consumerGroup, topic: i.topic, partition: i.partition, code: i.code, haltedAt: i.haltedAt })),
      };
    } catch {
      return { status: 'unknown', halted: [] };
    }
  }
}
