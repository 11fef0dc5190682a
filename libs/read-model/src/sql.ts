import { assertSchemaName } from '@ledger/projections';

/**
 * The SQL boundary of the read side (docs/architecture.md §7): every statement of the read model's
 * queries, and every statement the API still runs on its own tables (through
 * `apps/ledger/src/kernel/sql.ts`), goes through {@link rows}, {@link first} or {@link exec}, so a
 * caller names the shape of the rows it reads instead of handling `any`.
 */

/**
 * Anything that runs SQL text with `$1…` parameters on PostgreSQL: a TypeORM `DataSource`,
 * `QueryRunner` or `EntityManager` (they resolve the rows), or a node-postgres `Client` / `Pool`
 * (they resolve `{ rows }`). A `QueryRunner` keeps one connection, so a transaction's statements
 * (`BEGIN … COMMIT`) run on the same session.
 */
export interface Queryable {
  query(text: string, parameters?: unknown[]): Promise<unknown>;
}

/** The rows of a driver's answer: TypeORM answers the array, node-postgres `{ rows }`; a statement without rows answers none. */
function rowsOf(result: unknown): unknown[] {
  if (Array.isArray(result)) return result;
  const r = (result as { rows?: unknown } | null | undefined)?.rows;
  return Array.isArray(r) ? r : [];
}

/**
 * Runs a statement and resolves its rows as `Row` (the caller's declaration of the columns the SQL
 * selects, with their PostgreSQL → JavaScript types: `bigint`/`numeric` cast `::text` arrive as
 * strings, `timestamptz` as `Date`, `jsonb` parsed). The rows are not checked at run time.
 * @param params the values of `$1…` in order (none: the statement runs without parameters)
 * @throws whatever the driver throws (a PostgreSQL error, a lost connection)
 */
export async function rows<Row>(q: Queryable, text: string, params: readonly unknown[] = []): Promise<Row[]> {
  return rowsOf(await q.query(text, params.length ? [...params] : undefined)) as Row[];
}

/** The first row of {@link rows}, `undefined` when the statement returned none. @throws as {@link rows} */
export async function first<Row>(q: Queryable, text: string, params: readonly unknown[] = []): Promise<Row | undefined> {
  return (await rows<Row>(q, text, params))[0];
}

/**
 * Runs a statement whose rows (if any) the caller does not read: `INSERT` without `RETURNING`,
 * `SET`, `BEGIN`, `COMMIT`, `LISTEN`. @throws as {@link rows}
 */
export async function exec(q: Queryable, text: string, params: readonly unknown[] = []): Promise<void> {
  await q.query(text, params.length ? [...params] : undefined);
}

/**
 * The qualified names (`schema.table`, as the read model's SQL writes them) of a group of tables.
 * @param schema the read-model schema, checked (`[a-z_][a-z0-9_]*`, not a system schema)
 * @param tables name → table, e.g. `{ settlements: 'bet_settlements' }`
 * @throws ProjectionError `PROJECTION.BAD_SCHEMA_NAME` for a schema that is not a plain identifier
 */
export function tablesIn<T extends Record<string, string>>(schema: string, tables: T): { readonly [K in keyof T]: string } {
  const s = assertSchemaName(schema);
  const out: Record<string, string> = {};
  for (const [key, table] of Object.entries(tables)) out[key] = `${s}.${table}`;
  return out as { readonly [K in keyof T]: string };
}
