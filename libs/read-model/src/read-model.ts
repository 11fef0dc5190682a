import type { DataSource } from 'typeorm';
import { assertSchemaName } from '@ledger/projections';
import { exec, tablesIn, type Queryable } from './sql';
import { AUDIT_TABLES, AuditReads } from './audit/queries';
import { StaffReads } from './audit/staff-queries';
import { SHOE_STATE_TABLES, ShoeStateReads } from './shoe-state/queries';
import { OUTCOME_TABLES, OutcomeReads } from './outcomes/queries';
import { SETTLEMENT_TABLES, SettlementReads } from './settlements/queries';
import { RECONCILIATION_TABLES, ReconciliationReads } from './reconciliation/queries';
import { ROAD_TABLES, RoadReads } from './roads/queries';
import { SIGNIFICANT_EVENT_TABLES, SignificantEventReads } from './significant-events/queries';
import { ENGINE_TABLES, HealthReads } from './health/queries';

/**
 * Every table (and view) of the projections' schema: the read models' and the projection engine's.
 * No production SQL outside `libs/read-model` names one of them (`test/read-model-owner.unit.spec.ts`).
 */
export const READ_MODEL_TABLE_NAMES: readonly string[] = [
  ...new Set<string>([AUDIT_TABLES, SHOE_STATE_TABLES, OUTCOME_TABLES, SETTLEMENT_TABLES, RECONCILIATION_TABLES, ROAD_TABLES, SIGNIFICANT_EVENT_TABLES, ENGINE_TABLES].flatMap((t) => Object.values(t))),
].sort();

/** The connections a {@link ReadModel} reads through, and the schema it reads. */
export interface ReadModelSources {
  /** The API's pool (`DATA_SOURCE`): every read but the heavy ones. */
  readonly db: DataSource;
  /** The heavy reads' own pool (`HEAVY_READ_DATA_SOURCE`, docs/architecture.md §10): the snapshots of {@link ReadModel.snapshot}. */
  readonly heavy: DataSource;
  /** The read-model schema (`PROJECTIONS_SCHEMA`, docs/architecture.md §5); checked here. */
  readonly schema: string;
}

/**
 * The read models' queries on one connection, grouped per read model (docs/architecture.md §7):
 * `audit` (events, decisions, a round's events), `staff` (the staff statistics over the events),
 * `shoes` (shoe state), `outcomes` (hand outcomes and their revisions), `settlements` (bets and their
 * settlement history, live and as of a position), `reconciliation` (the entries' sums live and as of a
 * position, the adjustments after a close) and `roads`. Every method resolves typed rows as the SQL
 * selects them (snake_case; bigint and numeric amounts as decimal strings, never floats; times as
 * `Date` unless said); errors are the driver's.
 */
export class ReadModelView {
  readonly audit: AuditReads;
  readonly staff: StaffReads;
  readonly shoes: ShoeStateReads;
  readonly outcomes: OutcomeReads;
  readonly settlements: SettlementReads;
  readonly reconciliation: ReconciliationReads;
  readonly roads: RoadReads;
  readonly significantEvents: SignificantEventReads;

  /**
   * @param q where every query runs (a pool, or one connection's transaction)
   * @param schema the read-model schema
   * @throws ProjectionError `PROJECTION.BAD_SCHEMA_NAME` for a schema that is not a plain identifier
   */
  constructor(
    q: Queryable,
    readonly schema: string,
  ) {
    assertSchemaName(schema);
    this.audit = new AuditReads(q, schema);
    this.staff = new StaffReads(q, schema);
    this.shoes = new ShoeStateReads(q, schema);
    this.outcomes = new OutcomeReads(q, schema);
    this.settlements = new SettlementReads(q, schema, tablesIn(schema, ENGINE_TABLES).applied);
    this.reconciliation = new ReconciliationReads(q, schema);
    this.roads = new RoadReads(q, schema);
    this.significantEvents = new SignificantEventReads(q, schema);
  }
}

/**
 * The read model as the API reads it: the one object the API injects (`READ_MODEL` of
 * `apps/ledger/src/kernel/tokens.ts`), and the only place that names the projections' tables in SQL.
 * Its groups ({@link ReadModelView}) read through the API's pool; `health` reads the projection
 * engine's bookkeeping; {@link on} gives the same groups on another connection (a gaming-day close's
 * snapshot), {@link snapshot} a read-only snapshot on the heavy reads' pool (the exports).
 */
export class ReadModel extends ReadModelView {
  readonly health: HealthReads;
  private readonly heavy: DataSource;

  /** @throws ProjectionError `PROJECTION.BAD_SCHEMA_NAME` for a schema that is not a plain identifier */
  constructor(sources: ReadModelSources) {
    super(sources.db, sources.schema);
    this.health = new HealthReads(sources.db, sources.schema);
    this.heavy = sources.heavy;
  }

  /** The read models' groups reading through `q` (e.g. a transaction's snapshot that also reads the event store). */
  on(q: Queryable): ReadModelView {
    return new ReadModelView(q, this.schema);
  }

  /**
   * Runs `fn` in one `REPEATABLE READ, READ ONLY` transaction on a connection of the heavy reads'
   * pool, with `statement_timeout` = `statementTimeoutMs` for each of its statements: every read of
   * `fn` (through `view`, and through `q` for the event store's tables) sees the same snapshot. The
   * transaction commits when `fn` resolves, and rolls back when it rejects; the timeout is reset
   * before the connection goes back to the pool.
   * @param statementTimeoutMs `HEAVY_READ_STATEMENT_TIMEOUT_MS`, an integer ≥ 0 (0: none)
   * @returns what `fn` resolves
   * @throws RangeError for a timeout that is not an integer ≥ 0; whatever `fn` or the database throws
   */
  async snapshot<T>(statementTimeoutMs: number, fn: (view: ReadModelView, q: Queryable) => Promise<T>): Promise<T> {
    if (!Number.isSafeInteger(statementTimeoutMs) || statementTimeoutMs < 0) throw new RangeError(`statementTimeoutMs must be an integer >= 0, got ${statementTimeoutMs}`);
    const runner = this.heavy.createQueryRunner();
    await runner.connect();
    try {
      await exec(runner, `SET statement_timeout = ${statementTimeoutMs}`);
      await exec(runner, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const out = await fn(new ReadModelView(runner, this.schema), runner);
      await exec(runner, 'COMMIT');
      return out;
    } finally {
      if (runner.isReleased === false) {
        await exec(runner, 'ROLLBACK').catch(() => undefined);
        await exec(runner, 'RESET statement_timeout').catch(() => undefined);
        await runner.release();
      }
    }
  }
}
