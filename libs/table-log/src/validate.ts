import { isISO8601 } from 'class-validator';
import { API_BET_FIELDS, API_COMMANDS, commandFields, isDecisionCommandKind, type ApiFieldType } from '@ledger/client';
import { POSITIONS } from '@ledger/rules';
import { CARD_PATTERN, ID_PATTERN } from '@ledger/events';
import { NumberedTableLogLine, TABLE_LOG_KINDS, TableLogKind, TableLogLine } from './table-log-line';

/**
 * The table-log validator (TABLE_LOG_FORMAT.md): an exhaustive check of every kind's fields, as
 * the API's commands define them (`@ledger/client` API_COMMANDS: each field and its value type;
 * the checks of each value type are here), plus a decision line's optional `approverId`. Shape only: whether a fact fits the shoe (tableau, card counts, limits, windows) is the
 * ledger's judgement, not the log's. The checks mirror the ledger API's request DTOs, so a line
 * that passes here is never refused by the API as malformed (400), and a line that fails would be.
 *
 * Every problem of a line is reported (not only the first), each with the line number and the
 * field (`bets[2].stake`), so a file can be fixed in one pass.
 */

/** One problem of one line. */
export interface TableLogError {
  /** 1-based physical line number. */
  readonly line: number;
  /** The line's kind when it could be read, else null. */
  readonly kind: string | null;
  /** The field at fault (`card`, `bets[2].stake`), or null for the line as a whole. */
  readonly field: string | null;
  readonly message: string;
}

/** Result of validating one line. */
export type TableLogLineResult = { readonly ok: true; readonly line: number; readonly value: TableLogLine } | { readonly ok: false; readonly line: number; readonly errors: readonly TableLogError[] };

/** Ids: shoe, round, bet, account, table, dealer, actor, approver (as the API's DTOs). */
export const TABLE_LOG_ID = ID_PATTERN;
/** Card notation: rank A 2-9 T/10 J Q K then suit S H D C, case-insensitive (as the API). */
export const TABLE_LOG_CARD = CARD_PATTERN;
/** Bet codes: upper-case letters, digits and underscores (the ledger checks the variant). */
export const TABLE_LOG_BET_CODE = /^[A-Z_0-9]{1,32}$/;
/** Stakes: minor units as a string of 1–30 digits (range and limits are the ledger's to judge). */
export const TABLE_LOG_STAKE = /^\d{1,30}$/;
/** ISO 4217 currency code. */
export const TABLE_LOG_CURRENCY = /^[A-Z]{3}$/;
/**
 * Reasons of decisions: 3–500 characters, none a control character (tab, line feed and carriage
 * return excepted) or a lone surrogate (as the API: such characters cannot be stored in an audit record).
 */
export const TABLE_LOG_REASON = /^(?:[^\p{Cc}\p{Cs}]|[\t\n\r]){3,500}$/u;
/** `occurredAt`: a full timestamp with seconds and a zone (`Z` or `±hh:mm`). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
/** Most bets one batch line may carry (the API's limit). */
export const MAX_BETS_PER_LINE = 10_000;

/** A field check: an error message, or null when the value is fine. */
type Check = (v: unknown) => string | null;

const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

const id: Check = (v) => (typeof v === 'string' && TABLE_LOG_ID.test(v) ? null : `must be an id of 1–64 characters A–Z a–z 0–9 _ . : -, got ${show(v)}`);
const cardCheck: Check = (v) => (typeof v === 'string' && TABLE_LOG_CARD.test(v) ? null : `must be a card like "9S", "TH" or "10H", got ${show(v)}`);
const cardOrNull: Check = (v) => (v === null ? null : cardCheck(v));
const reason: Check = (v) => (typeof v === 'string' && TABLE_LOG_REASON.test(v) ? null : `must be a reason of 3–500 characters, no control characters but tab and line breaks, got ${show(v)}`);
const bool: Check = (v) => (typeof v === 'boolean' ? null : `must be true or false, got ${show(v)}`);
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? null : `must be one of ${values.join(', ')}, got ${show(v)}`;
const position = oneOf(POSITIONS);
const betCode: Check = (v) => (typeof v === 'string' && TABLE_LOG_BET_CODE.test(v) ? null : `must be a bet code like "BANKER", got ${show(v)}`);
const stake: Check = (v) => (typeof v === 'string' && TABLE_LOG_STAKE.test(v) ? null : `must be minor units as a string of digits, e.g. "2500" for 25.00, got ${show(v)}`);
const currency: Check = (v) => (typeof v === 'string' && TABLE_LOG_CURRENCY.test(v) ? null : `must be an ISO 4217 code like "EUR", got ${show(v)}`);
const timestamp: Check = (v) => (typeof v === 'string' && TIMESTAMP.test(v) && isISO8601(v, { strict: true }) ? null : `must be an ISO-8601 timestamp with a zone, e.g. "2026-11-29T12:00:00.000Z", got ${show(v)}`);

