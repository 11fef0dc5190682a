import { API_COMMAND_KINDS, API_COMMANDS, API_DECISION_COMMAND_KINDS, commandKindsOf, type ApiBet, type ApiCommandFields, type ApiCommandKind, type ApiDecisionCommandKind, type ApiWriterRole } from '@ledger/client';

/**
 * The table log: one JSON object per line (JSONL), one line per table fact, bet or management
 * decision, in the order they happened. The specification is `libs/table-log/TABLE_LOG_FORMAT.md`;
 * the types here are that document as TypeScript. Plain data, no behaviour.
 *
 * A line is one command of the API (`@ledger/client` API_COMMANDS, the one definition of the
 * vocabulary: kinds, fields, routes, roles) plus the optional `actor` who sent it; a management
 * decision's line also names the second pit manager who approves it (`approverId`).
 *
 * Every line names its shoe (`shoeId`); a log may hold many shoes, interleaved or one after
 * the other. Amounts are minor units as decimal strings, cards are card notation (`9S`, `TH`,
 * `10H`), times ISO-8601 with a time zone.
 */

/** Kinds reported by the table device (token role `table-device`). */
export const TABLE_FACT_KINDS = commandKindsOf('table-device');

/** Kinds sent by the betting platform (token role `betting-platform`). */
export const BET_KINDS = commandKindsOf('betting-platform');

/**
 * Kinds decided by pit managers (token role `pit-manager`): management decisions, each requested
 * by the line's `actor` and approved by its `approverId` (docs/domain-rules.md §6).
 */
export const DECISION_KINDS: readonly ApiDecisionCommandKind[] = API_DECISION_COMMAND_KINDS;

/** Every kind of line, in documentation order (table facts, bets, decisions): the API's commands. */
export const TABLE_LOG_KINDS: readonly TableLogKind[] = API_COMMAND_KINDS;

/** The `kind` of a table-log line: a command of the API. */
export type TableLogKind = ApiCommandKind;

/** Fields every line may carry besides its own. */
export interface TableLogLineBase {
  /** The shoe the line belongs to (the ledger stream is `shoe-<shoeId>`). */
  readonly shoeId: string;
  /** When it happened at the table, ISO-8601 with a time zone; absent = when the ledger receives it. */
  readonly occurredAt?: string;
  /**
   * Who sent it: the table device id (table facts), the betting platform id (bets) or the
   * requesting pit manager id (decisions). Absent = the replayer's default for the role.
   */
  readonly actor?: string;
}

/** What a management decision's line carries besides its command (docs/domain-rules.md §6). */
export interface TableLogDecisionFields {
  /**
   * The second pit manager, who approves the decision with their own credentials once `actor`
   * has requested it: the replayer sends `POST /decisions/{decisionId}/approve` with a token of
   * this subject (never a body field). Must differ from the requester and from the dealers
   * concerned (the ledger judges). Absent = the replayer's default approver (`pm-2`).
   */
  readonly approverId?: string;
}

/** The decision kinds' extra fields, nothing for the other kinds. */
type ExtraFields<K extends TableLogKind> = K extends ApiDecisionCommandKind ? TableLogDecisionFields : unknown;

/** One wager: `stake` in minor units of `currency`, as a decimal string. */
export type TableLogBet = ApiBet;

/** A line of the table log (see TABLE_LOG_FORMAT.md for each kind): a command and who sent it. */
export type TableLogLine = { [K in TableLogKind]: TableLogLineBase & { readonly kind: K } & ApiCommandFields[K] & ExtraFields<K> }[TableLogKind];

/** The line of one kind, e.g. `TableLogLineOf<'deal'>`. */
export type TableLogLineOf<K extends TableLogKind> = Extract<TableLogLine, { kind: K }>;

/** A valid line with its 1-based line number in the file it came from. */
export interface NumberedTableLogLine {
  /** 1-based physical line number (blank lines count). */
  readonly line: number;
  readonly value: TableLogLine;
}

/** The token role that sends a kind of line. */
export type TableLogRole = ApiWriterRole;

/** The role a line is sent as (its command's): table facts → device, bets → platform, decisions → pit manager (both the requester and the approver). */
export function roleOf(kind: TableLogKind): TableLogRole {
  return API_COMMANDS[kind].role;
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
