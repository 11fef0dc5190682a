/** What a fold sends its statements through: the transaction's client (`projection-tx.ts` SqlClient). */
export interface FoldClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

/**
 * One row of a table held in memory by a transaction's {@link RowFold} (docs/architecture.md §7):
 * its values as read at first use (node-postgres types: int → number, bigint/numeric → decimal
 * string, jsonb → object, timestamptz → Date) with this transaction's changes applied, and the
 * columns changed (written once, by the fold, with one statement per table and column set).
 */
export class FoldedRow {
  /** Columns changed since the row was read or last written. */
  readonly dirty = new Set<string>();
  /** True while the row exists in memory only (created by the transaction, not yet INSERTed). */
  pendingInsert = false;

  constructor(
    /** The qualified table (`"schema"."table"`). */
    readonly target: string,
    /** The key column and the row's key value. */
    readonly keyColumn: string,
    readonly key: string,
    /** Current values by column (read-only for callers: change them through `ProjectionTx.update`). */
    readonly values: Record<string, unknown>,
  ) {}

  /** Sets columns (values as {@link RowFold.write} sends them: strings, numbers, booleans, null, plain objects for jsonb). */
  assign(changes: Readonly<Record<string, unknown>>): void {
    for (const [column, value] of Object.entries(changes)) {
      if (!(column in this.values)) throw new Error(`${this.target} has no column ${column}`);
      this.values[column] = value;
      this.dirty.add(column);
    }
  }
}

/**
 * Rows of tables held in memory for ONE transaction and written once (docs/architecture.md §7):
 * a chain of UPDATEs of the same row (a shoe's state through its rounds) becomes one read at first
 * use and one write per table and column set at the end, whatever the number of events.
 *
 * Consistency: every statement the transaction sends that names a table with rows held here
 * (its qualified name appears in the text) first has those rows written and forgotten
 * ({@link release}), so a reader sees them and a writer's change is read back at the next use.
 * So the result is the one of the UPDATE chain, statement for statement.
 */
export class RowFold {
  /** qualified table → key → row */
  private readonly tables = new Map<string, Map<string, FoldedRow>>();

  constructor(
    private readonly client: FoldClient,
    /** Column → SQL type of a qualified table (the transaction's cached catalog read). */
    private readonly columnTypes: (target: string) => Promise<ReadonlyMap<string, string>>,
    /** Called once per statement sent (the transaction's statement counter). */
    private readonly counted: () => void,
  ) {}

  /**
   * The row of `target` whose `keyColumn` equals `key`: the one held, or read now (`SELECT *`).
   * @returns null when there is no such row (nothing is held then)
   */
  async row(target: string, keyColumn: string, key: string): Promise<FoldedRow | null> {
    const held = this.tables.get(target)?.get(key);
    if (held) {
      if (held.keyColumn !== keyColumn) throw new Error(`${target}: rows are held by ${held.keyColumn}, not ${keyColumn}`);
      return held;
    }
    this.counted();
    const { rows } = await this.client.query(`SELECT * FROM ${target} WHERE "${keyColumn}" = $1`, [key]);
    if (rows.length === 0) return null;
    if (rows.length > 1) throw new Error(`${target}.${keyColumn} is not a key: ${rows.length} rows for ${key}`);
    const row = new FoldedRow(target, keyColumn, key, rows[0] as Record<string, unknown>);
    let byKey = this.tables.get(target);
    if (!byKey) this.tables.set(target, (byKey = new Map()));
    byKey.set(key, row);
    return row;
  }

  /** True when the row of `target` with key `key` is held (no statement is needed to read it). */
  holds(target: string, key: string): boolean {
    return this.tables.get(target)?.has(key) ?? false;
  }

  /**
   * Reads the rows of `target` whose `keyColumn` is one of `keys` and not held yet, in ONE
   * `SELECT * … WHERE key = ANY($1)`, and holds them (a batch's rows read at once instead of one
   * statement per row at first use). Keys without a row are not held (a later {@link row} reads
   * them again and answers null).
   * @returns the number of rows read
   * @throws Error when the table already holds rows by another key column, or the column is not a key
   */
  async preload(target: string, keyColumn: string, keys: Iterable<string>): Promise<number> {
    let byKey = this.tables.get(target);
    const wanted = [...new Set(keys)].filter((k) => !byKey?.has(k));
    if (wanted.length === 0) return 0;
    const first = byKey?.values().next().value;
    if (first && first.keyColumn !== keyColumn) throw new Error(`${target}: rows are held by ${first.keyColumn}, not ${keyColumn}`);
    this.counted();
    const { rows } = await this.client.query(`SELECT * FROM ${target} WHERE "${keyColumn}" = ANY($1::text[])`, [wanted]);
    if (!byKey) this.tables.set(target, (byKey = new Map()));
    for (const values of rows) {
      const key = String(values[keyColumn]);
      if (byKey.has(key)) throw new Error(`${target}.${keyColumn} is not a key: several rows for ${key}`);
      byKey.set(key, new FoldedRow(target, keyColumn, key, values));
    }
    return rows.length;
  }

