import { ProjectionError } from './errors';
import type { TableScope } from './projection-tx';
import type { Projection } from './projection';

/** The table scopes of one projection, as the applier opens them (see `ProjectionTx.t`). */
export interface ProjectionScopes {
  readonly prepare: TableScope;
  readonly apply: TableScope;
}

/** The scopes of `p`: its own tables, and the ones it declares it reads. */
export function projectionScopes(p: Projection): ProjectionScopes {
  const own = new Set(p.tables.map((t) => t.name));
  const reads = new Set(p.reads ?? []);
  return { prepare: { projection: p.name, phase: 'prepare', own, reads }, apply: { projection: p.name, phase: 'apply', own, reads } };
}

/**
 * Checks a list of projections before an applier uses it (docs/architecture.md §7): names and
 * tables are unique, every table a projection declares it reads belongs to ANOTHER projection of
 * the list, and every table in `required` (what the caller itself reads or writes, e.g. the
 * applier's stream bookkeeping on `shoe_state`) belongs to one. With this and the table scopes,
 * the result does not depend on the order of the list.
 * @param required table → who needs it, for the message
 * @throws ProjectionError `PROJECTION.BAD_CONFIG` naming the projection and the table
 */
export function checkProjectionSet(projections: readonly Projection[], required: Readonly<Record<string, string>> = {}): void {
  const owner = new Map<string, string>();
  const names = new Set<string>();
  for (const p of projections) {
    if (names.has(p.name)) throw new ProjectionError('PROJECTION.BAD_CONFIG', `projection ${p.name} is listed twice`, { projection: p.name });
    names.add(p.name);
    for (const t of p.tables) {
      const other = owner.get(t.name);
      if (other) throw new ProjectionError('PROJECTION.BAD_CONFIG', `table ${t.name} is owned by both ${other} and ${p.name}`, { table: t.name });
      owner.set(t.name, p.name);
    }
  }
  for (const p of projections) {
    for (const table of p.reads ?? []) {
      const o = owner.get(table);
      if (o === p.name) throw new ProjectionError('PROJECTION.BAD_CONFIG', `projection ${p.name} declares it reads its own table ${table}`, { projection: p.name, table });
      if (!o) {
        throw new ProjectionError('PROJECTION.BAD_CONFIG', `projection ${p.name} reads table ${table}, which no projection of the list (${[...names].join(', ')}) writes`, {
          projection: p.name,
          table,
        });
      }
    }
  }
  for (const [table, who] of Object.entries(required)) {
    if (!owner.has(table)) {
      throw new ProjectionError('PROJECTION.BAD_CONFIG', `${who} needs table ${table}, which no projection of the list (${[...names].join(', ')}) writes`, { table });
    }
  }
}
