import type { WalletRow } from './wallet-file';
import type { LedgerTransaction, WalletTxnType } from '../kernel/as-of/wallet-transactions';

/**
 * Matching a wallet file against the ledger's transactions (docs/reports.md §4). Pure: the caller
 * loads the ledger's transactions (those of the scope's gaming days and those the file names) and
 * stores the result.
 */

/** What became of one transaction. */
export const MATCH_STATUSES = ['MATCHED', 'MISSING_IN_WALLET', 'MISSING_IN_LEDGER', 'AMOUNT_DIFFERS', 'FIELDS_DIFFER', 'DUPLICATED'] as const;
export type MatchStatus = (typeof MATCH_STATUSES)[number];

/**
 * What the match covers: gaming days `fromDay..toDay` inclusive (`YYYY-MM-DD`; a transaction is in
 * it by its bet's gaming day), or a time period `from..to` (ISO-8601 UTC, `from` inclusive, `to`
 * exclusive; a transaction is in it by its event's `occurredAt`).
 */
export type MatchScope = { readonly kind: 'days'; readonly fromDay: string; readonly toDay: string } | { readonly kind: 'period'; readonly from: string; readonly to: string };

/** Whether the ledger transaction `t` is in `scope`. */
export function inScope(t: Pick<LedgerTransaction, 'gamingDay' | 'occurredAt'>, scope: MatchScope): boolean {
  if (scope.kind === 'days') return t.gamingDay >= scope.fromDay && t.gamingDay <= scope.toDay;
  const at = Date.parse(t.occurredAt);
  return at >= Date.parse(scope.from) && at < Date.parse(scope.to);
}

/** One item of a match run. Amounts are signed minor units. */
export interface MatchItem {
  readonly status: MatchStatus;
  readonly transactionId: string;
  readonly type: WalletTxnType;
  readonly betId: string | null;
  readonly roundId: string | null;
  readonly accountId: string | null;
  readonly currency: string;
  /** The ledger's gaming day of the bet; for a transaction the ledger lacks, the gaming day of the wallet's time. */
  readonly gamingDay: string;
  readonly ledgerAmount: bigint | null;
  readonly walletAmount: bigint | null;
  /** The file line of the wallet's row (null when missing in the wallet). */
  readonly walletLine: number | null;
  readonly walletTime: string | null;
  /** Fields where the wallet's row differs from the ledger (`amount`, `currency`, `type`, `betId`, `roundId`, `accountId`). */
  readonly differences: readonly string[];
  /** The wallet's value of each field of `differences` but the amount (that is `walletAmount`); `{}` when none. */
  readonly walletValues: WalletValues;
}

/** The fields of a wallet row, other than its amount, that can differ from the ledger's transaction. */
export const WALLET_VALUE_FIELDS = ['currency', 'type', 'betId', 'roundId', 'accountId'] as const;
export type WalletValueField = (typeof WALLET_VALUE_FIELDS)[number];

/** The wallet's values of the fields that differ from the ledger, by field (only those that differ). */
export type WalletValues = Readonly<Partial<Record<WalletValueField, string>>>;

/** Counts and sums of one currency and gaming day. */
export interface MatchSummaryRow {
  readonly currency: string;
  readonly gamingDay: string;
  readonly counts: Record<MatchStatus, number>;
  /** Sum of the ledger's amounts of the items (null amounts count 0). */
  readonly ledgerAmount: bigint;
  /** Sum of the wallet's amounts of the items, duplicates included. */
  readonly walletAmount: bigint;
}

/** The result of {@link matchWallet}. */
export interface MatchResult {
  /** In order: gaming day, currency, transaction id, wallet line. */
  readonly items: MatchItem[];
  /** By currency, then gaming day. */
  readonly summary: MatchSummaryRow[];
  /** Totals of every status. */
  readonly totals: Record<MatchStatus, number>;
  /** The ledger's zero-amount transactions of the scope that the file does not hold (not reported: docs/reports.md §4). */
  readonly zeroNotInFile: number;
}

/**
 * The gaming days of the rows' times (`dayOf`, the ledger's gaming-day rule), as a scope, widened
 * from `before` (the scope of earlier rows: a file read chunk by chunk); null without rows.
 */
