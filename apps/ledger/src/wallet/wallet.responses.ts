import { ApiProperty } from '@nestjs/swagger';
import { Amount, Bool, Day, Enum, Int, List, NAmount, NInt, NStr, NTime, One, Str, Strs, Time } from '../kernel/openapi-props';
import { ReportHeaderSchema } from '../kernel/report-header.dto';
import { MATCH_STATUSES } from './wallet-match';
import { WALLET_TXN_TYPES } from '../kernel/as-of/wallet-transactions';

/** Response schemas of the wallet-matching routes (docs/reports.md §4), for OpenAPI. */

/** Items of each status. */
export class WalletStatusCounts {
  @Int() MATCHED!: number;
  @Int() MISSING_IN_WALLET!: number;
  @Int() MISSING_IN_LEDGER!: number;
  @Int() AMOUNT_DIFFERS!: number;
  @Int() FIELDS_DIFFER!: number;
  @Int() DUPLICATED!: number;
}

/** One currency and gaming day of a run. */
export class WalletSummaryRow {
  @Str() currency!: string;
  @Day() gamingDay!: string;
  @One(() => WalletStatusCounts) counts!: WalletStatusCounts;
  @Amount("sum of the ledger's amounts of the items") ledgerAmount!: string;
  @Amount("sum of the wallet's amounts of the items, duplicates included") walletAmount!: string;
}

/** The uploaded file. */
export class WalletRunFile {
  @Enum(['csv', 'jsonl']) format!: string;
  @Str('SHA-256 of the bytes received, hex') sha256!: string;
  @ApiProperty({ type: String, pattern: '^\\d+$' }) bytes!: string;
  @Int('transactions (rows) in the file') rows!: number;
}

/** The gaming days, or the time period, matched. */
export class WalletRunScope {
  @ApiProperty({ type: String, format: 'date', nullable: true, description: 'first gaming day (null for a time period)' }) fromDay!: string | null;
  @ApiProperty({ type: String, format: 'date', nullable: true, description: 'last gaming day, inclusive (null for a time period)' }) toDay!: string | null;
  @NTime('start of the time period, inclusive (null for gaming days)') from!: string | null;
  @NTime('end of the time period, exclusive (null for gaming days)') to!: string | null;
  @Enum(['file', 'explicit', 'period'], "file: the gaming days of the file's times; explicit: fromDay/toDay given; period: from/to given") source!: string;
}

/** A stored match run. */
export class WalletRun {
  @Str() runId!: string;
  @Time() createdAt!: string;
  @Str() actorId!: string;
  @Str() actorRole!: string;
  @One(() => WalletRunFile) file!: WalletRunFile;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'field → column of the file' }) columnMap!: Record<string, string>;
  @One(() => WalletRunScope) scope!: WalletRunScope;
  @One(() => WalletStatusCounts) totals!: WalletStatusCounts;
  @List(() => WalletSummaryRow, 'by currency, then gaming day') summary!: WalletSummaryRow[];
  @Int("the ledger's zero-amount transactions of the scope not in the file (not expected from the wallet, docs/reports.md §4)") zeroNotInFile!: number;
  @Int('items the run stored (kept after its items are pruned)') itemCount!: number;
  @NTime('when the items were deleted after the retention (WALLET_RETENTION_DAYS; docs/reports.md §4.5): the run and its summary are kept; null while the items are kept') itemsPrunedAt!: string | null;
}

/** A run with its report header. */
export class WalletRunReport extends WalletRun {
  @One(() => ReportHeaderSchema) header!: ReportHeaderSchema;
}

/** A page of runs, newest first. */
export class WalletRunsPage {
  @List(() => WalletRun) items!: WalletRun[];
  @NStr() nextCursor!: string | null;
}

/** The wallet's values of the fields that differ from the ledger (only those present; the amount is `walletAmount`). */
export class WalletValuesSchema {
  @Str({ required: false, description: "the wallet's currency" }) currency?: string;
  @Enum(WALLET_TXN_TYPES, { required: false, description: "the wallet's transaction type" }) type?: string;
  @Str({ required: false, description: "the wallet's bet id" }) betId?: string;
  @Str({ required: false, description: "the wallet's round id" }) roundId?: string;
  @Str({ required: false, description: "the wallet's account id" }) accountId?: string;
}

/** One transaction of a run and what became of it. */
export class WalletItem {
  @Int() seq!: number;
  @Enum(MATCH_STATUSES) status!: string;
  @Str("<betId>:bet, <betId>:win:<revision> or <betId>:refund:<revision> for the ledger's") transactionId!: string;
  @Enum(WALLET_TXN_TYPES) type!: string;
  @NStr() betId!: string | null;
  @NStr() roundId!: string | null;
  @NStr() accountId!: string | null;
  @Str() currency!: string;
  @Day() gamingDay!: string;
  @NAmount('what the ledger expects the wallet to have booked') ledgerAmount!: string | null;
  @NAmount('what the wallet booked') walletAmount!: string | null;
  @NInt('line of the file') walletLine!: number | null;
  @NTime() walletTime!: string | null;
  @Strs('fields that differ: amount, currency, type, betId, roundId, accountId') differences!: string[];
  @One(() => WalletValuesSchema, "the wallet's value of each field of `differences` but the amount (that is `walletAmount`); `{}` when none, and for items stored before the values were kept")
  walletValues!: WalletValuesSchema;
}

/** A page of a run's items by `seq`. */
export class WalletItemsPage {
  @List(() => WalletItem) items!: WalletItem[];
  @NStr() nextCursor!: string | null;
}
