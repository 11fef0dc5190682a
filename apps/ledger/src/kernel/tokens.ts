/**
 * The injection tokens of the database handles the persistence wiring (`../persistence/persistence.module.ts`)
 * provides; here so that a feature injects them without importing the wiring.
 */
/** Injection token of the TypeORM DataSource. */
export const DATA_SOURCE = Symbol('DATA_SOURCE');
/** Injection token of the `PgEventStore`. */
export const EVENT_STORE = Symbol('EVENT_STORE');
/**
 * Injection token of the heavy reads' DataSource (docs/architecture.md §10, "Limits at the edge"):
 * its own pool of `HEAVY_READS_MAX_CONCURRENT` connections as `ledger_app`, apart from the writes',
 * so a chain verification never holds a connection a write waits for.
 */
export const HEAVY_READ_DATA_SOURCE = Symbol('HEAVY_READ_DATA_SOURCE');
/**
 * Injection token of the `PgEventStore` on {@link HEAVY_READ_DATA_SOURCE}, for chain
 * verification only: read-only REPEATABLE READ snapshots (no lock a write waits on) with a
 * statement timeout of `HEAVY_READ_STATEMENT_TIMEOUT_MS`.
 */
export const HEAVY_READ_STORE = Symbol('HEAVY_READ_STORE');
/**
 * Injection token of the `ReadModel` of `@ledger/read-model` (docs/architecture.md §7): the API's
 * one object for the projections' tables, on {@link DATA_SOURCE} (and {@link HEAVY_READ_DATA_SOURCE}
 * for its snapshots), reading the schema `PROJECTIONS_SCHEMA`.
 */
export const READ_MODEL = Symbol('READ_MODEL');
