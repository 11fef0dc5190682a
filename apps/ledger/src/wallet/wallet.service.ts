import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { createHash, randomUUID } from 'node:crypto';
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
import { expectedTransactions, type LedgerBet, type LedgerBetRevision, type LedgerTransaction } from '../kernel/as-of/wallet-transactions';
import type { WalletBetRow } from '@ledger/read-model';
import { FileTooLargeError, TooManyRowsError, WalletFileReader, type ColumnMap, type WalletFileFormat } from './wallet-file';
import { checkBudget, lockCallerBudget, type WalletBudgetLimits } from './wallet-budget';
import { scopeOfRows, WalletMatcher, type MatchScope, type MatchStatus, type MatchTotals, type WalletValues } from './wallet-match';
import { createWalletStage, indexWalletStage, moveStagedItems, collectNamedBets, namedBetPages, stagedRowPages, stageItems, stageRows } from './wallet-staging';

/** Most bets of a match's scope (its gaming days) loaded at once; more: 413 `WALLET.SCOPE_TOO_LARGE`. */
export const MAX_SCOPE_BETS = 500_000;
/** Items stored per call of `ledger_add_wallet_items`. */
const INSERT_CHUNK = 2000;
/** Staged rows matched at once (and so items held at once, at most). */
export const MATCH_PAGE = 1000;
/** Named bet ids read from the staged rows at once. */
const NAMED_PAGE = 5000;

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
  /** The wallet's value of each field of `differences` but the amount; `{}` for an item stored before they were kept. */
  readonly walletValues: WalletValues;
}

const RUN_COLUMNS = `run_id, created_at, actor_id, actor_role, format, file_sha256, file_bytes::text AS file_bytes, file_rows, column_map,
  from_day::text AS from_day, to_day::text AS to_day, period_from, period_to, scope_source, totals, summary, zero_not_in_file, item_count, pruned_at`;