  /**
   * Reads the rows of `target` for which the SQL condition `where` (its columns unqualified,
   * parameters `params`) is true, in one statement, and holds those not held yet (a row held is
   * more recent than the table's: it stays as it is). Keyed by `keyColumn`.
   */
  async preloadWhere(target: string, keyColumn: string, where: string, params: unknown[]): Promise<void> {
    const first = this.tables.get(target)?.values().next().value;
    if (first && first.keyColumn !== keyColumn) throw new Error(`${target}: rows are held by ${first.keyColumn}, not ${keyColumn}`);
    this.counted();
    const { rows } = await this.client.query(`SELECT * FROM ${target} WHERE ${where}`, params);
    let byKey = this.tables.get(target);
    if (!byKey) this.tables.set(target, (byKey = new Map()));
    for (const values of rows) {
      const key = String(values[keyColumn]);
      if (!byKey.has(key)) byKey.set(key, new FoldedRow(target, keyColumn, key, values));
    }
  }

  /** The rows of `target` held now (read, preloaded or created in this transaction). */
  held(target: string): IterableIterator<FoldedRow> {
    return (this.tables.get(target) ?? new Map<string, FoldedRow>()).values();
  }

  /**
   * Creates a row in memory (INSERTed with every column of `values` at the next write): `values`
   * must name every column later changes set or read (the table's defaults are not applied in
   * memory). Later changes of the same transaction are made in memory too.
   * @throws Error when a row with that key is already held (the INSERT would violate the key)
   */
  create(target: string, keyColumn: string, values: Record<string, unknown>): FoldedRow {
    const key = String(values[keyColumn]);
    let byKey = this.tables.get(target);
    if (!byKey) this.tables.set(target, (byKey = new Map()));
    if (byKey.has(key)) throw new Error(`${target}: row ${key} is already held`);
    const row = new FoldedRow(target, keyColumn, key, values);
    row.pendingInsert = true;
    byKey.set(key, row);
    return row;
  }

  /** Writes the changed rows of every table the statement `sql` names and forgets them (see the class). */
  async release(sql: string): Promise<void> {
    for (const target of this.tables.keys()) {
      if (sql.includes(target)) {
        await this.write(target);
        this.tables.delete(target);
      }
    }
  }

  /** Writes every changed row (kept in memory: they stay valid, nothing else wrote them). */
  async writeAll(): Promise<void> {
    for (const target of this.tables.keys()) await this.write(target);
  }

  /**
   * The rows of `target` created in memory (one `INSERT … SELECT … FROM json_to_recordset($1)` per
   * set of columns), then its changed rows: ONE `UPDATE … FROM json_to_recordset($1)` per set of changed
   * columns, each value cast to its column's catalog type.
   */
  private async write(target: string): Promise<void> {
    await this.insertPending(target);
    const byColumns = new Map<string, FoldedRow[]>();
    for (const row of this.tables.get(target)?.values() ?? []) {
      if (row.dirty.size === 0) continue;
      const columns = [...row.dirty].sort().join(',');
      byColumns.set(columns, [...(byColumns.get(columns) ?? []), row]);
    }
    if (byColumns.size === 0) return;
    const types = await this.columnTypes(target);
    for (const [joined, rows] of byColumns) {
      const columns = joined.split(',');
      const keyColumn = rows[0].keyColumn;
      const cast = (c: string) => {
        const type = types.get(c);
        if (!type) throw new Error(`${target} has no column ${c}`);
        return `x."${c}"::${type}`;
      };
      const sql =
        `UPDATE ${target} AS s SET ${columns.map((c) => `"${c}" = ${cast(c)}`).join(', ')} ` +
        `FROM json_to_recordset($1::json) AS x("${keyColumn}" text, ${columns.map((c) => `"${c}" text`).join(', ')}) WHERE s."${keyColumn}" = ${cast(keyColumn)}`;
      const json = JSON.stringify(rows.map((r) => Object.fromEntries([[keyColumn, r.key], ...columns.map((c) => [c, r.values[c]])])));
      this.counted();
      const result = await this.client.query(sql, [json]);
      if (result.rowCount !== rows.length) throw new Error(`${target}: ${rows.length} folded rows written, ${result.rowCount} found`);
      for (const r of rows) r.dirty.clear();
    }
  }

  private async insertPending(target: string): Promise<void> {
    const byColumns = new Map<string, FoldedRow[]>();
    for (const row of this.tables.get(target)?.values() ?? []) {
      if (!row.pendingInsert) continue;
      const columns = Object.keys(row.values).join(',');
      byColumns.set(columns, [...(byColumns.get(columns) ?? []), row]);
    }
    if (byColumns.size === 0) return;
    const types = await this.columnTypes(target);
    for (const [joined, rows] of byColumns) {
      const columns = joined.split(',');
      const casts = columns.map((c) => {
        const type = types.get(c);
        if (!type) throw new Error(`${target} has no column ${c}`);
        return `x."${c}"::${type}`;
      });
      const sql = `INSERT INTO ${target} (${columns.map((c) => `"${c}"`).join(',')}) SELECT ${casts.join(',')} FROM json_to_recordset($1::json) AS x(${columns.map((c) => `"${c}" text`).join(',')})`;
      this.counted();
      await this.client.query(sql, [JSON.stringify(rows.map((r) => r.values))]);
      for (const r of rows) {
        r.pendingInsert = false;
        r.dirty.clear();
      }
    }
  }
}
