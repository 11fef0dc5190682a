import type { DataSource } from 'typeorm';
import { assertSchemaName } from './schema-name';

/** A secondary index or constraint of a schema, dropped for a load and created again after it (see {@link deferSecondaryIndexes}). */
export interface DeferredIndex {
  /** Table (unqualified). */
  readonly table: string;
  /** Index or constraint name. */
  readonly name: string;
  readonly kind: 'index' | 'constraint';
  /** The statement that creates it again: `pg_get_indexdef`, or `ALTER TABLE … ADD CONSTRAINT … <pg_get_constraintdef>`. */
  readonly create: string;
}

/**
 * Tables whose PRIMARY KEY is deferred too: the de-duplication table, which a rebuild does not read
 * (the applier remembers the ids in memory, `ProjectionApplierOptions.dedupe`). Every other primary
 * key stays: the projections update and upsert by it during the load.
 */
const DEFERRED_PRIMARY_KEYS: ReadonlySet<string> = new Set(['applied_events']);

/**
 * Drops every secondary index and every UNIQUE, EXCLUDE and FOREIGN KEY constraint of the tables of
 * `schema` (and the primary key of the tables in {@link DEFERRED_PRIMARY_KEYS}), and returns how to
 * create each again, read from the catalog (`pg_get_indexdef`, `pg_get_constraintdef`): whatever
 * the migrations created, an index added by a later migration included (docs/guarantees.md §7). Primary keys and
 * CHECK / NOT NULL constraints stay. One transaction: all or nothing.
 * @param schema a schema just created by the migrations (a rebuild's)
 * @param options.keep names of secondary indexes (not constraints) left in place: those the
 *   projections read by during the load (`ProjectionTable.keptInRebuild`). @default none
 * @returns the indexes and constraints dropped, in the order {@link createDeferredIndexes} creates them
 */
export async function deferSecondaryIndexes(ds: DataSource, schema: string, options: { keep?: ReadonlySet<string> } = {}): Promise<DeferredIndex[]> {
  const keep = [...(options.keep ?? [])];
  assertSchemaName(schema);
  const qr = ds.createQueryRunner();
  await qr.connect();
  try {
    await qr.startTransaction();
    const constraints: { tbl: string; name: string; contype: string; def: string }[] = await qr.query(
      `SELECT r.relname AS tbl, c.conname AS name, c.contype, pg_get_constraintdef(c.oid) AS def
       FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace
       WHERE n.nspname = $1 AND r.relkind = 'r' AND (c.contype IN ('u','x','f') OR (c.contype = 'p' AND r.relname = ANY($2::text[])))
       ORDER BY (c.contype = 'f') DESC, r.relname, c.conname`,
      [schema, [...DEFERRED_PRIMARY_KEYS]],
    );
    const indexes: { tbl: string; name: string; def: string }[] = await qr.query(
      `SELECT t.relname AS tbl, ic.relname AS name, pg_get_indexdef(i.indexrelid) AS def
       FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_namespace n ON n.oid = t.relnamespace
       WHERE n.nspname = $1 AND t.relkind = 'r'
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid AND c.contype IN ('p','u','x'))
         AND NOT ic.relname = ANY($2::text[])
       ORDER BY t.relname, ic.relname`,
      [schema, keep],
    );
    const s = `"${schema}"`;
    // foreign keys first (they depend on the unique indexes they reference), then the rest
    for (const c of constraints) await qr.query(`ALTER TABLE ${s}."${c.tbl}" DROP CONSTRAINT "${c.name}"`);
    for (const i of indexes) await qr.query(`DROP INDEX ${s}."${i.name}"`);
    await qr.commitTransaction();
    const keys = constraints.filter((c) => c.contype !== 'f');
    const foreign = constraints.filter((c) => c.contype === 'f');
    return [
      ...keys.map((c) => ({ table: c.tbl, name: c.name, kind: 'constraint' as const, create: `ALTER TABLE ${s}."${c.tbl}" ADD CONSTRAINT "${c.name}" ${c.def}` })),
      ...indexes.map((i) => ({ table: i.tbl, name: i.name, kind: 'index' as const, create: i.def })),
      ...foreign.map((c) => ({ table: c.tbl, name: c.name, kind: 'constraint' as const, create: `ALTER TABLE ${s}."${c.tbl}" ADD CONSTRAINT "${c.name}" ${c.def}` })),
    ];
  } catch (err) {
    if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
    throw err;
  } finally {
    await qr.release();
  }
}

/**
 * Creates again what {@link deferSecondaryIndexes} dropped, after the load: keys and indexes on up
 * to `concurrency` sessions at once (each with `maintenance_work_mem` raised for the sort), then
 * the foreign keys; then ANALYZE of the tables. A key the loaded rows violate fails here with
 * PostgreSQL's error (a unique violation names the key).
 * @param options.concurrency sessions building at once. @default 2
 * @param options.maintenanceWorkMem per session. @default '128MB'
 */
export async function createDeferredIndexes(ds: DataSource, schema: string, deferred: readonly DeferredIndex[], options: { concurrency?: number; maintenanceWorkMem?: string } = {}): Promise<void> {
  assertSchemaName(schema);
  const mem = options.maintenanceWorkMem ?? '128MB';
  if (!/^\d+(kB|MB|GB)$/.test(mem)) throw new Error(`maintenanceWorkMem ${mem}: expected e.g. 128MB`);
  const foreign = deferred.filter((d) => d.kind === 'constraint' && /\bFOREIGN KEY\b/.test(d.create));
  const queue = deferred.filter((d) => !foreign.includes(d));
  const worker = async () => {
    const qr = ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.query(`SET maintenance_work_mem = '${mem}'`);
      for (let d = queue.shift(); d; d = queue.shift()) await qr.query(d.create);
    } finally {
      await qr.query('RESET maintenance_work_mem').catch(() => undefined);
      await qr.release();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 2) }, worker));
  for (const f of foreign) await ds.query(f.create);
  const tables = [...new Set(deferred.map((d) => d.table))];
  for (const t of tables) await ds.query(`ANALYZE "${schema}"."${t}"`);
}
