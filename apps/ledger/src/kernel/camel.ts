/**
 * snake_case row → camelCase object: keys renamed, values unchanged but a `Date`, which becomes its
 * ISO-8601 UTC text (amounts arrive as strings and stay strings). Every read that answers rows of the
 * read model shapes them with it.
 */
export function camel<T = Record<string, unknown>>(row: object): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v instanceof Date ? v.toISOString() : v;
  return out as T;
}