/** The check of each value type a command's field may have. */
const CHECKS: Record<Exclude<ApiFieldType, object | 'bets' | 'cards'>, Check> = {
  id,
  card: cardCheck,
  cardOrNull,
  position,
  boolean: bool,
  reason,
  betCode,
  stake,
  currency,
};

/** The check of a field type; lists of bets and cards are checked element by element. */
function checkOf(type: ApiFieldType): Check | 'bets' | 'cards' {
  if (typeof type === 'object') return oneOf(type.oneOf);
  return type === 'bets' || type === 'cards' ? type : CHECKS[type];
}

/** The fields of one bet, whether flat on a `bet` line or an element of a `bets` batch. */
const BET_FIELDS: Record<string, Check> = Object.fromEntries(API_BET_FIELDS.map((f) => [f, checkOf(API_COMMANDS.bet.fields[f].type) as Check]));

/** Fields of a kind beyond the common ones: required and optional. */
interface KindSpec {
  readonly required: Record<string, Check | 'bets' | 'cards'>;
  readonly optional?: Record<string, Check>;
}

/** Every kind's fields, from its command's (a `Record` over the kinds: every kind has one). */
const SPECS = Object.fromEntries(
  TABLE_LOG_KINDS.map((kind): [TableLogKind, KindSpec] => {
    const required: Record<string, Check | 'bets' | 'cards'> = {};
    const optional: Record<string, Check> = {};
    for (const [field, spec] of commandFields(kind)) {
      const check = checkOf(spec.type);
      if (!spec.optional) required[field] = check;
      else if (typeof check === 'function') optional[field] = check;
      else throw new Error(`table log: optional list field ${kind}.${field} is not supported`);
    }
    // a management decision's line names its approving manager (TABLE_LOG_FORMAT.md; absent = the replayer's default)
    if (isDecisionCommandKind(kind)) optional.approverId = id;
    return [kind, Object.keys(optional).length ? { required, optional } : { required }];
  }),
) as Record<TableLogKind, KindSpec>;

/** Fields every line has (`kind`, `shoeId`) or may have (`occurredAt`, `actor`). */
const COMMON_REQUIRED: Record<string, Check> = { shoeId: id };
const COMMON_OPTIONAL: Record<string, Check> = { occurredAt: timestamp, actor: id };

/** The fields a kind allows, in documentation order (common ones first). */
export function fieldsOf(kind: TableLogKind): { required: string[]; optional: string[] } {
  const spec = SPECS[kind];
  return {
    required: ['kind', ...Object.keys(COMMON_REQUIRED), ...Object.keys(spec.required)],
    optional: [...Object.keys(COMMON_OPTIONAL), ...Object.keys(spec.optional ?? {})],
  };
}

/** Own property only: `in` would find `constructor`, `__proto__`, `toString` on every object. */
const has = (o: object, key: string): boolean => Object.hasOwn(o, key);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Validates one parsed JSON value as a table-log line.
 * @param raw the value of `JSON.parse(line)`
 * @param line 1-based line number, carried into every error
 * @returns the typed line, or every problem found. Never throws.
 */
