import { HeavyReadLimiter } from '../kernel/heavy-read';
import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { createDataSource, defaultLogger, PgEventStore } from '@ledger/event-store';
import { databaseSessionSettings, type DatabaseSessionEnv, type DatabaseSessionSettings } from '@ledger/infra';
import { ReadModel } from '@ledger/read-model';
import { migrateAll } from './migrate-all';
import { DATA_SOURCE, EVENT_STORE, HEAVY_READ_DATA_SOURCE, HEAVY_READ_STORE, READ_MODEL } from '../kernel/tokens';
import { REJECTION_LOG, RejectionLog, RejectionRecord } from '../kernel/rejection-log';
import { IdempotencyPruner } from './idempotency-pruner';

/** The database-session variables of the API's configuration (`WithDatabase`). */
const SESSION_VARIABLES = ['DB_STATEMENT_TIMEOUT_MS', 'DB_MIGRATIONS_STATEMENT_TIMEOUT_MS', 'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 'DB_CONNECT_TIMEOUT_MS', 'DB_KEEPALIVE_IDLE_MS'] as const satisfies ReadonlyArray<
  keyof LedgerApiEnv & keyof DatabaseSessionEnv
>;

// the injection tokens are the kernel's (features inject them without importing the persistence wiring)
export { DATA_SOURCE, EVENT_STORE, HEAVY_READ_DATA_SOURCE, HEAVY_READ_STORE, READ_MODEL };

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
  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(HEAVY_READ_DATA_SOURCE) private readonly heavy: DataSource,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.heavy.isInitialized) await this.heavy.destroy();
    if (this.ds.isInitialized) await this.ds.destroy();
  }
}

/**
 * Runs the API's migrations (event store, query log, shoe snapshots, the read model it reads) on their own short-lived
 * connection as the owner role (`MIGRATIONS_DATABASE_URL`, default `DATABASE_URL` with the login
 * `ledger_owner`): the API's runtime login may not create or alter anything (docs/guarantees.md §12,
 * docs/architecture.md §10). The projector runs the read-model migrations too (both idempotent, locked).
 * The same steps as `npm run migration:run` ({@link migrateAll}).
 *
 * @param url the owner's connection URL
 * @param readSchema the read-model schema (`PROJECTIONS_SCHEMA`)
 * @throws whatever a migration throws (SQLSTATE `LA002` when the roles are missing or `url` is not the owner's)
 */
async function migrateAsOwner(url: string, readSchema: string, session: DatabaseSessionSettings): Promise<void> {
  await migrateAll(url, readSchema, session);
}

/**
 * PostgreSQL: the DataSource as the runtime role `ledger_app` (`DATABASE_URL`), migrations run first
 * as the owner unless `RUN_MIGRATIONS=false` (never `synchronize`), the event store (outbox rows name
 * `LEDGER_EVENTS_TOPIC`; idempotency keys kept `IDEMPOTENCY_RETENTION_DAYS`, expired ones pruned by
 * {@link IdempotencyPruner}), the rejection log, and the heavy reads' own pool and store
 * ({@link HEAVY_READ_DATA_SOURCE}, {@link HEAVY_READ_STORE}), and the read model on both pools
 * ({@link READ_MODEL}: the one place the API's reads take `PROJECTIONS_SCHEMA` from). The values come
 * from the API's validated configuration (docs/architecture.md §5).
 */
@Global()
@Module({
  providers: [
    HeavyReadLimiter,
    {
      provide: DATA_SOURCE,
      inject: [ConfigService],
      useFactory: async (config: ConfigService<LedgerApiEnv, true>) => {
        // statement / idle-in-transaction / connect timeouts and keepalives of every session (docs/architecture.md §5)
        const sessionEnv = Object.fromEntries(SESSION_VARIABLES.map((k) => [k, config.get(k, { infer: true })])) as unknown as DatabaseSessionEnv;
        if (config.get('RUN_MIGRATIONS', { infer: true })) {
          await migrateAsOwner(config.get('MIGRATIONS_DATABASE_URL', { infer: true }), config.get('PROJECTIONS_SCHEMA', { infer: true }), databaseSessionSettings(sessionEnv, 'migrations'));
          new Logger('Persistence').log('migrations up to date');
        }
        const ds = createDataSource(config.get('DATABASE_URL', { infer: true }), { session: databaseSessionSettings(sessionEnv, 'service') });
        await ds.initialize();
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
    {
      provide: HEAVY_READ_DATA_SOURCE,
      inject: [DATA_SOURCE, ConfigService],
      // after DATA_SOURCE: the migrations have run
      useFactory: async (_migrated: DataSource, config: ConfigService<LedgerApiEnv, true>) => {
        const ds = createDataSource(config.get('DATABASE_URL', { infer: true }), {
          poolSize: config.get('HEAVY_READS_MAX_CONCURRENT', { infer: true }),
          applicationName: 'ledger-api-heavy-reads',
        });
        await ds.initialize();
        return ds;
      },
    },
    {
      provide: HEAVY_READ_STORE,
      inject: [HEAVY_READ_DATA_SOURCE, ConfigService],
      useFactory: (ds: DataSource, config: ConfigService<LedgerApiEnv, true>) =>
        new PgEventStore(ds, {
          topic: config.get('LEDGER_EVENTS_TOPIC', { infer: true }),
          logger: defaultLogger('event-store', config.get('LOG_LEVEL', { infer: true })),
          verifyStatementTimeoutMs: config.get('HEAVY_READ_STATEMENT_TIMEOUT_MS', { infer: true }),
        }),
    },
    {
      provide: READ_MODEL,
      inject: [DATA_SOURCE, HEAVY_READ_DATA_SOURCE, ConfigService],
      useFactory: (db: DataSource, heavy: DataSource, config: ConfigService<LedgerApiEnv, true>) => new ReadModel({ db, heavy, schema: config.get('PROJECTIONS_SCHEMA', { infer: true }) }),
    },
    { provide: IdempotencyPruner, inject: [EVENT_STORE], useFactory: (store: PgEventStore) => new IdempotencyPruner(store) },
    { provide: REJECTION_LOG, useClass: StoreRejectionLog },
    DataSourceCloser,
  ],
  exports: [DATA_SOURCE, EVENT_STORE, REJECTION_LOG, HEAVY_READ_DATA_SOURCE, HEAVY_READ_STORE, READ_MODEL, HeavyReadLimiter],
})
export class PersistenceModule {}
