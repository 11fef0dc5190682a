import { DEFAULT_READ_SCHEMA as CONFIG_DEFAULT_READ_SCHEMA, isReadModelSchemaName } from '@ledger/config';
import { ProjectionError } from './errors';

/**
 * The PostgreSQL schema the projections live in. `read` is the live one; a rebuild may target a
 * scratch schema (`read_rebuild_…`) so it can be compared with live without touching it.
 */

/** The live read-model schema (the default of `PROJECTIONS_SCHEMA`, docs/architecture.md §5). */
export const DEFAULT_READ_SCHEMA = CONFIG_DEFAULT_READ_SCHEMA;

/**
 * Checks a schema name: a lower-case SQL identifier (`[a-z_][a-z0-9_]*`, at most 63 bytes), so it
 * can be interpolated into SQL without quoting surprises.
 * @returns the name
 * @throws ProjectionError `PROJECTION.BAD_SCHEMA_NAME`
 */
export function assertSchemaName(name: string): string {
  if (!isReadModelSchemaName(name)) {
    throw new ProjectionError('PROJECTION.BAD_SCHEMA_NAME', `schema name must match [a-z_][a-z0-9_]* (not public, information_schema or pg_*), got ${JSON.stringify(name)}`);
  }
  return name;
}

/** `"schema"."table"`, after checking the schema name. */
export function qualified(schema: string, table: string): string {
  return `"${assertSchemaName(schema)}"."${table}"`;
}
