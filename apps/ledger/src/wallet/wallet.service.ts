import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { gamingDay, type GamingDayConfig } from '@ledger/projections';
import type { ReadModel } from '@ledger/read-model';
import { ApiError } from '../kernel/api-error';
import { exec, first, rows as sqlRows, type Queryable } from '../kernel/sql';
import { DATA_SOURCE, READ_MODEL } from '../kernel/tokens';
import { decodeCursor, encodeCursor, type Page } from '../kernel/pagination';
import { reportHeader, type ReportHeader } from '../kernel/report-header';
import { betIdOfTransactionId, expectedTransactions, type LedgerBet, type LedgerBetRevision, type LedgerTransaction } from '../kernel/as-of/wallet-transactions';
import { FileTooLargeError, readWalletFile, TooManyRowsError, type ColumnMap, type WalletFile, type WalletFileFormat } from './wallet-file';
import { checkBudget, lockCallerBudget, type WalletBudgetLimits } from './wallet-budget';
import { matchWallet, scopeOfRows, type MatchItem, type MatchResult, type MatchScope, type MatchStatus } from './wallet-match';

/** Most bets of a match's scope (its gaming days) loaded at once; more: 413 `WALLET.SCOPE_TOO_LARGE`. */
export const MAX_SCOPE_BETS = 500_000;
/** Items written per INSERT. */
const INSERT_CHUNK = 2000;

/** What the upload names besides the file. */
export interface WalletUpload {
  readonly format: WalletFileFormat;
  readonly map: ColumnMap;
  /** The mapping as given (only the overridden fields). */
  readonly mapGiven: Readonly<Record<string, string>>;
  readonly fromDay?: string | null;
  readonly toDay?: string | null;
  /** A time period instead of gaming days (ISO-8601, from inclusive, to exclusive; both or neither). */
  readonly from?: string | null;
  readonly to?: string | null;
  readonly actor: { readonly id: string; readonly role: string };
  readonly correlationId?: string | null;
}

/** A stored run as the API answers it (amounts as decimal strings of minor units). */
export interface WalletRunView {
  readonly runId: string;
  readonly createdAt: string;
  readonly actorId: string;
  readonly actorRole: string;
  readonly file: { readonly format: string; readonly sha256: string; readonly bytes: string; readonly rows: number };
  readonly columnMap: Record<string, string>;
  /** Gaming days (`fromDay`, `toDay`; `from`/`to` null), or a time period (`from`, `to`; the days null). */
  readonly scope: { readonly fromDay: string | null; readonly toDay: string | null; readonly from: string | null; readonly to: string | null; readonly source: 'file' | 'explicit' | 'period' };
  readonly totals: Record<MatchStatus, number>;
  readonly summary: { currency: string; gamingDay: string; counts: Record<MatchStatus, number>; ledgerAmount: string; walletAmount: string }[];
  readonly zeroNotInFile: number;
  readonly itemCount: number;
  /** When the items were deleted after the retention (`WALLET_RETENTION_DAYS`); null while they are kept. */
  readonly itemsPrunedAt: string | null;
}

/** A run with its report header (`GET /reconciliation/wallet-files/{runId}`). */
export type WalletRunReport = WalletRunView & { readonly header: ReportHeader };

/** One stored item (amounts as decimal strings). */
export interface WalletItemView {
  readonly seq: number;
  readonly status: MatchStatus;
  readonly transactionId: string;
  readonly type: string;
  readonly betId: string | null;
  readonly roundId: string | null;
  readonly accountId: string | null;
  readonly currency: string;
  readonly gamingDay: string;
  readonly ledgerAmount: string | null;
  readonly walletAmount: string | null;
  readonly walletLine: number | null;
  readonly walletTime: string | null;
  readonly differences: string[];
}

const RUN_COLUMNS = `run_id, created_at, actor_id, actor_role, format, file_sha256, file_bytes::text AS file_bytes, file_rows, column_map,
  from_day::text AS from_day, to_day::text AS to_day, period_from, period_to, scope_source, totals, summary, zero_not_in_file, item_count, pruned_at`;
