/**
 * Editing the text of a stored function from one migration to the next (`ledger_append`,
 * docs/architecture.md §2, step 5): each migration states what it changes as `[from, to]` edits of
 * the previous text, so its unit spec can hold that nothing else changed.
 */

/**
 * `sql` with each edit's `from` replaced by its `to`, in order.
 * @param migration the migration's name, for the error
 * @throws Error when a `from` does not occur exactly once in the text it edits (the base function changed)
 */
export function editFunctionText(migration: string, sql: string, edits: ReadonlyArray<readonly [string, string]>): string {
  return edits.reduce((text, [from, to]) => {
    const at = text.indexOf(from);
    if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`${migration}: "${from.trim().split('\n')[0]}" was not found exactly once in the function's text`);
    return text.slice(0, at) + to + text.slice(at + from.length);
  }, sql);
}
