/**
 * The wallet transactions the ledger expects (docs/reports.md §4): one per money movement a bet
 * causes on the player's wallet, each with a stable id computed from the events alone:
 *
 * - `<betId>:bet`              — BetPlaced: the stake debited;
 * - `<betId>:win:<revision>`   — BetSettled (revision 1) / BetResettled (revision n ≥ 2): the change
 *                                of the payout in force (new payout − previous payout; the first
 *                                settlement's previous payout is 0, so its amount is the payout);
 * - `<betId>:refund:<revision>`— BetRefunded, `revision` = the settlement revision it ends (0 when
 *                                the bet was never settled): what puts the player back where they
 *                                were before the bet, stake − payout in force (the stake when unsettled).
 *
 * Every amount is a bigint of minor units; a bet's movements always sum to its net effect
 * (after a refund: 0). Pure functions, no I/O.
 */

/** A wallet transaction type, as the wallet file names it. */
export type WalletTxnType = 'bet' | 'win' | 'refund';

/** The wallet transaction types, in the order they happen. */
export const WALLET_TXN_TYPES: readonly WalletTxnType[] = ['bet', 'win', 'refund'];

/** `<betId>:bet`. */
export function betTransactionId(betId: string): string {
  return `${betId}:bet`;
}

/** `<betId>:win:<revision>` (a settlement, revision 1, or a resettlement, revision ≥ 2). */
export function winTransactionId(betId: string, revision: number): string {
  return `${betId}:win:${revision}`;
}

/** `<betId>:refund:<revision>` (`revision` = the settlement revision the refund ends, 0 if never settled). */
export function refundTransactionId(betId: string, revision: number): string {
  return `${betId}:refund:${revision}`;
}

/** The transaction id of a settlement-history entry (`bet_settlement_revisions.kind`). */
export function revisionTransactionId(betId: string, kind: 'SETTLED' | 'RESETTLED' | 'REFUNDED' | string, revision: number): string {
  return kind === 'REFUNDED' ? refundTransactionId(betId, revision) : winTransactionId(betId, revision);
}

/**
 * The bet id of a transaction id of the forms above, or null when it has none of them.
 * (A bet id may itself contain `:`; the suffix is what is parsed.)
 */
export function betIdOfTransactionId(transactionId: string): string | null {
  const m = /^(.+):(?:bet|win:\d+|refund:\d+)$/.exec(transactionId);
  return m ? m[1] : null;
}

/** A bet as the ledger's read model holds it, what {@link expectedTransactions} needs. */
export interface LedgerBet {
  readonly betId: string;
  readonly roundId: string;
  readonly tableId: string;
  readonly accountId: string;
  readonly currency: string;
  /** The round's gaming day `YYYY-MM-DD` (docs/domain-rules.md §4). */
  readonly gamingDay: string;
  /** Stake, minor units. */
  readonly stake: bigint;
  /** ISO time of BetPlaced's occurredAt. */
  readonly placedAt: string;
  /** Its settlement history in order (`bet_settlement_revisions` by `seq`). */
  readonly history: readonly LedgerBetRevision[];
}

/** One entry of a bet's settlement history. */
export interface LedgerBetRevision {
  readonly kind: 'SETTLED' | 'RESETTLED' | 'REFUNDED';
  readonly revision: number;
  /** Payout of the settlement, minor units; null on a refund. */
  readonly payout: bigint | null;
  readonly occurredAt: string;
  readonly eventId: string;
}

/** A wallet transaction the ledger expects. */
export interface LedgerTransaction {
  readonly transactionId: string;
  readonly type: WalletTxnType;
  readonly betId: string;
  readonly roundId: string;
  readonly tableId: string;
  readonly accountId: string;
  readonly currency: string;
  readonly gamingDay: string;
  /** Signed minor units, as docs/reports.md §4 defines per type (a bet's stake is positive: the amount debited). */
  readonly amount: bigint;
  readonly occurredAt: string;
}

/**
 * The amount the wallet sees for each entry of a bet's history, in order, with the entry's
 * transaction id: the win of a settlement is `payout − payout before` (payout before = 0 for the
 * first one), the refund is `stake − payout before` (docs/reports.md §4).
 */
export function walletAmounts(betId: string, stake: bigint, history: readonly Pick<LedgerBetRevision, 'kind' | 'revision' | 'payout'>[]): { transactionId: string; type: WalletTxnType; amount: bigint }[] {
  let paid = 0n;
  const out: { transactionId: string; type: WalletTxnType; amount: bigint }[] = [];
  for (const h of history) {
    if (h.kind === 'REFUNDED') {
      out.push({ transactionId: refundTransactionId(betId, h.revision), type: 'refund', amount: stake - paid });
      paid = stake; // the player is back where they were: -stake + stake
    } else {
      const payout = h.payout ?? 0n;
      out.push({ transactionId: winTransactionId(betId, h.revision), type: 'win', amount: payout - paid });
      paid = payout;
    }
  }
  return out;
}

/**
 * Every wallet transaction one bet causes: its bet (stake debited), then one per settlement,
 * resettlement and refund ({@link walletAmounts}). Zero amounts are included (a lost bet's
 * `win:1` of 0): the matcher decides what a zero means (docs/reports.md §4).
 */
export function expectedTransactions(bet: LedgerBet): LedgerTransaction[] {
  const base = { betId: bet.betId, roundId: bet.roundId, tableId: bet.tableId, accountId: bet.accountId, currency: bet.currency, gamingDay: bet.gamingDay };
  const out: LedgerTransaction[] = [{ ...base, transactionId: betTransactionId(bet.betId), type: 'bet', amount: bet.stake, occurredAt: bet.placedAt }];
  const amounts = walletAmounts(bet.betId, bet.stake, bet.history);
  bet.history.forEach((h, i) => out.push({ ...base, ...amounts[i], occurredAt: h.occurredAt }));
  return out;
}

/**
 * A bet's settlement history with each entry's wallet transaction (docs/reports.md §4):
 * `transactionId` (`<betId>:win:<revision>` / `<betId>:refund:<revision>`) and `walletAmount`, the
 * signed minor units the wallet is expected to book for it (decimal string).
 */
export function withWalletTransactions<T extends { kind: string; revision: number; payout: string | null }>(betId: string, stake: string, history: T[]): (T & { transactionId: string; walletAmount: string })[] {
  const amounts = walletAmounts(
    betId,
    BigInt(stake),
    history.map((h) => ({ kind: h.kind as 'SETTLED' | 'RESETTLED' | 'REFUNDED', revision: Number(h.revision), payout: h.payout === null ? null : BigInt(h.payout) })),
  );
  return history.map((h, i) => ({ ...h, transactionId: amounts[i].transactionId, walletAmount: amounts[i].amount.toString() }));
}

/** A bet row (camelCase) with its bet transaction id `<betId>:bet` (docs/reports.md §4). */
export function withBetTransaction<T extends Record<string, unknown>>(bet: T): T & { betTransactionId: string } {
  return { ...bet, betTransactionId: betTransactionId(String(bet.betId)) };
}