/** The runs with their prune, if any (the columns of {@link RUN_COLUMNS} are unambiguous over both). */
const RUN_FROM = `wallet_match_runs LEFT JOIN wallet_match_prunes USING (run_id)`;
const ITEM_COLUMNS = `seq, status, transaction_id, type, bet_id, round_id, account_id, currency, gaming_day::text AS gaming_day,
  ledger_amount::text AS ledger_amount, wallet_amount::text AS wallet_amount, wallet_line, wallet_time, differences`;

/**
 * Wallet matching (docs/reports.md §4): reads an uploaded wallet file, computes the ledger's
 * transactions of its scope from the settlements read model (`readModel.settlements.walletBets`,
 * which the projector builds from the events), matches them and stores the run and its items in
 * the API's own tables (`wallet_match_runs`, `wallet_match_items`) in one transaction (all or
 * nothing). Runs are read back with their report header. Bounded (docs/reports.md §4.5): at most
 * `WALLET_FILE_MAX_ROWS` rows an upload, the caller's budget per rolling 24 hours, the items kept
 * `WALLET_RETENTION_DAYS` (`WalletRetentionSweeper`).
 */
@Injectable()
export class WalletService {
  private readonly day: GamingDayConfig;
  readonly maxBytes: number;
  readonly maxRows: number;
  readonly budget: WalletBudgetLimits;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.day = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
    this.maxBytes = config.get('WALLET_FILE_MAX_BYTES', { infer: true });
    this.maxRows = config.get('WALLET_FILE_MAX_ROWS', { infer: true });
    this.budget = { runs: config.get('WALLET_BUDGET_RUNS_PER_DAY', { infer: true }), items: config.get('WALLET_BUDGET_ITEMS_PER_DAY', { infer: true }) };
  }

  /** The gaming day of a wallet time under the ledger's gaming-day settings. */
  dayOf = (time: string): string => gamingDay(time, this.day);

  /**
   * Reads, matches and stores one wallet file. The caller's budget is checked before the file is
   * read (one more run, one item) and again, under the caller's lock, in the transaction that stores
   * the run (its items): a refusal at any step stores nothing.
   * @throws ApiError 400 `WALLET.FILE_INVALID` (bad rows, with `details.problems` `{line, problem}[]`; nothing stored),
   *   413 `REQUEST.TOO_LARGE` (over `WALLET_FILE_MAX_BYTES`), 413 `WALLET.TOO_MANY_ROWS` (over `WALLET_FILE_MAX_ROWS`),
   *   429 `WALLET.BUDGET_EXHAUSTED`, 400 `WALLET.SCOPE_UNKNOWN`, 413 `WALLET.SCOPE_TOO_LARGE`, 400 `VALIDATION.FAILED` (fromDay after toDay)
   */
  async upload(body: Readable, u: WalletUpload): Promise<WalletRunReport> {
    await checkBudget(this.ds, { actorId: u.actor.id, limits: this.budget, adding: { runs: 1, items: 1 } });
    const { file, hash } = await this.readFile(body, u);
    const scope = this.scopeOf(u, file.rows);
    const named = new Set<string>();
    for (const r of file.rows) {
      if (r.betId) named.add(r.betId);
      const b = betIdOfTransactionId(r.transactionId);
      if (b) named.add(b);
    }
    const ledger = await this.ledgerTransactions(scope, [...named]);
    const result = matchWallet(file.rows, ledger, scope, this.dayOf);
    const runId = randomUUID();
    await this.ds.transaction(async (tx) => {
      await lockCallerBudget(tx, u.actor.id);
      await checkBudget(tx, { actorId: u.actor.id, limits: this.budget, adding: { runs: 1, items: result.items.length } });
      await this.insertRun(tx, runId, u, { ...file, sha256: hash.digest('hex') }, scope, result);
      await this.insertItems(tx, runId, result.items);
    });
    return this.run(runId);
  }

  /**
   * Reads an uploaded wallet file, hashing it as it goes by (the hash is digested when the run is stored).
   * @throws ApiError 413 `REQUEST.TOO_LARGE`, 413 `WALLET.TOO_MANY_ROWS`, 400 `WALLET.FILE_INVALID` (see {@link upload})
   */
  private async readFile(body: Readable, u: WalletUpload): Promise<{ file: WalletFile; hash: Hash }> {
    const hash = createHash('sha256');
    const hashing = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    body.on('error', (e) => hashing.destroy(e));
    let file;
    try {
      file = await readWalletFile(body.pipe(hashing), { format: u.format, map: u.map, limitBytes: this.maxBytes, limitRows: this.maxRows });
    } catch (e) {
      if (e instanceof FileTooLargeError) throw new ApiError('REQUEST.TOO_LARGE', `the wallet file is over ${e.limitBytes} bytes (WALLET_FILE_MAX_BYTES)`, { limitBytes: e.limitBytes });
      if (e instanceof TooManyRowsError) throw ApiError.of('WALLET.TOO_MANY_ROWS', { limit: e.limitRows });
      throw e;
    }
    if (file.problems.length) {
      const count = file.problems.length + file.moreProblems;
      throw new ApiError('WALLET.FILE_INVALID', `the wallet file has ${count} bad row(s) (nothing stored); first: line ${file.problems[0].line}: ${file.problems[0].problem}`, {
        count,
        line: file.problems[0].line,
        problem: file.problems[0].problem,
        problems: file.problems,
      });
    }
    return { file, hash };
  }

  /** Stores a run's row of `wallet_match_runs`: who, the file, the scope, the totals and the summary. */
  private async insertRun(tx: Queryable, runId: string, u: WalletUpload, file: WalletFile & { readonly sha256: string }, scope: MatchScope, result: MatchResult): Promise<void> {
    const source: 'file' | 'explicit' | 'period' = scope.kind === 'period' ? 'period' : u.fromDay || u.toDay ? 'explicit' : 'file';
    const days = scope.kind === 'days' ? [scope.fromDay, scope.toDay] : [null, null];
    const period = scope.kind === 'period' ? [scope.from, scope.to] : [null, null];
    await exec(
      tx,
      `INSERT INTO wallet_match_runs (run_id, actor_id, actor_role, format, file_sha256, file_bytes, file_rows, column_map, from_day, to_day, period_from, period_to, scope_source, totals, summary, zero_not_in_file, item_count, correlation_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [
        runId,
        u.actor.id,
        u.actor.role,
        u.format,
        file.sha256,
        file.bytes,
        file.rows.length,
        JSON.stringify(u.map),
        days[0],
        days[1],
        period[0],
        period[1],
        source,
        JSON.stringify(result.totals),
        JSON.stringify(result.summary.map((s) => ({ ...s, ledgerAmount: s.ledgerAmount.toString(), walletAmount: s.walletAmount.toString() }))),
        result.zeroNotInFile,
        result.items.length,
        u.correlationId ?? null,
      ],
    );
  }

  /** Stores a run's items in `wallet_match_items`, {@link INSERT_CHUNK} per statement, numbered from 1 in order. */
  private async insertItems(tx: Queryable, runId: string, items: readonly MatchItem[]): Promise<void> {
    for (let i = 0; i < items.length; i += INSERT_CHUNK) {
      const chunk = items.slice(i, i + INSERT_CHUNK).map((it, k) => ({
        seq: i + k + 1,
        status: it.status,
        transaction_id: it.transactionId,
        type: it.type,
        bet_id: it.betId,
        round_id: it.roundId,
        account_id: it.accountId,
        currency: it.currency,
        gaming_day: it.gamingDay,
        ledger_amount: it.ledgerAmount?.toString() ?? null,
        wallet_amount: it.walletAmount?.toString() ?? null,
        wallet_line: it.walletLine,
        wallet_time: it.walletTime,
        differences: it.differences.join(','),
      }));
      await exec(
        tx,
        `INSERT INTO wallet_match_items (run_id, seq, status, transaction_id, type, bet_id, round_id, account_id, currency, gaming_day, ledger_amount, wallet_amount, wallet_line, wallet_time, differences)
         SELECT $1, x.seq, x.status, x.transaction_id, x.type, x.bet_id, x.round_id, x.account_id, x.currency, x.gaming_day, x.ledger_amount, x.wallet_amount, x.wallet_line, x.wallet_time,
                CASE WHEN x.differences = '' THEN '{}'::text[] ELSE string_to_array(x.differences, ',') END
           FROM json_to_recordset($2::json) AS x(seq integer, status text, transaction_id text, type text, bet_id text, round_id text, account_id text, currency text,
                gaming_day date, ledger_amount bigint, wallet_amount bigint, wallet_line integer, wallet_time timestamptz, differences text)`,
        [runId, JSON.stringify(chunk)],
      );
    }
  }

  /**
   * The scope of an upload: the time period `from..to` when given (both), else the gaming days
   * `fromDay..toDay`, each defaulting to the first / last gaming day of the rows' times.
   * @throws ApiError 400 `VALIDATION.FAILED` (only one of from/to, both a period and days, an empty or reversed scope), 400 `WALLET.SCOPE_UNKNOWN`
   */
  scopeOf(u: Pick<WalletUpload, 'fromDay' | 'toDay' | 'from' | 'to'>, rows: Parameters<typeof scopeOfRows>[0]): MatchScope {
    const bad = (problem: string) => new ApiError('VALIDATION.FAILED', `the request is invalid: ${problem}`, { problems: [problem] });
    if (u.from || u.to) {
      if (!u.from || !u.to) throw bad('a time period needs both from and to');
      if (u.fromDay || u.toDay) throw bad('give a time period (from, to) or gaming days (fromDay, toDay), not both');
      const from = new Date(u.from).toISOString();
      const to = new Date(u.to).toISOString();
      if (!(from < to)) throw bad('from must be before to');
      return { kind: 'period', from, to };
    }
    const fromFile = scopeOfRows(rows, this.dayOf);
    const fromDay = u.fromDay ?? fromFile?.fromDay ?? null;
    const toDay = u.toDay ?? fromFile?.toDay ?? null;
    if (fromDay === null || toDay === null) throw ApiError.of('WALLET.SCOPE_UNKNOWN', {});
    if (fromDay > toDay) throw bad(`fromDay ${fromDay} is after toDay ${toDay}`);
    return { kind: 'days', fromDay, toDay };
  }

  /**
   * The ledger's wallet transactions of the bets of `scope` (gaming days: the bets of those days;
   * a period: the bets placed, settled, resettled or refunded in it) and of the bets `betIds`
   * (whatever their day), from the read model ({@link expectedTransactions}).
   * @throws ApiError 413 `WALLET.SCOPE_TOO_LARGE` past {@link MAX_SCOPE_BETS} bets
   */
  async ledgerTransactions(scope: MatchScope, betIds: readonly string[]): Promise<LedgerTransaction[]> {
    const n = await this.readModel.settlements.walletScopeCount(scope);
    if (n + betIds.length > MAX_SCOPE_BETS) throw ApiError.of('WALLET.SCOPE_TOO_LARGE', { limit: MAX_SCOPE_BETS });
    const rows = await this.readModel.settlements.walletBets(scope, betIds);
    const out: LedgerTransaction[] = [];
    let bet: { base: Omit<LedgerBet, 'history'>; history: LedgerBetRevision[] } | null = null;
    const flush = () => {
      if (bet) out.push(...expectedTransactions({ ...bet.base, history: bet.history }));
    };
    for (const r of rows) {
      if (!bet || bet.base.betId !== r.bet_id) {
        flush();
        bet = {
          base: {
            betId: r.bet_id,
            roundId: r.round_id,
            tableId: r.table_id,
            accountId: r.account_id,
            currency: r.currency,
            gamingDay: r.gaming_day,
            stake: BigInt(r.stake),
            placedAt: iso(r.placed_at),
          },
          history: [],
        };
      }
      if (r.seq !== null && r.seq !== undefined) {
        bet.history.push({ kind: r.kind as LedgerBetRevision['kind'], revision: Number(r.revision), payout: r.payout === null ? null : BigInt(r.payout), occurredAt: iso(r.occurred_at), eventId: r.event_id as string });
      }
    }
    flush();
    return out;
  }

  /** The runs, newest first; keyset pagination (the cursor names the last run of the page). */
  async runs(limit: number, cursor?: string): Promise<Page<WalletRunView>> {
    const after = decodeRunCursor(cursor);
    const rows = await sqlRows<RunRow>(
      this.ds,
      `SELECT ${RUN_COLUMNS} FROM ${RUN_FROM}
        WHERE ($1::uuid IS NULL OR (created_at, run_id) < (SELECT c.created_at, c.run_id FROM wallet_match_runs c WHERE c.run_id = $1::uuid))
        ORDER BY created_at DESC, run_id DESC LIMIT $2`,
      [after, limit + 1],
    );
    const more = rows.length > limit;
    const items = rows.slice(0, limit).map(runView);
    const last = items[items.length - 1];
    return { items, nextCursor: more && last ? encodeCursor(last.runId) : null };
  }

  /** One run with its report header. @throws ApiError 404 `WALLET.RUN_NOT_FOUND` */
  async run(runId: string): Promise<WalletRunReport> {
    const row = isUuid(runId) ? await first<RunRow>(this.ds, `SELECT ${RUN_COLUMNS} FROM ${RUN_FROM} WHERE run_id = $1`, [runId]) : undefined;
    if (!row) throw ApiError.of('WALLET.RUN_NOT_FOUND', { runId });
    const v = runView(row);
    const filters: Record<string, unknown> = { format: v.file.format, fileSha256: v.file.sha256, scope: v.scope.source, runId: v.runId };
    for (const [field, column] of Object.entries(v.columnMap)) if (field !== column) filters[`map.${field}`] = column;
    const period = v.scope.source === 'period' ? { from: v.scope.from, to: v.scope.to } : { from: v.scope.fromDay, to: v.scope.toDay };
    const header = reportHeader('Wallet match', 'wallet-match', 1, period, filters, v.itemCount === 0);
    return { header, ...v };
  }

  /** One run whose items are kept. @throws ApiError 404 `WALLET.RUN_NOT_FOUND`, 404 `WALLET.ITEMS_PRUNED` (deleted after the retention) */
  async runWithItems(runId: string): Promise<WalletRunReport> {
    const run = await this.run(runId);
    if (run.itemsPrunedAt !== null) throw ApiError.of('WALLET.ITEMS_PRUNED', { runId: run.runId, prunedAt: run.itemsPrunedAt });
    return run;
  }

  /**
   * Items of a run by `seq`, optionally of one status; keyset pagination.
   * @throws ApiError 404 `WALLET.RUN_NOT_FOUND`, 404 `WALLET.ITEMS_PRUNED`
   */
  async items(runId: string, status: MatchStatus | null, limit: number, cursor?: string): Promise<Page<WalletItemView>> {
    await this.runWithItems(runId);
    const after = decodeSeqCursor(cursor);
    const rows = await sqlRows<ItemRow>(this.ds, `SELECT ${ITEM_COLUMNS} FROM wallet_match_items WHERE run_id = $1 AND ($2::text IS NULL OR status = $2) AND seq > $3 ORDER BY seq LIMIT $4`, [runId, status, after, limit + 1]);
    const more = rows.length > limit;
    const items = rows.slice(0, limit).map(itemView);
    return { items, nextCursor: more ? encodeCursor(items[items.length - 1].seq) : null };
  }

  /** Every item of a run (optionally of one status) in `seq` order, read in pages of 5,000. @throws ApiError 404 `WALLET.RUN_NOT_FOUND`, 404 `WALLET.ITEMS_PRUNED` */
  async *allItems(runId: string, status: MatchStatus | null): AsyncGenerator<WalletItemView> {
    await this.runWithItems(runId);
    let after = 0;
    for (;;) {
      const rows = await sqlRows<ItemRow>(this.ds, `SELECT ${ITEM_COLUMNS} FROM wallet_match_items WHERE run_id = $1 AND ($2::text IS NULL OR status = $2) AND seq > $3 ORDER BY seq LIMIT 5000`, [runId, status, after]);
      for (const r of rows) yield itemView(r);
      if (rows.length < 5000) return;
      after = rows[rows.length - 1].seq;
    }
  }
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
const isUuid = (v: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);

/** A row of `wallet_match_runs` as {@link RUN_COLUMNS} selects it (the file size a decimal string; jsonb parsed). */
type RunRow = {
  run_id: string;
  created_at: Date;
  actor_id: string;
  actor_role: string;
  format: string;
  file_sha256: string;
  file_bytes: string;
  file_rows: number;
  column_map: Record<string, string>;
  from_day: string | null;
  to_day: string | null;
  period_from: Date | null;
  period_to: Date | null;
  scope_source: 'file' | 'explicit' | 'period';
  totals: Record<MatchStatus, number>;
  summary: WalletRunView['summary'];
  zero_not_in_file: number;
  item_count: number;
  pruned_at: Date | null;
};

/** A row of `wallet_match_items` as {@link ITEM_COLUMNS} selects it (amounts decimal strings). */
type ItemRow = {
  seq: number;
  status: MatchStatus;
  transaction_id: string;
  type: string;
  bet_id: string | null;
  round_id: string | null;
  account_id: string | null;
  currency: string;
  gaming_day: string;
  ledger_amount: string | null;
  wallet_amount: string | null;
  wallet_line: number | null;
  wallet_time: Date | null;
  differences: string[] | null;
};

function runView(r: RunRow): WalletRunView {
  return {
    runId: r.run_id,
    createdAt: iso(r.created_at),
    actorId: r.actor_id,
    actorRole: r.actor_role,
    file: { format: r.format, sha256: r.file_sha256, bytes: r.file_bytes, rows: r.file_rows },
    columnMap: r.column_map,
    scope: { fromDay: r.from_day, toDay: r.to_day, from: r.period_from === null ? null : iso(r.period_from), to: r.period_to === null ? null : iso(r.period_to), source: r.scope_source },
    totals: r.totals,
    summary: r.summary,
    zeroNotInFile: r.zero_not_in_file,
    itemCount: r.item_count,
    itemsPrunedAt: r.pruned_at === null ? null : iso(r.pruned_at),
  };
}

function itemView(r: ItemRow): WalletItemView {
  return {
    seq: r.seq,
    status: r.status,
    transactionId: r.transaction_id,
    type: r.type,
    betId: r.bet_id,
    roundId: r.round_id,
    accountId: r.account_id,
    currency: r.currency,
    gamingDay: r.gaming_day,
    ledgerAmount: r.ledger_amount,
    walletAmount: r.wallet_amount,
    walletLine: r.wallet_line,
    walletTime: r.wallet_time === null ? null : iso(r.wallet_time),
    differences: r.differences ?? [],
  };
}

/** @throws ApiError 400 `VALIDATION.FAILED` for a cursor this API did not make */
function decodeRunCursor(raw: string | undefined): string | null {
  const key = decodeCursor<unknown>(raw);
  if (key === null) return null;
  if (typeof key !== 'string' || !isUuid(key)) throw new ApiError('VALIDATION.FAILED', 'cursor is not one this API returned');
  return key;
}

/** @throws ApiError 400 `VALIDATION.FAILED` for a cursor this API did not make */
function decodeSeqCursor(raw: string | undefined): number {
  const key = decodeCursor<unknown>(raw);
  if (key === null) return 0;
  if (typeof key !== 'number' || !Number.isSafeInteger(key) || key < 0 || key > 2_147_483_647) throw new ApiError('VALIDATION.FAILED', 'cursor is not one this API returned');
  return key;
}
