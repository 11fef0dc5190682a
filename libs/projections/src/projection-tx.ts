import { createHash } from 'node:crypto';
import { ProjectionError } from './errors';
import type { GamingDayConfig } from './gaming-day';
import { addOverLcm, Fraction, ZERO_FRACTION } from './rational';
import { qualified } from './schema-name';

/**
 * The unit of work projections write through: ONE PostgreSQL transaction per batch of Kafka
 * records, shared by every projection and the checkpoint (architecture.md guarantee 6).
 *
 * Speed without giving up read-your-writes:
 * - {@link ProjectionTx.query} runs a statement now. Before it runs, every pending
 *   {@link ProjectionTx.deferInsert} row is written, so a projection always reads what earlier
 *   events of the batch wrote.
 * - {@link ProjectionTx.defer} queues a write that later events may read (a bet placed, a bet
 *   settled, a card dealt into a round). Writes queued back to back under the same `kind` go out
 *   as ONE statement (10,000 BetPlaced of a busy round become a handful of multi-row INSERTs);
 *   runs of different kinds are executed in the order they were queued, so the effect is exactly
 *   that of executing each write immediately. {@link ProjectionTx.deferInsert} is the INSERT case.
 * - {@link ProjectionTx.append} queues a row of a table no projection reads while applying
 *   (`audit_events`, `applied_events`, `bet_settlement_revisions`); written at {@link flush}.
 * - {@link ProjectionTx.addReconciliation} accumulates reconciliation deltas per key in memory;
 *   one upsert per key at {@link flush}. Sums, counts and the lcm rule of the dropped fractions
 *   are associative, so the rows are identical whatever the batch size.
 * - {@link ProjectionTx.commitState} keeps a keyed, commutative accumulator (a shoe's card counts)
 *   written once at flush; {@link ProjectionTx.beforeCommit} runs a keyed hook once at flush (the
 *   roads of a shoe are recomputed once per transaction, however many of its rounds the batch
 *   resulted).
 */

