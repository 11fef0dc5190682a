import { exec, first, rows as sqlRows, type Queryable } from '../kernel/sql';
import { betIdOfTransactionId, type WalletTxnType } from '../kernel/as-of/wallet-transactions';
import type { WalletRow } from './wallet-file';
import { utf16Key, type FlaggedWalletRow, type MatchItem } from './wallet-match';

/**
 * The staging of a wallet upload (docs/reports.md §4.5): temporary tables of the upload's one
 * transaction (`ON COMMIT DROP`: gone at its end, committed or rolled back; the API's login needs
 * the TEMPORARY right on the database, migration 1799400000000). The checked rows go in chunk by
 * chunk as the file is read; the bet ids they name are gathered once (each once) and read back in
 * pages; the rows come back in pages by line with their duplicate flag (computed here, over the
 * whole file); the items go in as they are matched, with byte keys of their order;
 * {@link moveStagedItems} numbers them in that order and hands them to `ledger_add_wallet_items` in
 * chunks, without passing through the API. The API holds at most a page of rows, ids or items at a time.
 */

/** The file's checked rows (`txn_bet_id`: the bet its transaction id names, if any). */
const ROWS = 'wallet_stage_rows';
/** The matched items, unsorted, with their sort keys. */
const ITEMS = 'wallet_stage_items';
/** The distinct bet ids the rows name. */
const NAMED = 'wallet_stage_named';
/** The items numbered (`seq` from 1) in the order of {@link compareItems}. */
const SORTED = 'wallet_stage_sorted';

/** The item columns as `ledger_add_wallet_items` takes them (text: gaming day, wallet time, differences joined by `,`; the wallet values a JSON object). */
const ITEM_FIELDS = `status text, transaction_id text, type text, bet_id text, round_id text, account_id text, currency text, gaming_day text,
  ledger_amount bigint, wallet_amount bigint, wallet_line integer, wallet_time text, differences text, wallet_values jsonb`;
const ITEM_NAMES = 'status, transaction_id, type, bet_id, round_id, account_id, currency, gaming_day, ledger_amount, wallet_amount, wallet_line, wallet_time, differences, wallet_values';

/** Creates the upload's staging tables in transaction `tx` (dropped at its end). */
export async function createWalletStage(tx: Queryable): Promise<void> {
  await exec(
    tx,
    `CREATE TEMP TABLE ${ROWS} (line integer PRIMARY KEY, transaction_id text NOT NULL, round_id text, bet_id text, account_id text,
       type text NOT NULL, amount bigint NOT NULL, currency text NOT NULL, time text NOT NULL, txn_bet_id text) ON COMMIT DROP`,
  );
  await exec(tx, `CREATE TEMP TABLE ${ITEMS} (${ITEM_FIELDS}, k_day bytea NOT NULL, k_currency bytea NOT NULL, k_txn bytea NOT NULL, k_line integer NOT NULL) ON COMMIT DROP`);
}

/** Stages a chunk of checked rows (one INSERT). */
export async function stageRows(tx: Queryable, chunk: readonly WalletRow[]): Promise<void> {
  if (!chunk.length) return;
  const json = chunk.map((r) => ({
    line: r.line,
    transaction_id: r.transactionId,
    round_id: r.roundId,
    bet_id: r.betId,
    account_id: r.accountId,
    type: r.type,
    amount: r.amount.toString(),
    currency: r.currency,
    time: r.time,
    txn_bet_id: betIdOfTransactionId(r.transactionId),
  }));
  await exec(
    tx,
    `INSERT INTO ${ROWS} SELECT * FROM json_to_recordset($1::json) AS x(line integer, transaction_id text, round_id text, bet_id text, account_id text,
       type text, amount bigint, currency text, time text, txn_bet_id text)`,
    [JSON.stringify(json)],
  );
}

/** Indexes the staged rows for the duplicate flag and the named bets, and gathers the planner's statistics (a temporary table has none else). */
export async function indexWalletStage(tx: Queryable): Promise<void> {
  await exec(tx, `CREATE INDEX ON ${ROWS} (transaction_id, line)`);
  await exec(tx, `ANALYZE ${ROWS}`);
}

/**
 * Gathers the bet ids the staged rows name (a `betId`, or the bet of a transaction id), each once,
 * into a third staging table indexed bytewise, and counts them.
 * @returns how many distinct bet ids the rows name
 */
export async function collectNamedBets(tx: Queryable): Promise<number> {
  await exec(
    tx,
    `CREATE TEMP TABLE ${NAMED} ON COMMIT DROP AS
       SELECT bet_id AS b FROM ${ROWS} WHERE bet_id IS NOT NULL UNION SELECT txn_bet_id FROM ${ROWS} WHERE txn_bet_id IS NOT NULL`,
  );
  await exec(tx, `CREATE UNIQUE INDEX ON ${NAMED} (b COLLATE "C")`);
  return (await first<{ n: number }>(tx, `SELECT count(*)::int AS n FROM ${NAMED}`))?.n ?? 0;
}