/** The runs with their prune, if any (the columns of {@link RUN_COLUMNS} are unambiguous over both). */
const RUN_FROM = `wallet_match_runs LEFT JOIN wallet_match_prunes USING (run_id)`;
const ITEM_COLUMNS = `seq, status, transaction_id, type, bet_id, round_id, account_id, currency, gaming_day::text AS gaming_day,
  ledger_amount::text AS ledger_amount, wallet_amount::text AS wallet_amount, wallet_line, wallet_time, differences, wallet_values`;

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
  /** Told how many rows or items each step holds (tests); null in service. */
  probe: WalletUploadProbe | null = null;

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
   * Reads, matches and stores one wallet file, in one transaction (all or nothing), with memory flat
   * in the file's size (docs/reports.md §4.5): the checked rows are staged chunk by chunk as the file
   * is read ({@link stageFile}), matched page by page ({@link matchStaged}, duplicates found in SQL)
   * and their items stored from table to table ({@link moveStagedItems}). The caller's budget is
   * checked before the file is read (one more run, one item) and again, under the caller's lock, with
   * the run's item count before its items are stored: a refusal at any step stores nothing.
   * @throws ApiError 400 `WALLET.FILE_INVALID` (bad rows, with `details.problems` `{line, problem}[]`; nothing stored),
   *   413 `REQUEST.TOO_LARGE` (over `WALLET_FILE_MAX_BYTES`), 413 `WALLET.TOO_MANY_ROWS` (over `WALLET_FILE_MAX_ROWS`),
   *   429 `WALLET.BUDGET_EXHAUSTED`, 400 `WALLET.SCOPE_UNKNOWN`, 413 `WALLET.SCOPE_TOO_LARGE`, 400 `VALIDATION.FAILED` (fromDay after toDay)
   */
  async upload(body: Readable, u: WalletUpload): Promise<WalletRunReport> {
    await checkBudget(this.ds, { actorId: u.actor.id, limits: this.budget, adding: { runs: 1, items: 1 } });
    const runId = randomUUID();
    await this.ds.transaction(async (tx) => {
      await createWalletStage(tx);
      const file = await this.stageFile(tx, body, u);
      const scope = this.scopeOf(u, file.scope);
      const ledger = await this.uploadLedger(tx, scope);
      const result = await this.matchStaged(tx, ledger, scope);
      await lockCallerBudget(tx, u.actor.id);
      await checkBudget(tx, { actorId: u.actor.id, limits: this.budget, adding: { runs: 1, items: result.itemCount } });
      // the items first, then the run, which digests them and seals the run (its items' foreign key is checked at commit)
      await moveStagedItems(tx, runId, INSERT_CHUNK);
      await this.recordRun(tx, { runId, u, file, scope, result });
    });
    return this.run(runId);
  }

  /**
   * Reads an uploaded wallet file chunk by chunk ({@link WalletFileReader}, backpressure), staging its
   * checked rows (none more once a row is bad), hashing it and widening the gaming days of its rows.
   * @throws ApiError 413 `REQUEST.TOO_LARGE`, 413 `WALLET.TOO_MANY_ROWS`, 400 `WALLET.FILE_INVALID` (see {@link upload})
   */
  private async stageFile(tx: Queryable, body: Readable, u: WalletUpload): Promise<StagedFile> {
    const hash = createHash('sha256');
    const hashing = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    body.on('error', (e) => hashing.destroy(e));
    const reader = new WalletFileReader(body.pipe(hashing), { format: u.format, map: u.map, limitBytes: this.maxBytes, limitRows: this.maxRows });
    let rows = 0;
    let scope: StagedFile['scope'] = null;
    try {
      for await (const chunk of reader.chunks()) {
        this.probe?.held('rows', chunk.length);
        rows += chunk.length;
        scope = scopeOfRows(chunk, this.dayOf, scope);
        if (!reader.problems.length) await stageRows(tx, chunk);
      }
    } catch (e) {
      if (e instanceof FileTooLargeError) throw new ApiError('REQUEST.TOO_LARGE', `the wallet file is over ${e.limitBytes} bytes (WALLET_FILE_MAX_BYTES)`, { limitBytes: e.limitBytes });
      if (e instanceof TooManyRowsError) throw ApiError.of('WALLET.TOO_MANY_ROWS', { limit: e.limitRows });
      throw e;
    }
    if (reader.problems.length) {
      const count = reader.problems.length + reader.moreProblems;
      const { line, problem } = reader.problems[0];
      throw new ApiError('WALLET.FILE_INVALID', `the wallet file has ${count} bad row(s) (nothing stored); first: line ${line}: ${problem}`, { count, line, problem, problems: reader.problems });
    }
    await indexWalletStage(tx);
    return { bytes: reader.bytes, rows, sha256: hash.digest('hex'), scope };
  }

  /**
   * Matches the staged rows page by page ({@link WalletMatcher}; file order, duplicates flagged in
   * SQL) and stages their items, then the MISSING_IN_WALLET ones; at most {@link MATCH_PAGE} rows or
   * items are held at a time. @returns the summary, totals, `zeroNotInFile` and item count
   */
  private async matchStaged(tx: Queryable, ledger: readonly LedgerTransaction[], scope: MatchScope): Promise<MatchTotals> {
    const m = new WalletMatcher(ledger, scope, this.dayOf);
    for await (const page of stagedRowPages(tx, MATCH_PAGE)) {
      this.probe?.held('rows', page.length);
      const items = m.add(page);
      this.probe?.held('items', items.length);
      await stageItems(tx, items);
    }
    for (const items of m.missing(MATCH_PAGE)) {
      this.probe?.held('items', items.length);
      await stageItems(tx, items);
    }
    return m.result();
  }

  /**
   * Records a run's row of `wallet_match_runs` (who, the file, the scope, the totals and the summary)
   * through `ledger_record_wallet_run` (migration 1799300000000), after its items: the database digests
   * the items into the row, stamps its seq and time (`created_at`) and chains its hash.
   */
  private async recordRun(tx: Queryable, o: RunToRecord): Promise<void> {
    const { runId, u, file, scope, result } = o;
    const scopeSource: 'file' | 'explicit' | 'period' = scope.kind === 'period' ? 'period' : u.fromDay || u.toDay ? 'explicit' : 'file';
    const run = {
      runId,
      actorId: u.actor.id,
      actorRole: u.actor.role,
      format: u.format,
      fileSha256: file.sha256,
      fileBytes: String(file.bytes),
      fileRows: file.rows,
      columnMap: u.map,
      fromDay: scope.kind === 'days' ? scope.fromDay : null,
      toDay: scope.kind === 'days' ? scope.toDay : null,
      periodFrom: scope.kind === 'period' ? scope.from : null,
      periodTo: scope.kind === 'period' ? scope.to : null,
      scopeSource,
      totals: result.totals,
      summary: result.summary.map((s) => ({ ...s, ledgerAmount: s.ledgerAmount.toString(), walletAmount: s.walletAmount.toString() })),
      zeroNotInFile: result.zeroNotInFile,
      itemCount: result.itemCount,
      correlationId: u.correlationId ?? null,
    };
    await exec(tx, `SELECT ledger_record_wallet_run($1::jsonb)`, [JSON.stringify(run)]);
  }

  /**
   * The scope of an upload: the time period `from..to` when given (both), else the gaming days
   * `fromDay..toDay`, each defaulting to the first / last gaming day of the rows' times (`fromFile`, {@link scopeOfRows}).
   * @throws ApiError 400 `VALIDATION.FAILED` (only one of from/to, both a period and days, an empty or reversed scope), 400 `WALLET.SCOPE_UNKNOWN`
   */
  scopeOf(u: Pick<WalletUpload, 'fromDay' | 'toDay' | 'from' | 'to'>, fromFile: StagedFile['scope']): MatchScope {
    const bad = (problem: string) => new ApiError('VALIDATION.FAILED', `the request is invalid: ${problem}`, { problems: [problem] });
    if (u.from || u.to) {
      if (!u.from || !u.to) throw bad('a time period needs both from and to');
      if (u.fromDay || u.toDay) throw bad('give a time period (from, to) or gaming days (fromDay, toDay), not both');
      const from = new Date(u.from).toISOString();
      const to = new Date(u.to).toISOString();
      if (!(from < to)) throw bad('from must be before to');
      return { kind: 'period', from, to };
    }
    const fromDay = u.fromDay ?? fromFile?.fromDay ?? null;
    const toDay = u.toDay ?? fromFile?.toDay ?? null;
    if (fromDay === null || toDay === null) throw ApiError.of('WALLET.SCOPE_UNKNOWN', {});
    if (fromDay > toDay) throw bad(`fromDay ${fromDay} is after toDay ${toDay}`);
    return { kind: 'days', fromDay, toDay };
  }

  /**
   * The ledger's wallet transactions of the bets of `scope` (gaming days: the bets of those days;
   * a period: the bets placed, settled, resettled or refunded in it) and of the bets the staged rows
   * name (whatever their day; read in pages of {@link NAMED_PAGE} ids), from the read model on the
   * upload's transaction `tx` ({@link expectedTransactions}). Held whole: bounded by {@link MAX_SCOPE_BETS}.
   * @throws ApiError 413 `WALLET.SCOPE_TOO_LARGE` past {@link MAX_SCOPE_BETS} bets (the scope's and the named ones)
   */
  async uploadLedger(tx: Queryable, scope: MatchScope): Promise<LedgerTransaction[]> {
    const settlements = this.readModel.on(tx).settlements;
    const n = await settlements.walletScopeCount(scope);
    if (n + (await collectNamedBets(tx)) > MAX_SCOPE_BETS) throw ApiError.of('WALLET.SCOPE_TOO_LARGE', { limit: MAX_SCOPE_BETS });
    const out: LedgerTransaction[] = [];
    addTransactionsOfBets(await settlements.walletBets(scope, []), out);
    for await (const page of namedBetPages(tx, NAMED_PAGE)) addTransactionsOfBets(await settlements.walletBetsOutside(scope, page), out);
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

/** What {@link WalletService} records of a run: its id, the upload, the file staged, the scope and the match's totals. */
interface RunToRecord {
  readonly runId: string;
  readonly u: WalletUpload;
  readonly file: StagedFile;
  readonly scope: MatchScope;
  readonly result: MatchTotals;
}

/** What {@link WalletService} staged of a file: its size in bytes, its rows, its SHA-256 (hex), the gaming days of its rows (null without rows). */
interface StagedFile {
  readonly bytes: number;
  readonly rows: number;
  readonly sha256: string;
  readonly scope: (MatchScope & { kind: 'days' }) | null;
}

/** Sees how many rows or items the upload holds at each step (tests: the bound of docs/reports.md §4.5). */
export interface WalletUploadProbe {
  /** `n` rows (of the file) or items (of the match) are held at once. */
  held(kind: 'rows' | 'items', n: number): void;
}

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
  wallet_values: WalletValues | null;
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
    walletValues: r.wallet_values ?? {},
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

/**
 * Appends to `out` the wallet transactions ({@link expectedTransactions}) of the bets of `rows` (a
 * bet's rows together, each with one entry of its history or none, as `walletBets` gives them).
 */
function addTransactionsOfBets(rows: readonly WalletBetRow[], out: LedgerTransaction[]): void {
  let bet: { base: Omit<LedgerBet, 'history'>; history: LedgerBetRevision[] } | null = null;
  const flush = () => {
    if (bet) for (const t of expectedTransactions({ ...bet.base, history: bet.history })) out.push(t);
  };
  for (const r of rows) {
    if (!bet || bet.base.betId !== r.bet_id) {
      flush();
      bet = {
        base: { betId: r.bet_id, roundId: r.round_id, tableId: r.table_id, accountId: r.account_id, currency: r.currency, gamingDay: r.gaming_day, stake: BigInt(r.stake), placedAt: iso(r.placed_at) },
        history: [],
      };
    }
    if (r.seq !== null && r.seq !== undefined) {
      bet.history.push({ kind: r.kind as LedgerBetRevision['kind'], revision: Number(r.revision), payout: r.payout === null ? null : BigInt(r.payout), occurredAt: iso(r.occurred_at), eventId: r.event_id as string });
    }
  }
  flush();
}