export function validateTableLogLine(raw: unknown, line: number): TableLogLineResult {
  const errors: TableLogError[] = [];
  if (!isPlainObject(raw)) {
    return { ok: false, line, errors: [{ line, kind: null, field: null, message: `must be a JSON object, got ${Array.isArray(raw) ? 'an array' : show(raw)}` }] };
  }
  const kind = raw.kind;
  if (typeof kind !== 'string' || !(TABLE_LOG_KINDS as readonly string[]).includes(kind)) {
    const message = kind === undefined ? 'is required' : `must be one of ${TABLE_LOG_KINDS.join(', ')}, got ${show(kind)}`;
    return { ok: false, line, errors: [{ line, kind: null, field: 'kind', message }] };
  }
  const k = kind as TableLogKind;
  const spec = SPECS[k];
  const err = (field: string | null, message: string) => errors.push({ line, kind: k, field, message });
  const required: Record<string, Check | 'bets' | 'cards'> = { ...COMMON_REQUIRED, ...spec.required };
  const optional: Record<string, Check> = { ...COMMON_OPTIONAL, ...(spec.optional ?? {}) };

  for (const [field, check] of Object.entries(required)) {
    if (!has(raw, field)) {
      err(field, 'is required');
      continue;
    }
    const v = raw[field];
    if (check === 'bets') checkBets(v, err);
    else if (check === 'cards') checkCards(v, err);
    else {
      const m = check(v);
      if (m) err(field, m);
    }
  }
  for (const [field, check] of Object.entries(optional)) {
    if (!has(raw, field) || raw[field] === undefined) continue;
    const m = check(raw[field]);
    if (m) err(field, m);
  }
  for (const field of Object.keys(raw)) {
    if (field === 'kind' || has(required, field) || has(optional, field)) continue;
    const allowed = fieldsOf(k);
    err(field, `is not a field of a ${k} line (fields: ${[...allowed.required, ...allowed.optional.map((f) => `${f}?`)].join(', ')})`);
  }
  if (errors.length) return { ok: false, line, errors };
  return { ok: true, line, value: raw as unknown as TableLogLine };
}

function checkBets(v: unknown, err: (field: string | null, message: string) => void): void {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_BETS_PER_LINE) {
    err('bets', `must be a list of 1–${MAX_BETS_PER_LINE} bets, got ${Array.isArray(v) ? `${v.length} items` : show(v)}`);
    return;
  }
  v.forEach((b, i) => {
    if (!isPlainObject(b)) {
      err(`bets[${i}]`, `must be an object { ${API_BET_FIELDS.join(', ')} }, got ${show(b)}`);
      return;
    }
    for (const [field, check] of Object.entries(BET_FIELDS)) {
      if (!has(b, field)) err(`bets[${i}].${field}`, 'is required');
      else {
        const m = check(b[field]);
        if (m) err(`bets[${i}].${field}`, m);
      }
    }
    for (const field of Object.keys(b)) if (!has(BET_FIELDS, field)) err(`bets[${i}].${field}`, `is not a field of a bet (${API_BET_FIELDS.join(', ')})`);
  });
}

function checkCards(v: unknown, err: (field: string | null, message: string) => void): void {
  if (!Array.isArray(v) || v.length < 4 || v.length > 6) {
    err('cards', `must be the round's 4–6 cards in dealing order, got ${show(v)}`);
    return;
  }
  v.forEach((c, i) => {
    const m = cardCheck(c);
    if (m) err(`cards[${i}]`, m);
  });
}

/**
 * Parses and validates one line of text.
 * @returns null for a blank line (whitespace only: skipped, but it keeps its number), else the result
 */
export function parseTableLogLine(text: string, line: number): TableLogLineResult | null {
  const t = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (t.trim() === '') return null;
  let raw: unknown;
  try {
    raw = JSON.parse(t);
  } catch (e) {
    return { ok: false, line, errors: [{ line, kind: null, field: null, message: `is not valid JSON (${(e as Error).message})` }] };
  }
  return validateTableLogLine(raw, line);
}

/** A whole log: the valid lines in file order, and every problem of the others. */
export interface ParsedTableLog {
  readonly lines: NumberedTableLogLine[];
  readonly errors: TableLogError[];
  /** Lines that had at least one error. */
  readonly badLines: number;
}

/** Parses and validates a whole JSONL text (line numbers are 1-based physical lines). */
export function parseTableLog(text: string): ParsedTableLog {
  const lines: NumberedTableLogLine[] = [];
  const errors: TableLogError[] = [];
  let badLines = 0;
  const rows = text.split('\n');
  if (rows.length && rows[rows.length - 1] === '') rows.pop();
  rows.forEach((row, i) => {
    const r = parseTableLogLine(row, i + 1);
    if (!r) return;
    if (r.ok) lines.push({ line: r.line, value: r.value });
    else {
      badLines++;
      errors.push(...r.errors);
    }
  });
  return { lines, errors, badLines };
}

/** `line 12 (deal): card: must be a card like "9S" …` */
export function formatTableLogError(e: TableLogError): string {
  return `line ${e.line}${e.kind ? ` (${e.kind})` : ''}: ${e.field ? `${e.field}: ` : ''}${e.message}`;
}
