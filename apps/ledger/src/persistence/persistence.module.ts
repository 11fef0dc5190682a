import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { createDataSource, PgEventStore, runMigrations } from '@ledger/event-store';
import { runProjectionMigrations } from '@ledger/projections';
import { CreateQueryLog1733100000000 } from '../queries/migrations/1733100000000-create-query-log';
import { REJECTION_LOG, RejectionLog, RejectionRecord } from '../common/rejection-log';

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
 * PostgreSQL: the DataSource (env `DATABASE_URL`), migrations run at start unless
 * `RUN_MIGRATIONS=false` (never `synchronize`), the event store and the rejection log.
 */
@Global()
@Module({
  providers: [
    {
      provide: DATA_SOURCE,
      useFactory: async () => {
        const ds = createDataSource(process.env.DATABASE_URL, { extraMigrations: [CreateQueryLog1733100000000] });
        await ds.initialize();
        if (process.env.RUN_MIGRATIONS !== 'false') {
          await runMigrations(ds);
          // the read model the query API reads; the projector runs the same migrations (both idempotent, locked)
          await runProjectionMigrations(ds, { schema: process.env.PROJECTIONS_SCHEMA || process.env.READ_SCHEMA || undefined });
          new Logger('Persistence').log('migrations up to date');
        }
        return ds;
      },
    },
    {
      provide: EVENT_STORE,
      inject: [DATA_SOURCE],
      // env LEDGER_EVENTS_TOPIC: the topic the outbox rows name (tests use their own)
      useFactory: (ds: DataSource) => new PgEventStore(ds, { topic: process.env.LEDGER_EVENTS_TOPIC || undefined }),
    },
    { provide: REJECTION_LOG, useClass: StoreRejectionLog },
    DataSourceCloser,
  ],
  exports: [DATA_SOURCE, EVENT_STORE, REJECTION_LOG],
})
export class PersistenceModule {}