export function scopeOfRows(rows: readonly WalletRow[], dayOf: (time: string) => string, before: (MatchScope & { kind: 'days' }) | null = null): (MatchScope & { kind: 'days' }) | null {
  let from: string | null = before?.fromDay ?? null;
  let to: string | null = before?.toDay ?? null;
  for (const r of rows) {
    const d = dayOf(r.time);
    if (from === null || d < from) from = d;
    if (to === null || d > to) to = d;
  }
  return from === null || to === null ? null : { kind: 'days', fromDay: from, toDay: to };
}

const zeroCounts = (): Record<MatchStatus, number> => Object.fromEntries(MATCH_STATUSES.map((s) => [s, 0])) as Record<MatchStatus, number>;

/**
 * Matches `rows` (in file order) against the ledger's transactions `ledger` by transaction id:
 * - the first row of an id the ledger has: MATCHED, or AMOUNT_DIFFERS (amount or currency differ),
 *   or FIELDS_DIFFER (type, or a given bet, round or account id differs);
 * - the first row of an id the ledger lacks: MISSING_IN_LEDGER;
 * - every further row of the same id: DUPLICATED;
 * - a ledger transaction of the scope that no row names: MISSING_IN_WALLET when its
 *   amount is not 0; a zero one (a lost bet's win) is not expected from the wallet and only counted.
 * @param ledger every ledger transaction of the scope, plus any the rows name (whatever their day)
 * @param dayOf the gaming day of a wallet time (for rows the ledger lacks)
 */
