/**
 * The API's typed SQL boundary for the ledger's OWN tables (the event store's `events`, `outbox`,
 * `outbox_progress`, `rejections`; the API's `query_log`, `stream_snapshots`, `wallet_match_*`,
 * `gaming_day_closes`, `integrity_incidents`): every statement the API still runs itself goes through
 * {@link rows}, {@link first} or {@link exec} with the shape of its rows declared, never through an
 * untyped `.query(`. The projections' tables are read only through the read model (`READ_MODEL`,
 * `@ledger/read-model`), which uses the same helpers (docs/architecture.md §1, §7).
 */
export { exec, first, rows, type Queryable } from '@ledger/read-model';