/** The part of a `pg` client the read side uses (a `PoolClient` fits). */
export interface SqlClient {
  query(text: string | { name?: string; text: string; values?: unknown[] }, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}

const NAMES = new Map<string, string>();

/** A stable prepared-statement name for a statement text (`p_` + 20 hex of its SHA-1). */
function statementName(sql: string): string {
  let n = NAMES.get(sql);
  if (!n) {
    n = `p_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    if (NAMES.size < 10_000) NAMES.set(sql, n);
  }
  return n;
}

/** Facts about a round fixed when it opened, which every bet of the round is attributed to. */
export interface RoundContext {
  readonly roundId: string;
  readonly shoeId: string;
  readonly tableId: string;
  /** Dealer of the shoe at RoundOpened (reconciliation attribution). */
  readonly dealerId: string;
  /** `YYYY-MM-DD`, see gaming-day.ts. */
  readonly gamingDay: string;
  /** The shoe's currency (TableSettings.currency). */
  readonly currency: string;
  readonly paytableRef: string;
}

/** A reconciliation row's key (§4 reconciliation by table / shoe / dealer / day / currency). */
export interface ReconciliationKey {
  readonly tableId: string;
  readonly shoeId: string;
  readonly dealerId: string;
  readonly gamingDay: string;
  readonly currency: string;
}

/** Changes to a reconciliation row; amounts in minor units. Omitted fields are 0. */
export interface ReconciliationDelta {
  turnover?: bigint;
  payouts?: bigint;
  correctionPayoutDelta?: bigint;
  voidedStakes?: bigint;
  betsSettled?: bigint;
  betsRefunded?: bigint;
  betsResettled?: bigint;
  roundsResulted?: bigint;
  roundsVoided?: bigint;
  corrections?: bigint;
  dropped?: Fraction;
}

const DELTA_COLUMNS = [
  ['turnover', 'turnover'],
  ['payouts', 'payouts'],
  ['correctionPayoutDelta', 'correction_payout_delta'],
  ['voidedStakes', 'voided_stakes'],
  ['betsSettled', 'bets_settled'],
  ['betsRefunded', 'bets_refunded'],
  ['betsResettled', 'bets_resettled'],
  ['roundsResulted', 'rounds_resulted'],
  ['roundsVoided', 'rounds_voided'],
  ['corrections', 'corrections'],
] as const;

type Acc = { key: ReconciliationKey; sums: Record<string, bigint>; dropped: Fraction };

/** Caches that outlive one transaction (owned by the applier). Entries are immutable facts. */
export interface TxCaches {
  readonly rounds: Map<string, RoundContext>;
}

/** Max rows per multi-row INSERT (PostgreSQL allows 65,535 parameters per statement). */
const MAX_PARAMS = 60_000;

/** One transaction's view for the projections. Built by the applier; never shared between transactions. */
export class ProjectionTx {
  /** Per-transaction memo for lookups several events of a batch repeat (decisions, rounds). */
  readonly memo = new Map<string, unknown>();
  /** Round contexts learned in this transaction; merged into the shared cache only after COMMIT. */
  readonly newRounds = new Map<string, RoundContext>();
  private deferred: { kind: string; items: unknown[]; flush: (items: any[]) => Promise<void> }[] = [];
  private readonly states = new Map<string, { state: unknown; flush: (state: any) => Promise<void> }>();
  private readonly appended = new Map<string, Record<string, unknown>[]>();
  private readonly reconciliation = new Map<string, Acc>();
  private readonly hooks = new Map<string, () => Promise<void>>();
  /** Statements sent (for metrics). */
  statements = 0;

  constructor(
    private readonly client: SqlClient,
    /** Target schema (`read`, or a scratch schema). */
    readonly schema: string,
    /** Gaming-day rule (same for live and rebuild, or checksums differ). */
    readonly gamingDayConfig: GamingDayConfig,
    private readonly caches: TxCaches,
  ) {}

  /** `"schema"."table"`. */
  t(table: string): string {
    return qualified(this.schema, table);
  }

  /**
   * Runs a statement now (after writing pending deferred rows). The statement is prepared once per
   * connection (a named statement), so `sql` must have a fixed shape: variable parts go in `params`.
   * @returns the rows
   */
  async query<R = Record<string, any>>(sql: string, params: unknown[] = []): Promise<R[]> {
    await this.flushDeferred();
    this.statements++;
    return (await this.client.query({ name: statementName(sql), text: sql, values: params })).rows as R[];
  }

  /**
   * Queues a write that later statements may read; executed before the next {@link query} and at
   * {@link flush}. Consecutive items of the same `kind` are executed together by ONE call of
   * `flush(items)` (which must have the same effect as executing them one by one, in order).
   */
  defer<T>(kind: string, item: T, flush: (items: T[]) => Promise<void>): void {
    const last = this.deferred[this.deferred.length - 1];
    if (last && last.kind === kind) last.items.push(item);
    else this.deferred.push({ kind, items: [item], flush });
  }

  /** Queues a row for `table` (see {@link defer}); consecutive rows become one multi-row INSERT. */
  deferInsert(table: string, row: Record<string, unknown>): void {
    this.defer(`insert:${table}`, row, (rows) => this.insertRows(table, rows));
  }

  /**
   * A keyed accumulator written once at {@link flush}: `create()` on first use, then the same object
   * for the rest of the transaction. For commutative effects nothing reads during apply (counters).
   */
  commitState<S>(key: string, create: () => S, flush: (state: S) => Promise<void>): S {
    let entry = this.states.get(key);
    if (!entry) {
      entry = { state: create(), flush };
      this.states.set(key, entry);
    }
    return entry.state as S;
  }

  /** Queues a row for a table nothing reads during apply; written at {@link flush}. */
  append(table: string, row: Record<string, unknown>): void {
    push(this.appended, table, row);
  }

  /** Adds `delta` to the reconciliation row of `key` (written at {@link flush}). */
  addReconciliation(key: ReconciliationKey, delta: ReconciliationDelta): void {
    const k = JSON.stringify([key.tableId, key.shoeId, key.dealerId, key.gamingDay, key.currency]);
    let acc = this.reconciliation.get(k);
    if (!acc) {
      acc = { key, sums: {}, dropped: ZERO_FRACTION };
      this.reconciliation.set(k, acc);
    }
    for (const [field] of DELTA_COLUMNS) {
      const v = delta[field];
      if (v !== undefined) acc.sums[field] = (acc.sums[field] ?? 0n) + v;
    }
    if (delta.dropped) acc.dropped = addOverLcm(acc.dropped, delta.dropped);
  }

  /** Registers a hook run once at {@link flush}; a later registration under the same key replaces it. */
  beforeCommit(key: string, hook: () => Promise<void>): void {
    this.hooks.delete(key); // keep insertion order = order of the latest registration
    this.hooks.set(key, hook);
  }

  /**
   * The context of a round: this transaction's, the shared cache's, or read from `hand_outcomes`.
   * @throws ProjectionError `PROJECTION.INCONSISTENT_EVENT` when the round was never opened
   */
  async roundContext(roundId: string): Promise<RoundContext> {
    const hit = this.newRounds.get(roundId) ?? this.caches.rounds.get(roundId);
    if (hit) return hit;
    const rows = await this.query<{ shoe_id: string; table_id: string; dealer_id: string; gaming_day: string; currency: string; paytable_ref: string }>(
      `SELECT shoe_id, table_id, dealer_id, gaming_day::text AS gaming_day, currency, paytable_ref FROM ${this.t('hand_outcomes')} WHERE round_id = $1`,
      [roundId],
    );
    if (rows.length === 0) throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `round ${roundId} was never opened`, { roundId });
    const r = rows[0];
    const ctx: RoundContext = {
      roundId,
      shoeId: r.shoe_id,
      tableId: r.table_id,
      dealerId: r.dealer_id,
      gamingDay: r.gaming_day,
      currency: r.currency,
      paytableRef: r.paytable_ref,
    };
    this.newRounds.set(roundId, ctx);
    return ctx;
  }

  /** Records the context of a round opened in this transaction. */
  rememberRound(ctx: RoundContext): void {
    this.newRounds.set(ctx.roundId, ctx);
  }

  /** Runs the hooks and accumulators, then writes deferred rows, appended rows and reconciliation deltas. */
  async flush(): Promise<void> {
    for (const [key, { state, flush }] of this.states) {
      this.states.delete(key);
      await flush(state);
    }
    while (this.hooks.size > 0) {
      const [key, hook] = this.hooks.entries().next().value as [string, () => Promise<void>];
      this.hooks.delete(key);
      await hook();
    }
    await this.flushDeferred();
    for (const [table, rows] of this.appended) await this.insertRows(table, rows);
    this.appended.clear();
    await this.flushReconciliation();
  }

  private async flushDeferred(): Promise<void> {
    while (this.deferred.length > 0) {
      const batches = this.deferred;
      this.deferred = [];
      for (const b of batches) await b.flush(b.items);
    }
  }

  /** Runs a statement without flushing deferred writes: for {@link defer} flush functions only. */
  async queryNow<R = Record<string, any>>(sql: string, params: unknown[] = []): Promise<R[]> {
    this.statements++;
    return (await this.client.query(sql, params)).rows as R[];
  }

  private async insertRows(table: string, rows: Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]);
    const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
    for (let i = 0; i < rows.length; i += perStatement) {
      const chunk = rows.slice(i, i + perStatement);
      const params: unknown[] = [];
      const tuples = chunk.map((row) => `(${columns.map((c) => `$${params.push(row[c])}`).join(',')})`);
      this.statements++;
      await this.client.query(`INSERT INTO ${this.t(table)} (${columns.join(',')}) VALUES ${tuples.join(',')}`, params);
    }
  }

  private async flushReconciliation(): Promise<void> {
    if (this.reconciliation.size === 0) return;
    const accs = [...this.reconciliation.values()];
    this.reconciliation.clear();
    const cols = ['table_id', 'shoe_id', 'dealer_id', 'gaming_day', 'currency', ...DELTA_COLUMNS.map(([, c]) => c), 'dropped_num', 'dropped_den'];
    const params: unknown[] = [];
    const tuples = accs.map((a) => {
      const values: unknown[] = [
        a.key.tableId,
        a.key.shoeId,
        a.key.dealerId,
        a.key.gamingDay,
        a.key.currency,
        ...DELTA_COLUMNS.map(([f]) => (a.sums[f] ?? 0n).toString()),
        a.dropped.num.toString(),
        a.dropped.den.toString(),
      ];
      return `(${values.map((v, i) => `$${params.push(v)}::${i === 3 ? 'date' : i < 5 ? 'text' : 'numeric'}`).join(',')})`;
    });
    const lcmDen = 'lcm(x.dropped_den, EXCLUDED.dropped_den)';
    this.statements++;
    await this.client.query(
      `INSERT INTO ${this.t('reconciliation')} AS x (${cols.join(',')}) VALUES ${tuples.join(',')}
       ON CONFLICT (table_id, shoe_id, dealer_id, gaming_day, currency) DO UPDATE SET
         ${DELTA_COLUMNS.map(([, c]) => `${c} = x.${c} + EXCLUDED.${c}`).join(',\n         ')},
         dropped_num = x.dropped_num * div(${lcmDen}, x.dropped_den) + EXCLUDED.dropped_num * div(${lcmDen}, EXCLUDED.dropped_den),
         dropped_den = ${lcmDen}`,
      params,
    );
  }
}

function push(map: Map<string, Record<string, unknown>[]>, table: string, row: Record<string, unknown>): void {
  const rows = map.get(table);
  if (rows) rows.push(row);
  else map.set(table, [row]);
}