/** The distinct bet ids the staged rows name ({@link collectNamedBets} first), in pages of at most `size` (keyset by id, bytewise). */
export async function* namedBetPages(tx: Queryable, size: number): AsyncGenerator<string[]> {
  let after: string | null = null;
  for (;;) {
    const page: { b: string }[] = await sqlRows<{ b: string }>(tx, `SELECT b FROM ${NAMED} WHERE $1::text IS NULL OR b COLLATE "C" > $1 ORDER BY b COLLATE "C" LIMIT $2`, [after, size]);
    if (page.length) yield page.map((r) => r.b);
    if (page.length < size) return;
    after = page[page.length - 1].b;
  }
}

/** A staged row as {@link stagedRowPages} selects it (the amount a decimal string). */
type StagedRow = {
  line: number;
  transaction_id: string;
  round_id: string | null;
  bet_id: string | null;
  account_id: string | null;
  type: string;
  amount: string;
  currency: string;
  time: string;
  duplicate: boolean;
};

/**
 * The staged rows in file order (by line), in pages of at most `size`, each flagged `duplicate` when
 * an earlier line holds its transaction id (as the whole-file match found it).
 */
export async function* stagedRowPages(tx: Queryable, size: number): AsyncGenerator<FlaggedWalletRow[]> {
  let after = 0;
  for (;;) {
    const page = await sqlRows<StagedRow>(
      tx,
      `SELECT s.line, s.transaction_id, s.round_id, s.bet_id, s.account_id, s.type, s.amount::text AS amount, s.currency, s.time,
              EXISTS (SELECT 1 FROM ${ROWS} p WHERE p.transaction_id = s.transaction_id AND p.line < s.line) AS duplicate
         FROM ${ROWS} s WHERE s.line > $1 ORDER BY s.line LIMIT $2`,
      [after, size],
    );
    if (page.length) {
      yield page.map((r) => ({
        line: r.line,
        transactionId: r.transaction_id,
        roundId: r.round_id,
        betId: r.bet_id,
        accountId: r.account_id,
        type: r.type as WalletTxnType,
        amount: BigInt(r.amount),
        currency: r.currency,
        time: r.time,
        duplicate: r.duplicate,
      }));
    }
    if (page.length < size) return;
    after = page[page.length - 1].line;
  }
}

/** Stages matched items (one INSERT), with the byte keys of their order ({@link utf16Key}: the database sorts them as {@link compareItems}). */
export async function stageItems(tx: Queryable, items: readonly MatchItem[]): Promise<void> {
  if (!items.length) return;
  const json = items.map((it) => ({
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
    wallet_values: it.walletValues,
    k_day: utf16Key(it.gamingDay).toString('hex'),
    k_currency: utf16Key(it.currency).toString('hex'),
    k_txn: utf16Key(it.transactionId).toString('hex'),
    k_line: it.walletLine ?? 0,
  }));
  await exec(
    tx,
    `INSERT INTO ${ITEMS} SELECT ${ITEM_NAMES}, decode(k_day, 'hex'), decode(k_currency, 'hex'), decode(k_txn, 'hex'), k_line
       FROM json_to_recordset($1::json) AS x(${ITEM_FIELDS}, k_day text, k_currency text, k_txn text, k_line integer)`,
    [JSON.stringify(json)],
  );
}

/**
 * Stores the staged items as the run's items through `ledger_add_wallet_items`, numbered from 1 in
 * their order, `chunk` per call; the items go from table to table inside the database.
 * @returns how many were stored
 */
export async function moveStagedItems(tx: Queryable, runId: string, chunk: number): Promise<number> {
  await exec(tx, `CREATE TEMP TABLE ${SORTED} ON COMMIT DROP AS SELECT (row_number() OVER (ORDER BY k_day, k_currency, k_txn, k_line))::int AS seq, ${ITEM_NAMES} FROM ${ITEMS}`);
  await exec(tx, `CREATE UNIQUE INDEX ON ${SORTED} (seq)`);
  const n = (await first<{ n: number }>(tx, `SELECT count(*)::int AS n FROM ${SORTED}`))?.n ?? 0;
  for (let from = 0; from < n; from += chunk) {
    await exec(tx, `SELECT ledger_add_wallet_items($1::uuid, (SELECT json_agg(s ORDER BY s.seq) FROM (SELECT seq, ${ITEM_NAMES} FROM ${SORTED} WHERE seq > $2 AND seq <= $3) s))`, [runId, from, from + chunk]);
  }
  return n;
}
