import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { createDataSource, defaultLogger, PgEventStore, runMigrations } from '@ledger/event-store';
import { runProjectionMigrations } from '@ledger/projections';
import { CreateQueryLog1733100000000 } from '../queries/migrations/1733100000000-create-query-log';
import { REJECTION_LOG, RejectionLog, RejectionRecord } from '../common/rejection-log';
import { IdempotencyPruner } from './idempotency-pruner';

/** Injection token of the TypeORM DataSource. */
export const DATA_SOURCE = Symbol('DATA_SOURCE');
/** Injection token of the {@link PgEventStore}. */
export const EVENT_STORE = Symbol('EVENT_STORE');

/** Writes refusals to the store's append-only `rejections` table. */
@Injectable()
class StoreRejectionLog implements RejectionLog {
  constructor(@Inject(EVENT_STORE) private readonly store: PgEventStore) {}
  record(r: RejectionRecord): Promise<void> {
    return this.store.recordRejection({
      code: r.code,
      message: r.message,
      httpStatus: r.httpStatus,
      actorId: r.actor?.id ?? null,
      actorRole: r.actor?.role ?? null,
      route: r.route,
      tableId: r.tableId,
      correlationId: r.correlationId,
      rawPayload: r.rawPayload,
    });
  }
}

@Injectable()
class DataSourceCloser implements OnApplicationShutdown {
  constructor(@Inject(DATA_SOURCE) private readonly ds: DataSource) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.ds.isInitialized) await this.ds.destroy();
  }
}

/**
 * PostgreSQL: the DataSource (`DATABASE_URL`), migrations run at start unless `RUN_MIGRATIONS=false`
 * (never `synchronize`), the event store (outbox rows name `LEDGER_EVENTS_TOPIC`; idempotency keys
 * kept `IDEMPOTENCY_RETENTION_DAYS`, expired ones pruned by {@link IdempotencyPruner}) and the
 * rejection log. The values come from the API's validated configuration (docs/architecture.md §5).
 */
@Global()
@Module({
  providers: [
    {
      provide: DATA_SOURCE,
      inject: [ConfigService],
      useFactory: async (config: ConfigService<LedgerApiEnv, true>) => {
        const ds = createDataSource(config.get('DATABASE_URL', { infer: true }), { extraMigrations: [CreateQueryLog1733100000000] });
        await ds.initialize();
        if (config.get('RUN_MIGRATIONS', { infer: true })) {
          await runMigrations(ds);
          // the read model the query API reads; the projector runs the same migrations (both idempotent, locked)
          await runProjectionMigrations(ds, { schema: config.get('PROJECTIONS_SCHEMA', { infer: true }) });
          new Logger('Persistence').log('migrations up to date');
        }
        return ds;
      },
    },
    {
      provide: EVENT_STORE,
      inject: [DATA_SOURCE, ConfigService],
      // LEDGER_EVENTS_TOPIC: the topic the outbox rows name (tests use their own);
      // IDEMPOTENCY_RETENTION_DAYS: how long a caller's Idempotency-Key is kept (docs/guarantees.md §3)
      useFactory: (ds: DataSource, config: ConfigService<LedgerApiEnv, true>) =>
        new PgEventStore(ds, {
          topic: config.get('LEDGER_EVENTS_TOPIC', { infer: true }),
          logger: defaultLogger('event-store', config.get('LOG_LEVEL', { infer: true })),
          idempotencyRetentionMs: config.get('IDEMPOTENCY_RETENTION_DAYS', { infer: true }) * 86_400_000,
        }),
    },
    { provide: IdempotencyPruner, inject: [EVENT_STORE], useFactory: (store: PgEventStore) => new IdempotencyPruner(store) },
    { provide: REJECTION_LOG, useClass: StoreRejectionLog },
    DataSourceCloser,
  ],
  exports: [DATA_SOURCE, EVENT_STORE, REJECTION_LOG],
})
export class PersistenceModule {}