export function matchWallet(rows: readonly WalletRow[], ledger: readonly LedgerTransaction[], scope: MatchScope, dayOf: (time: string) => string): MatchResult {
  const byId = new Map<string, LedgerTransaction>();
  for (const t of ledger) byId.set(t.transactionId, t);
  const seen = new Set<string>();
  const items: MatchItem[] = [];
  for (const r of rows) {
    items.push(itemOfRow(r, byId.get(r.transactionId), seen.has(r.transactionId), dayOf));
    seen.add(r.transactionId);
  }
  let zeroNotInFile = 0;
  for (const l of ledger) {
    if (seen.has(l.transactionId) || !inScope(l, scope)) continue;
    seen.add(l.transactionId); // a transaction given twice in `ledger` counts once
    if (l.amount === 0n) {
      zeroNotInFile++;
      continue;
    }
    items.push(missingInWallet(l));
  }
  items.sort(compareItems);
  return { items, ...summarise(items), zeroNotInFile };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A wallet row as {@link WalletMatcher} takes it: whether a row of its transaction id came before it in the file (found by the caller). */
export type FlaggedWalletRow = WalletRow & { readonly duplicate: boolean };

/**
 * The file's rows with {@link FlaggedWalletRow.duplicate} set as {@link matchWallet} finds it (an id
 * seen on an earlier row). Holds every id: for tests and small files; the upload flags rows in SQL.
 */
export function flagDuplicates(rows: readonly WalletRow[]): FlaggedWalletRow[] {
  const seen = new Set<string>();
  return rows.map((r) => {
    const duplicate = seen.has(r.transactionId);
    seen.add(r.transactionId);
    return { ...r, duplicate };
  });
}

/** What {@link WalletMatcher.result} gives once every chunk is in: {@link MatchResult} without the items, and their count. */
export type MatchTotals = Omit<MatchResult, 'items'> & { readonly itemCount: number };

/**
 * {@link matchWallet} chunk by chunk, with memory flat in the file's size: it holds the ledger's
 * transactions (by id), the ids of those a row named (at most the ledger's), and the summary's groups
 * (one per currency and gaming day), never a row or an item it has handed back. The caller feeds the
 * rows in file order with their {@link FlaggedWalletRow.duplicate} flag ({@link add}), then takes the
 * MISSING_IN_WALLET items ({@link missing}) and the totals ({@link result}). The items come unsorted:
 * sorted by {@link compareItems} (the caller's job) they are {@link matchWallet}'s items, and
 * {@link result} equals its summary, totals and `zeroNotInFile`.
 */
export class WalletMatcher {
  private readonly byId = new Map<string, LedgerTransaction>();
  /** Ledger transaction ids a row named (the old `seen`, restricted to the ledger's ids). */
  private readonly named = new Set<string>();
  private readonly groups: SummaryGroups = new Map();
  private readonly totals = zeroCounts();
  private zeroNotInFile = 0;
  private items = 0;
  private finished = false;

  /**
   * @param ledger every ledger transaction of the scope, plus any the rows name (whatever their day)
   * @param dayOf the gaming day of a wallet time (for rows the ledger lacks)
   */
  constructor(
    private readonly ledger: readonly LedgerTransaction[],
    private readonly scope: MatchScope,
    private readonly dayOf: (time: string) => string,
  ) {
    for (const t of ledger) this.byId.set(t.transactionId, t);
  }

  /** The items of the next rows of the file (in file order), one per row. @throws Error after {@link missing} */
  add(rows: readonly FlaggedWalletRow[]): MatchItem[] {
    if (this.finished) throw new Error('WalletMatcher: rows added after the missing items were taken');
    return rows.map((r) => {
      const l = this.byId.get(r.transactionId);
      if (l) this.named.add(r.transactionId);
      return this.count(itemOfRow(r, l, r.duplicate, this.dayOf));
    });
  }

  /** The MISSING_IN_WALLET items (ledger transactions of the scope no row named, amount not 0), in chunks of at most `chunk`; the zero ones only counted. */
  *missing(chunk: number): Generator<MatchItem[]> {
    this.finished = true;
    let out: MatchItem[] = [];
    for (const l of this.ledger) {
      if (this.named.has(l.transactionId) || !inScope(l, this.scope)) continue;
      this.named.add(l.transactionId); // a transaction given twice in `ledger` counts once
      if (l.amount === 0n) {
        this.zeroNotInFile++;
        continue;
      }
      out.push(this.count(missingInWallet(l)));
      if (out.length >= chunk) {
        yield out;
        out = [];
      }
    }
    if (out.length) yield out;
  }

  /** The summary (by currency, then gaming day), totals, `zeroNotInFile` and item count of everything handed out. */
  result(): MatchTotals {
    const summary = [...this.groups.values()].sort((a, b) => cmp(a.currency, b.currency) || cmp(a.gamingDay, b.gamingDay));
    return { summary, totals: { ...this.totals }, zeroNotInFile: this.zeroNotInFile, itemCount: this.items };
  }

  /** What the matcher holds besides the ledger: the ids named and the summary's groups (neither grows with rows the ledger lacks). */
  footprint(): { readonly ledger: number; readonly named: number; readonly groups: number } {
    return { ledger: this.byId.size, named: this.named.size, groups: this.groups.size };
  }

  private count(i: MatchItem): MatchItem {
    this.items++;
    addToSummary(this.groups, this.totals, i);
    return i;
  }
}

/** The order of {@link MatchResult.items}: gaming day, currency, transaction id (UTF-16 code units, as `<`), wallet line (0 when missing in the wallet). */
export function compareItems(a: MatchItem, b: MatchItem): number {
  return cmp(a.gamingDay, b.gamingDay) || cmp(a.currency, b.currency) || cmp(a.transactionId, b.transactionId) || (a.walletLine ?? 0) - (b.walletLine ?? 0);
}

/**
 * A byte key of a string whose byte order (`memcmp`, PostgreSQL's `bytea` order) is JavaScript's `<`
 * order of the strings: its UTF-16 code units, big-endian (a prefix sorts first in both).
 */
export function utf16Key(s: string): Buffer {
  return Buffer.from(s, 'utf16le').swap16();
}

/**
 * The item of a wallet row: DUPLICATED when a row of its id came before, MISSING_IN_LEDGER without
 * the ledger's transaction `l`, else MATCHED, AMOUNT_DIFFERS or FIELDS_DIFFER (see {@link matchWallet}).
 */
function itemOfRow(r: WalletRow, l: LedgerTransaction | undefined, duplicate: boolean, dayOf: (time: string) => string): MatchItem {
  const wallet = { walletAmount: r.amount, walletLine: r.line, walletTime: r.time };
  if (duplicate) {
    return {
      status: 'DUPLICATED',
      transactionId: r.transactionId,
      type: r.type,
      betId: l?.betId ?? r.betId,
      roundId: l?.roundId ?? r.roundId,
      accountId: l?.accountId ?? r.accountId,
      currency: l?.currency ?? r.currency,
      gamingDay: l?.gamingDay ?? dayOf(r.time),
      ledgerAmount: l?.amount ?? null,
      ...wallet,
      differences: [],
      walletValues: {},
    };
  }
  if (!l) {
    return {
      status: 'MISSING_IN_LEDGER',
      transactionId: r.transactionId,
      type: r.type,
      betId: r.betId,
      roundId: r.roundId,
      accountId: r.accountId,
      currency: r.currency,
      gamingDay: dayOf(r.time),
      ledgerAmount: null,
      ...wallet,
      differences: [],
      walletValues: {},
    };
  }
  const { differences, walletValues } = differencesOf(r, l);
  const status: MatchStatus = differences.includes('amount') || differences.includes('currency') ? 'AMOUNT_DIFFERS' : differences.length ? 'FIELDS_DIFFER' : 'MATCHED';
  return { status, ...ledgerSide(l), ...wallet, differences, walletValues };
}

/** An item's fields as the ledger's transaction `l` has them. */
function ledgerSide(l: LedgerTransaction): Pick<MatchItem, 'transactionId' | 'type' | 'betId' | 'roundId' | 'accountId' | 'currency' | 'gamingDay' | 'ledgerAmount'> {
  return { transactionId: l.transactionId, type: l.type, betId: l.betId, roundId: l.roundId, accountId: l.accountId, currency: l.currency, gamingDay: l.gamingDay, ledgerAmount: l.amount };
}

/**
 * Where wallet row `r` differs from the ledger's transaction `l`: the fields, in the order amount,
 * currency, type, betId, roundId, accountId (an id the row leaves out is not a difference), and the
 * row's value of each but the amount.
 */
function differencesOf(r: WalletRow, l: LedgerTransaction): { differences: string[]; walletValues: WalletValues } {
  const differences: string[] = [];
  const walletValues: Partial<Record<WalletValueField, string>> = {};
  if (r.amount !== l.amount) differences.push('amount');
  for (const f of WALLET_VALUE_FIELDS) {
    const mine = r[f];
    if (mine !== null && mine !== l[f]) {
      differences.push(f);
      walletValues[f] = mine;
    }
  }
  return { differences, walletValues };
}

/** The item of a ledger transaction of the scope that no row names (its amount not 0). */
function missingInWallet(l: LedgerTransaction): MatchItem {
  return {
    status: 'MISSING_IN_WALLET',
    ...ledgerSide(l),
    walletAmount: null,
    walletLine: null,
    walletTime: null,
    differences: [],
    walletValues: {},
  };
}

/** The counts and sums of sorted `items` per currency and gaming day (by currency, then day), and the totals. */
function summarise(items: readonly MatchItem[]): Pick<MatchResult, 'summary' | 'totals'> {
  const groups: SummaryGroups = new Map();
  const totals = zeroCounts();
  for (const i of items) addToSummary(groups, totals, i);
  const summary = [...groups.values()].sort((a, b) => cmp(a.currency, b.currency) || cmp(a.gamingDay, b.gamingDay));
  return { summary, totals };
}

/** The summary's groups being built, by `currency|gamingDay`. */
type SummaryGroups = Map<string, { currency: string; gamingDay: string; counts: Record<MatchStatus, number>; ledgerAmount: bigint; walletAmount: bigint }>;

/** Counts and sums item `i` into its group of `groups` and into `totals`. */
function addToSummary(groups: SummaryGroups, totals: Record<MatchStatus, number>, i: MatchItem): void {
  const key = `${i.currency}|${i.gamingDay}`;
  const g = groups.get(key) ?? { currency: i.currency, gamingDay: i.gamingDay, counts: zeroCounts(), ledgerAmount: 0n, walletAmount: 0n };
  g.counts[i.status]++;
  totals[i.status]++;
  // a duplicate's ledger amount is its first row's: counted once
  if (i.status !== 'DUPLICATED') g.ledgerAmount += i.ledgerAmount ?? 0n;
  g.walletAmount += i.walletAmount ?? 0n;
  groups.set(key, g);
}
