import { createHash } from 'node:crypto';
import type { GamingDayConfig } from './gaming-day';
import { addOverLcm, Fraction, ZERO_FRACTION } from './rational';
import { qualified } from './schema-name';
import { FoldedRow, RowFold } from './row-fold';

/**
 * The unit of work projections write through: ONE PostgreSQL transaction per batch of Kafka
 * records, shared by every projection and the checkpoint (docs/guarantees.md §6). It knows no
 * projection: each projection describes its own tables and statements (`libs/read-model/src/<folder>/projection.ts`)
 * and uses these generic, buffered operations.
 *
 * Speed without giving up read-your-writes:
 * - {@link ProjectionTx.query} runs a statement now. Before it runs, every pending
 *   {@link ProjectionTx.defer} write is executed, so a read always sees what earlier events of
 *   the batch wrote.
 * - {@link ProjectionTx.defer} queues a write that later events may read (a bet placed, a bet
 *   settled, a card dealt into a round). Writes queued back to back under the same `kind` go out
 *   as ONE statement (10,000 BetPlaced of a busy round become a handful of multi-row INSERTs);
 *   runs of different kinds are executed in the order they were queued, so the effect is exactly
 *   that of executing each write immediately. {@link ProjectionTx.deferInsert} is the INSERT case.
 * - {@link ProjectionTx.append} queues a row of a table nothing reads while applying
 *   (`audit_events`, `applied_events`, `bet_settlement_revisions`); written at {@link flush}.
 * - {@link ProjectionTx.increment} adds deltas to a row of a {@link SumTable} (a table of sums by
 *   key, such as `reconciliation`) in memory; one upsert per key at {@link flush}. Sums, counts
 *   and the lcm rule of fractions are associative, so the rows are identical whatever the batch size.
 * - {@link ProjectionTx.commitState} keeps a keyed, commutative accumulator (a shoe's card counts)
 *   written once at flush; {@link ProjectionTx.beforeCommit} runs a keyed hook once at flush (the
 *   roads of a shoe are recomputed once per transaction, however many of its rounds the batch
 *   resulted).
 * - {@link ProjectionTx.fact} caches an immutable fact read once (a round's attribution) for this
 *   transaction and, after COMMIT, for the next ones of the same applier.
 *
 * Which tables a projection may name ({@link ProjectionTx.t}) is checked while it runs: the applier
 * opens a {@link TableScope} per projection and phase (docs/architecture.md §7), so a projection
 * that reads another's table without declaring it fails at once rather than depending silently on
 * the order the projections run in. Queued work runs under the scope of the projection that queued it.
 */

