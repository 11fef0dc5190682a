import type { Position } from '@ledger/rules';

/**
 * The table log: one JSON object per line (JSONL), one line per table fact, bet or management
 * decision, in the order they happened. The specification is `libs/table-log/TABLE_LOG_FORMAT.md`;
 * the types here are that document as TypeScript. Plain data, no behaviour.
 *
 * Every line names its shoe (`shoeId`); a log may hold many shoes, interleaved or one after
 * the other. Amounts are minor units as decimal strings, cards are card notation (`9S`, `TH`,
 * `10H`), times ISO-8601 with a time zone.
 */

/** Kinds reported by the table device (token role `table-device`). */
export const TABLE_FACT_KINDS = [
  'openShoe',
  'commencement',
  'burn',
  'openRound',
  'closeBetting',
  'deal',
  'unneeded',
  'expose',
  'drop',
  'cutCard',
  'changeDealer',
  'closeShoe',
] as const;

/** Kinds sent by the betting platform (token role `betting-platform`). */
export const BET_KINDS = ['bet', 'bets'] as const;

/** Kinds decided by pit managers (token role `pit-manager`). */
export const DECISION_KINDS = ['voidRound', 'correctResult', 'voidShoe', 'correctCommencement'] as const;

/** Every kind of line, in documentation order. */
export const TABLE_LOG_KINDS = [...TABLE_FACT_KINDS, ...BET_KINDS, ...DECISION_KINDS] as const;

/** The `kind` of a table-log line. */
export type TableLogKind = (typeof TABLE_LOG_KINDS)[number];

/** Fields every line may carry besides its own. */
export interface TableLogLineBase {
  /** The shoe the line belongs to (the ledger stream is `shoe-<shoeId>`). */
  readonly shoeId: string;
  /** When it happened at the table, ISO-8601 with a time zone; absent = when the ledger receives it. */
  readonly occurredAt?: string;
  /**
   * Who sent it: the table device id (table facts), the betting platform id (bets) or the acting
   * pit manager id (decisions). Absent = the replayer's default for the role.
   */
  readonly actor?: string;
}

/** One wager: `stake` in minor units of `currency`, as a decimal string. */
export interface TableLogBet {
  readonly betId: string;
  readonly accountId: string;
  /** A bet code of the table's variant (`PLAYER`, `BANKER`, `TIE`, `TIGER_PAIR`, …). */
  readonly betCode: string;
  /** Minor units (cents), decimal string of digits, e.g. `"2500"` = 25.00. */
  readonly stake: string;
  /** ISO 4217, the table's currency. */
  readonly currency: string;
}

/** A line of the table log (see TABLE_LOG_FORMAT.md for each kind). */
export type TableLogLine =
  | (TableLogLineBase & { readonly kind: 'openShoe'; readonly tableId: string; readonly dealerId: string })
  | (TableLogLineBase & { readonly kind: 'commencement'; readonly card: string })
  | (TableLogLineBase & { readonly kind: 'burn'; readonly card: string | null })
  | (TableLogLineBase & { readonly kind: 'openRound'; readonly roundId: string })
  | (TableLogLineBase & { readonly kind: 'closeBetting'; readonly roundId: string })
  | (TableLogLineBase & { readonly kind: 'deal'; readonly roundId: string; readonly position: Position; readonly card: string })
  | (TableLogLineBase & { readonly kind: 'unneeded'; readonly roundId: string; readonly card: string })
  | (TableLogLineBase & { readonly kind: 'expose'; readonly card: string; readonly phase?: 'SHUFFLE' })
  | (TableLogLineBase & {
      readonly kind: 'drop';
      readonly card: string | null;
      readonly exposedBeforeLeavingView: boolean;
      readonly phase?: 'SHUFFLE' | 'SCOOPING';
    })
  | (TableLogLineBase & { readonly kind: 'cutCard' })
  | (TableLogLineBase & { readonly kind: 'changeDealer'; readonly dealerId: string })
  | (TableLogLineBase & { readonly kind: 'closeShoe' })
  | (TableLogLineBase & { readonly kind: 'bet'; readonly roundId: string } & TableLogBet)
  | (TableLogLineBase & { readonly kind: 'bets'; readonly roundId: string; readonly bets: readonly TableLogBet[] })
  | (TableLogLineBase & { readonly kind: 'voidRound'; readonly roundId: string; readonly reason: string; readonly approverId: string })
  | (TableLogLineBase & {
      readonly kind: 'correctResult';
      readonly roundId: string;
      readonly cards: readonly string[];
      readonly reason: string;
      readonly approverId: string;
    })
  | (TableLogLineBase & { readonly kind: 'voidShoe'; readonly reason: string; readonly approverId: string })
  | (TableLogLineBase & { readonly kind: 'correctCommencement'; readonly card: string; readonly reason: string });

/** The line of one kind, e.g. `TableLogLineOf<'deal'>`. */
export type TableLogLineOf<K extends TableLogKind> = Extract<TableLogLine, { kind: K }>;

/** A valid line with its 1-based line number in the file it came from. */
export interface NumberedTableLogLine {
  /** 1-based physical line number (blank lines count). */
  readonly line: number;
  readonly value: TableLogLine;
}

/** The token role that sends a kind of line. */
export type TableLogRole = 'table-device' | 'betting-platform' | 'pit-manager';

/** The role a line is sent as: table facts → device, bets → platform, decisions → pit manager. */
export function roleOf(kind: TableLogKind): TableLogRole {
  if ((BET_KINDS as readonly string[]).includes(kind)) return 'betting-platform';
  if ((DECISION_KINDS as readonly string[]).includes(kind)) return 'pit-manager';
  return 'table-device';
}

/** The round a line concerns, or null for shoe-level lines. */
export function roundIdOf(line: TableLogLine): string | null {
  return 'roundId' in line ? line.roundId : null;
}

/**
 * One table-log line as JSON text (no line break). Keys keep the order the object was built in,
 * so the same line always serialises to the same text (idempotency keys and file hashes rely on it).
 */
export function formatTableLogLine(line: TableLogLine): string {
  return JSON.stringify(line);
}

/** Lines as JSONL text: one line each, every line ending in `\n`. */
export function formatTableLog(lines: readonly TableLogLine[]): string {
  let out = '';
  for (const l of lines) out += formatTableLogLine(l) + '\n';
  return out;
}
