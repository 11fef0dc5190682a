import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { PgEventStore } from '@ledger/event-store';

/** How often expired idempotency keys are deleted, in milliseconds (1 h). */
export const IDEMPOTENCY_PRUNE_INTERVAL_MS = 3_600_000;

/**
 * Deletes the idempotency keys whose retention (`IDEMPOTENCY_RETENTION_DAYS`, default 7 days) has
 * run out: once when the API starts, then every {@link IDEMPOTENCY_PRUNE_INTERVAL_MS}
 * (docs/guarantees.md §3). An expired key is unknown to lookups already, so this only bounds the
 * table's size; a failed prune (e.g. the database role lacks DELETE on `idempotency_keys`,
 * docs/architecture.md §10) is logged at `error` and tried again at the next tick, never fatal.
 * Provided by `PersistenceModule` (a factory on its event store).
 */
export class IdempotencyPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IdempotencyPruner');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly store: Pick<PgEventStore, 'pruneIdempotencyKeys'>) {}

  onApplicationBootstrap(): void {
    void this.pruneOnce();
    this.timer = setInterval(() => void this.pruneOnce(), IDEMPOTENCY_PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One prune; never throws. Skipped while the previous one runs. */
  pruneOnce(): Promise<void> {
    if (this.running) return this.running;
    this.running = (async () => {
      try {
        const deleted = await this.store.pruneIdempotencyKeys();
        if (deleted > 0) this.logger.log({ deleted }, 'expired idempotency keys deleted');
      } catch (err) {
        this.logger.error({ err }, 'could not delete expired idempotency keys');
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }
}