/** The part of a `pg` client the read side uses (a `PoolClient` fits). */
export interface SqlClient {
  query(text: string | { name?: string; text: string; values?: unknown[] }, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}

const NAMES = new Map<string, string>();

/** Column types by qualified table (`ProjectionTx.columnTypes`): a table's shape is fixed by its migrations. */
const COLUMN_TYPES = new Map<string, ReadonlyMap<string, string>>();

/**
 * Rows as one JSON array for `json_to_recordset`, e.g. `[{"a":"1","b":null}]`. No replacer (it
 * would run for every value of a 10,000-row batch): amounts are passed as decimal strings.
 * @throws TypeError when a value is a bigint (pass `.toString()`)
 */
export function jsonRows(rows: readonly unknown[]): string {
  return JSON.stringify(rows);
}

/** A stable prepared-statement name for a statement text (`p_` + 20 hex of its SHA-1). */
function statementName(sql: string): string {
  let n = NAMES.get(sql);
  if (!n) {
    n = `p_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    if (NAMES.size < 10_000) NAMES.set(sql, n);
  }
  return n;
}

/**
 * A table whose rows are sums by key, described by the projection that owns it (see
 * {@link ProjectionTx.increment}). Written as `INSERT … ON CONFLICT (key) DO UPDATE SET c = x.c + EXCLUDED.c`.
 */
export interface SumTable {
  /** Table name (in the transaction's schema). */
  readonly name: string;
  /** The unique key, in conflict-target order, with the SQL type each value is cast to (`text`, `date`). */
  readonly key: readonly { readonly column: string; readonly type: string }[];
  /** Integer columns (`numeric`/`bigint`) summed. */
  readonly sums: readonly string[];
  /**
   * Fractions summed exactly: `name` (the delta's field), numerator and denominator columns. The
   * stored pair is the sum over the lcm of every denominator summed (`rational.ts` addOverLcm).
   */
  readonly fractions?: readonly { readonly name: string; readonly num: string; readonly den: string }[];
}

/** A change to one row of a {@link SumTable}: sum column or fraction name → amount. Omitted = 0. */
export type SumDelta = Readonly<Record<string, bigint | Fraction | undefined>>;

/** Facts that outlive one transaction (owned by the applier): per kind, key → immutable value. */
export interface TxCaches {
  readonly facts: Map<string, Map<string, unknown>>;
}

/**
 * What a running projection may name through {@link ProjectionTx.t}: in `apply` its own tables;
 * in `prepare` and at `commit` also the tables it declares it reads. Opened by the applier.
 */
export interface TableScope {
  /** The projection running. */
  readonly projection: string;
  readonly phase: 'prepare' | 'apply' | 'commit';
  /** Its own tables. */
  readonly own: ReadonlySet<string>;
  /** Other projections' tables it declares it reads. */
  readonly reads: ReadonlySet<string>;
}

/** Max parameters per statement (PostgreSQL allows 65,535). */
const MAX_PARAMS = 60_000;

type Queued = { kind: string; items: unknown[]; flush: (items: any[]) => Promise<void>; scope: TableScope | null; insertInto?: string };
type SumAcc = { table: SumTable; key: readonly string[]; sums: Record<string, bigint>; fractions: Record<string, Fraction> };

/** One transaction's view for the projections. Built by the applier; never shared between transactions. */
export class ProjectionTx {
  private deferred: Queued[] = [];
  private readonly states = new Map<string, { state: unknown; flush: (state: any) => Promise<void>; scope: TableScope | null }>();
  private readonly appended = new Map<string, Record<string, unknown>[]>();
  private readonly sums = new Map<string, SumAcc>();
  private readonly hooks = new Map<string, { hook: () => Promise<void>; scope: TableScope | null }>();
  /** Facts learned in this transaction; merged into the shared cache only after COMMIT ({@link learnedFacts}). */
  private readonly newFacts = new Map<string, Map<string, unknown>>();
  private current: TableScope | null = null;
  /** Rows held in memory for the transaction ({@link row}, {@link update}). */
  private readonly fold: RowFold;
  /** Statements sent (for metrics). */
  statements = 0;

  constructor(
    private readonly client: SqlClient,
    /** Target schema (`read`, or a scratch schema). */
    readonly schema: string,
    /** Gaming-day rule (same for live and rebuild, or checksums differ). */
    readonly gamingDayConfig: GamingDayConfig,
    private readonly caches: TxCaches = { facts: new Map() },
  ) {
    this.fold = new RowFold(
      client,
      (target) => this.columnTypes(target),
      () => this.statements++,
    );
  }

  /**
   * `"schema"."table"`.
   * @throws Error when a projection is running (see {@link scoped}) and `table` is not in its scope
   */
  t(table: string): string {
    const s = this.current;
    if (s && !s.own.has(table) && !(s.phase !== 'apply' && s.reads.has(table))) {
      const hint = s.reads.has(table) ? 'read it in prepare' : 'declare it in its reads and read it in prepare';
      throw new Error(`projection ${s.projection} names table ${table} in ${s.phase}, which it does not own: ${hint}`);
    }
    return qualified(this.schema, table);
  }

  /** @throws Error when a projection queues a write while it prepares (prepare only reads) */
  private assertMayWrite(): void {
    if (this.current?.phase === 'prepare') throw new Error(`projection ${this.current.projection} queues a write in prepare: writes belong in apply`);
  }

  /** `"schema"."function"` of a SQL function of the read model (`add_counts`); not scope-checked. */
  fn(name: string): string {
    return qualified(this.schema, name);
  }

  /** Runs `body` with `scope` open (the applier's; `null` = unchecked), restoring the previous one after. */
  async scoped<T>(scope: TableScope | null, body: () => Promise<T>): Promise<T> {
    const previous = this.current;
    this.current = scope;
    try {
      return await body();
    } finally {
      this.current = previous;
    }
  }

  /**
   * Runs a statement now (after writing pending deferred rows). The statement is prepared once per
   * connection (a named statement), so `sql` must have a fixed shape: variable parts go in `params`.
   * @returns the rows
   */
  async query<R = Record<string, any>>(sql: string, params: unknown[] = []): Promise<R[]> {
    await this.flushDeferred();
    await this.fold.release(sql);
    this.statements++;
    return (await this.client.query({ name: statementName(sql), text: sql, values: params })).rows as R[];
  }

  /** Runs a statement without flushing deferred writes: for {@link defer} flush functions only. */
  async queryNow<R = Record<string, any>>(sql: string, params: unknown[] = []): Promise<R[]> {
    await this.fold.release(sql);
    this.statements++;
    return (await this.client.query(sql, params)).rows as R[];
  }

  /**
   * Queues a write that later statements may read; executed before the next {@link query} and at
   * {@link flush}. Consecutive items of the same `kind` are executed together by ONE call of
   * `flush(items)` (which must have the same effect as executing them one by one, in order).
   */
  defer<T>(kind: string, item: T, flush: (items: T[]) => Promise<void>): void {
    this.assertMayWrite();
    const last = this.deferred[this.deferred.length - 1];
    if (last && last.kind === kind) last.items.push(item);
    else this.deferred.push({ kind, items: [item], flush, scope: this.current });
  }

  /** Queues a row for `table` (see {@link defer}); consecutive rows become one multi-row INSERT. */
  deferInsert(table: string, row: Record<string, unknown>): void {
    const target = this.t(table);
    this.defer(`insert:${table}`, row, (rows) => this.insertRows(target, rows));
    this.deferred[this.deferred.length - 1].insertInto = target;
  }

  /**
   * A keyed accumulator written once at {@link flush}: `create()` on first use, then the same object
   * for the rest of the transaction. For commutative effects nothing reads during apply (counters).
   */
  commitState<S>(key: string, create: () => S, flush: (state: S) => Promise<void>): S {
    this.assertMayWrite();
    let entry = this.states.get(key);
    if (!entry) {
      entry = { state: create(), flush, scope: this.current };
      this.states.set(key, entry);
    }
    return entry.state as S;
  }

  /**
   * The row of `table` (own, or declared read in prepare) whose `keyColumn` = `key`, held in memory
   * for the rest of the transaction (`row-fold.ts`): read at first use, then the same object, with
   * the changes {@link update} made; any statement naming the table writes them first.
   * Pending deferred writes are written before a read (not when the row is held, nor when they are
   * only inserts into other tables).
   * @returns null when the table has no such row
   * @throws Error when `table` is outside the running projection's scope (see {@link t})
   */
  async row(table: string, keyColumn: string, key: string): Promise<FoldedRow | null> {
    const target = this.t(table);
    if (!this.fold.holds(target, key)) await this.flushDeferred(target);
    return this.fold.row(target, keyColumn, key);
  }

  /**
   * Holds the rows of `table` (own, or declared read) whose `keyColumn` is one of `keys`, read in ONE
   * statement (`row-fold.ts` `preload`): what a projection's {@link Projection.preload} asks for a
   * batch, so the {@link row}s of its events need no statement each. Pending deferred writes are
   * written first (but inserts into other tables). Keys without a row are left out (a later {@link row} answers null).
   * @throws Error when `table` is outside the running projection's scope (see {@link t})
   */
  async preload(table: string, keyColumn: string, keys: Iterable<string>): Promise<void> {
    const target = this.t(table);
    await this.flushDeferred(target);
    await this.fold.preload(target, keyColumn, keys);
  }

  /**
   * Holds the rows of `table` (own, or declared read) for which the SQL condition `where` is true
   * (its columns unqualified, placeholders `$1…` of `params`), read in one statement, and returns
   * every row of the table the transaction holds: the caller filters them IN MEMORY with the same
   * condition (a held row is more recent than the table's, e.g. a round whose betting closed
   * earlier in the batch). Deferred inserts into other tables stay queued.
   * @throws Error when `table` is outside the running projection's scope (see {@link t})
   */
  async rowsWhere(table: string, keyColumn: string, where: string, params: unknown[]): Promise<FoldedRow[]> {
    const target = this.t(table);
    await this.flushDeferred(target);
    await this.fold.preloadWhere(target, keyColumn, where, params);
    return [...this.fold.held(target)];
  }

  /**
   * Creates ONE new row of the running projection's own `table` in memory, held like {@link row}
   * holds one: INSERTed (with the rows created with it, one statement) at {@link flush} or before
   * the next statement naming the table; later changes are {@link update}s in memory. `values` must
   * name every column later changes set or read (defaults are not applied in memory).
   * @throws Error in prepare, outside the projection's own tables, or when the key is already held
   */
  createRow(table: string, keyColumn: string, values: Record<string, unknown>): FoldedRow {
    this.assertMayWrite();
    return this.fold.create(this.t(table), keyColumn, values);
  }

  /**
   * Changes columns of a row held by {@link row}, in memory: written once, at {@link flush} or
   * before the next statement naming its table (one UPDATE per table and set of columns). The
   * replacement for a chain of per-event UPDATEs of the same row (docs/architecture.md §7).
   * @throws Error in prepare, or when the row's table is not the running projection's own
   */
  update(row: FoldedRow, changes: Readonly<Record<string, unknown>>): void {
    this.assertMayWrite();
    const table = row.target.slice(row.target.lastIndexOf('.') + 1).replace(/"/g, '');
    if (this.t(table) !== row.target) throw new Error(`row of ${row.target} is not of this transaction's schema`);
    row.assign(changes);
  }

  /** Queues a row for a table nothing reads during apply; written at {@link flush}. */
  append(table: string, row: Record<string, unknown>): void {
    this.assertMayWrite();
    const target = this.t(table);
    const rows = this.appended.get(target);
    if (rows) rows.push(row);
    else this.appended.set(target, [row]);
  }

  /**
   * Adds `delta` to the row of `table` at `key` (values in the order of `table.key`), in memory;
   * one upsert per key at {@link flush}.
   * @throws Error when `delta` names a column that is neither a sum nor a fraction of the table
   */
  increment(table: SumTable, key: readonly string[], delta: SumDelta): void {
    this.assertMayWrite();
    this.t(table.name);
    const k = JSON.stringify([table.name, ...key]);
    let acc = this.sums.get(k);
    if (!acc) {
      acc = { table, key, sums: {}, fractions: {} };
      this.sums.set(k, acc);
    }
    for (const [field, v] of Object.entries(delta)) {
      if (v === undefined) continue;
      if (typeof v === 'bigint') {
        if (!table.sums.includes(field)) throw new Error(`${table.name}: ${field} is not a summed column`);
        acc.sums[field] = (acc.sums[field] ?? 0n) + v;
      } else {
        if (!table.fractions?.some((f) => f.name === field)) throw new Error(`${table.name}: ${field} is not a summed fraction`);
        acc.fractions[field] = addOverLcm(acc.fractions[field] ?? ZERO_FRACTION, v);
      }
    }
  }

  /** Registers a hook run once at {@link flush}; a later registration under the same key replaces it. */
  beforeCommit(key: string, hook: () => Promise<void>): void {
    this.assertMayWrite();
    this.hooks.delete(key); // keep insertion order = order of the latest registration
    this.hooks.set(key, { hook, scope: this.current && { ...this.current, phase: 'commit' } });
  }

  /**
   * An immutable fact of `kind` (e.g. a round's attribution) by key: this transaction's, the
   * applier's committed cache, or `load()` (then remembered for this transaction, and for the next
   * ones once this one commits). `load` may throw; nothing is remembered then.
   */
  async fact<T>(kind: string, key: string, load: () => Promise<T>): Promise<T> {
    const mine = this.newFacts.get(kind);
    if (mine?.has(key)) return mine.get(key) as T;
    const shared = this.caches.facts.get(kind);
    if (shared?.has(key)) return shared.get(key) as T;
    const value = await load();
    if (mine) mine.set(key, value);
    else this.newFacts.set(kind, new Map([[key, value]]));
    return value;
  }

  /**
   * Records an immutable fact this transaction established (e.g. a round's attribution when it
   * opens), so a later {@link fact} of the same kind and key does not read it back.
   */
  knowFact<T>(kind: string, key: string, value: T): void {
    const mine = this.newFacts.get(kind);
    if (mine) mine.set(key, value);
    else this.newFacts.set(kind, new Map([[key, value]]));
  }

  /** The facts this transaction learned (for the applier to merge after COMMIT). */
  learnedFacts(): ReadonlyMap<string, ReadonlyMap<string, unknown>> {
    return this.newFacts;
  }

  /** Runs the accumulators and hooks, then writes deferred rows, appended rows and sums. */
  async flush(): Promise<void> {
    await this.fold.writeAll();
    for (const [key, { state, flush, scope }] of this.states) {
      this.states.delete(key);
      await this.scoped(scope, () => flush(state));
    }
    while (this.hooks.size > 0) {
      const [key, { hook, scope }] = this.hooks.entries().next().value as [string, { hook: () => Promise<void>; scope: TableScope | null }];
      this.hooks.delete(key);
      await this.scoped(scope, hook);
    }
    await this.flushDeferred();
    for (const [target, rows] of this.appended) await this.insertRows(target, rows);
    this.appended.clear();
    await this.flushSums();
    await this.fold.writeAll();
  }

  /**
   * Writes the queued deferred writes, in order. With `target` (a qualified table about to be read):
   * not when every queued write is an insert into another table (nothing queued can change it).
   */
  private async flushDeferred(target?: string): Promise<void> {
    if (target !== undefined && this.deferred.every((b) => b.insertInto !== undefined && b.insertInto !== target)) return;
    while (this.deferred.length > 0) {
      const batches = this.deferred;
      this.deferred = [];
      for (const b of batches) await this.scoped(b.scope, () => b.flush(b.items));
    }
  }

  /**
   * ONE `INSERT … SELECT … FROM json_to_recordset($1)` of `rows` (all with the keys of the first)
   * into the qualified table `target`, whatever their number: one parameter (the rows as JSON), a
   * fixed statement text per table and column set (prepared once per connection), each column cast
   * to its type in the catalog (read once per table, {@link columnTypes}). Values: strings (decimal
   * strings for bigint/numeric, ISO-8601 for timestamps), numbers, booleans, null, or plain
   * objects / JSON text for json and jsonb columns.
   */
  private async insertRows(target: string, rows: Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]);
    const sql = await this.recordsetInsertSql(target, columns);
    this.statements++;
    await this.client.query({ name: statementName(sql), text: sql, values: [jsonRows(rows)] });
  }

  /** `INSERT INTO target (columns) SELECT x.c::type … FROM json_to_recordset($1::json) AS x(c text, …)`. */
  private async recordsetInsertSql(target: string, columns: readonly string[]): Promise<string> {
    const types = await this.columnTypes(target);
    const casts = columns.map((c) => {
      const type = types.get(c);
      if (!type) throw new Error(`${target} has no column ${c}`);
      return `x."${c}"::${type}`;
    });
    return `INSERT INTO ${target} (${columns.map((c) => `"${c}"`).join(',')}) SELECT ${casts.join(',')} FROM json_to_recordset($1::json) AS x(${columns.map((c) => `"${c}" text`).join(',')})`;
  }

  /** Column → SQL type (`format_type`) of the qualified table `target`, read once per process. */
  private async columnTypes(target: string): Promise<ReadonlyMap<string, string>> {
    let types = COLUMN_TYPES.get(target);
    if (!types) {
      this.statements++;
      const { rows } = await this.client.query(`SELECT attname, format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`, [target]);
      types = new Map(rows.map((r: { attname: string; type: string }) => [r.attname, r.type]));
      if (types.size === 0) return types;
      if (COLUMN_TYPES.size < 1000) COLUMN_TYPES.set(target, types);
    }
    return types;
  }

  /** One upsert per {@link SumTable} (chunked by parameters), one tuple per key, in first-use order. */
  private async flushSums(): Promise<void> {
    if (this.sums.size === 0) return;
    const byTable = new Map<SumTable, SumAcc[]>();
    for (const acc of this.sums.values()) byTable.set(acc.table, [...(byTable.get(acc.table) ?? []), acc]);
    this.sums.clear();
    for (const [table, accs] of byTable) {
      const fractions = table.fractions ?? [];
      const cols = [...table.key.map((k) => k.column), ...table.sums, ...fractions.flatMap((f) => [f.num, f.den])];
      const perStatement = Math.max(1, Math.floor(MAX_PARAMS / cols.length));
      const lcmDen = (f: { den: string }) => `lcm(x.${f.den}, EXCLUDED.${f.den})`;
      const sets = [
        ...table.sums.map((c) => `${c} = x.${c} + EXCLUDED.${c}`),
        ...fractions.flatMap((f) => [`${f.num} = x.${f.num} * div(${lcmDen(f)}, x.${f.den}) + EXCLUDED.${f.num} * div(${lcmDen(f)}, EXCLUDED.${f.den})`, `${f.den} = ${lcmDen(f)}`]),
      ];
      for (let i = 0; i < accs.length; i += perStatement) {
        const params: unknown[] = [];
        const tuples = accs.slice(i, i + perStatement).map((a) => {
          const values: string[] = [
            ...table.key.map((k, j) => `$${params.push(a.key[j])}::${k.type}`),
            ...table.sums.map((c) => `$${params.push((a.sums[c] ?? 0n).toString())}::numeric`),
            ...fractions.flatMap((f) => {
              const v = a.fractions[f.name] ?? ZERO_FRACTION;
              return [`$${params.push(v.num.toString())}::numeric`, `$${params.push(v.den.toString())}::numeric`];
            }),
          ];
          return `(${values.join(',')})`;
        });
        this.statements++;
        await this.client.query(
          `INSERT INTO ${qualified(this.schema, table.name)} AS x (${cols.join(',')}) VALUES ${tuples.join(',')}
       ON CONFLICT (${table.key.map((k) => k.column).join(', ')}) DO UPDATE SET
         ${sets.join(',\n         ')}`,
          params,
        );
      }
    }
  }
}
