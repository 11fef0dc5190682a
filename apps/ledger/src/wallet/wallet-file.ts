import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { parse as parseCsv, CsvError } from 'csv-parse';
import { isIsoTime } from '../kernel/query.dto';
import { WALLET_TXN_TYPES, type WalletTxnType } from '../kernel/as-of/wallet-transactions';

/**
 * Reading a wallet transaction file (docs/reports.md §4): CSV (`text/csv`, with a header line) or
 * JSONL (`application/x-ndjson`, one JSON object a line), UTF-8, parsed as a stream. Every row is
 * checked; a bad row is reported with its line number (never dropped), and a file with any bad row
 * is refused as a whole by the caller.
 */

/** The fields of a wallet transaction, as the matcher knows them. */
export const WALLET_FIELDS = ['transactionId', 'roundId', 'betId', 'accountId', 'type', 'amount', 'currency', 'time'] as const;
export type WalletField = (typeof WALLET_FIELDS)[number];
/** Fields every row must have; the others are compared when given. */
export const REQUIRED_WALLET_FIELDS: readonly WalletField[] = ['transactionId', 'type', 'amount', 'currency', 'time'];

/** The file's column (CSV header) or key (JSONL) of each field; by default the field's own name. */
export type ColumnMap = Readonly<Record<WalletField, string>>;

/** A column name a mapping may give: 1..64 characters, letters, digits, space, `_ . -`. */
export const COLUMN_NAME = /^[A-Za-z0-9_ .-]{1,64}$/;

/** The mapping with `overrides` (field → column) over the defaults. Two fields may not share a column. */
export function columnMap(overrides: Partial<Record<WalletField, string>> = {}): { map: ColumnMap; problems: string[] } {
  const map = Object.fromEntries(WALLET_FIELDS.map((f) => [f, overrides[f] ?? f])) as Record<WalletField, string>;
  const problems: string[] = [];
  const seen = new Map<string, WalletField>();
  for (const f of WALLET_FIELDS) {
    if (!COLUMN_NAME.test(map[f])) problems.push(`map.${f}: a column name is 1..64 of A-Z a-z 0-9 space _ . -`);
    const other = seen.get(map[f]);
    if (other) problems.push(`map.${f}: column ${map[f]} is already mapped to ${other}`);
    seen.set(map[f], f);
  }
  return { map, problems };
}

/** One checked row of a wallet file. */
export interface WalletRow {
  /** 1-based line of the file where the row is (CSV: where its record ends). */
  readonly line: number;
  readonly transactionId: string;
  readonly roundId: string | null;
  readonly betId: string | null;
  readonly accountId: string | null;
  readonly type: WalletTxnType;
  /** Signed minor units (docs/reports.md §4: a bet's stake is positive). */
  readonly amount: bigint;
  readonly currency: string;
  /** ISO-8601 with `Z` or an offset. */
  readonly time: string;
}

/** A bad row or line. */
export interface FileProblem {
  readonly line: number;
  readonly problem: string;
}

/** What {@link readWalletFile} read. */
export interface WalletFile {
  readonly rows: WalletRow[];
  readonly problems: FileProblem[];
  /** Bytes read. */
  readonly bytes: number;
  /** Problems beyond those kept in `problems` ({@link MAX_PROBLEMS}). */
  readonly moreProblems: number;
}

/** Most problems a refusal lists (the count says how many there were). */
export const MAX_PROBLEMS = 100;
/** Longest id (transaction, round, bet, account) a row may carry. */
export const MAX_ID_LENGTH = 200;
/** Integer minor units: an optional minus, no leading zero, no fraction, no exponent, at most 18 digits. */
const MINOR = /^-?(0|[1-9]\d{0,17})$/;
/** An ISO-8601 time that names its offset (`Z` or `±HH:MM`): a wallet's time without one is ambiguous. */
const ZONED_TIME = /(?:Z|[+-]\d{2}:?\d{2})$/;

/** The file formats, by Content-Type. */
export type WalletFileFormat = 'csv' | 'jsonl';

/**
 * The format of a Content-Type, or null when it is none of `text/csv`, `application/x-ndjson`
 * (also `application/jsonl`) in UTF-8 (no charset parameter, or `utf-8`).
 */
export function walletFileFormat(contentType: string | undefined): WalletFileFormat | null {
  if (!contentType) return null;
  const [type, ...params] = contentType.split(';').map((p) => p.trim().toLowerCase());
  for (const p of params) {
    const [k, v] = p.split('=').map((x) => x.trim().replace(/^"|"$/g, ''));
    if (k === 'charset' && v !== 'utf-8' && v !== 'utf8') return null;
  }
  if (type === 'text/csv') return 'csv';
  if (type === 'application/x-ndjson' || type === 'application/jsonl') return 'jsonl';
  return null;
}

/** Raised when the body is over its limit while it is read. */
export class FileTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the wallet file is over ${limitBytes} bytes`);
  }
}

/**
 * Checks one record (the file's values by column) into a {@link WalletRow}, or the problems of it.
 * Values must be strings (JSONL: a number is refused, it may have passed through floating point).
 */
export function checkRow(line: number, record: Readonly<Record<string, unknown>>, map: ColumnMap): { row?: WalletRow; problems: string[] } {
  const problems: string[] = [];
  const value = (f: WalletField): string | null => {
    const v = record[map[f]];
    if (v === undefined || v === null || v === '') {
      if (REQUIRED_WALLET_FIELDS.includes(f)) problems.push(`${map[f]} (${f}) is missing`);
      return null;
    }
    if (typeof v !== 'string') {
      problems.push(`${map[f]} (${f}) must be a string${f === 'amount' ? ' of integer minor units (a JSON number could have passed through floating point)' : ''}`);
      return null;
    }
    return v;
  };
  const id = (f: WalletField): string | null => {
    const v = value(f);
    if (v !== null && (v.length > MAX_ID_LENGTH || /[\u0000-\u001f]/.test(v))) {
      problems.push(`${map[f]} (${f}) is over ${MAX_ID_LENGTH} characters or holds a control character`);
      return null;
    }
    return v;
  };
  const transactionId = id('transactionId');
  const roundId = id('roundId');
  const betId = id('betId');
  const accountId = id('accountId');
  const typeText = value('type');
  const type = typeText === null ? null : (WALLET_TXN_TYPES.find((t) => t === typeText.toLowerCase()) ?? null);
  if (typeText !== null && type === null) problems.push(`${map.type} (type) must be bet, win or refund, not ${JSON.stringify(typeText.slice(0, 20))}`);
  const amountText = value('amount');
  if (amountText !== null && !MINOR.test(amountText)) problems.push(`${map.amount} (amount) must be integer minor units (e.g. 2500 for 25.00), not ${JSON.stringify(amountText.slice(0, 30))}`);
  const currency = value('currency');
  if (currency !== null && !/^[A-Z]{3}$/.test(currency)) problems.push(`${map.currency} (currency) must be an ISO 4217 code like EUR`);
  const time = value('time');
  if (time !== null && !(isIsoTime(time) && ZONED_TIME.test(time) && time.includes('T'))) problems.push(`${map.time} (time) must be an ISO-8601 time with Z or an offset`);
  if (problems.length) return { problems };
  return {
    row: { line, transactionId: transactionId!, roundId, betId, accountId, type: type!, amount: BigInt(amountText!), currency: currency!, time: new Date(Date.parse(time!)).toISOString() },
    problems,
  };
}

/** Counts the bytes of a stream and fails it past `limit`. */
function limited(body: Readable, limit: number, counter: { bytes: number }): Readable {
  const out = new Readable({ read() {} });
  body.on('data', (chunk: Buffer) => {
    counter.bytes += chunk.length;
    if (counter.bytes > limit) {
      body.pause();
      out.destroy(new FileTooLargeError(limit));
      return;
    }
    out.push(chunk);
  });
  body.on('end', () => out.push(null));
  body.on('error', (e) => out.destroy(e));
  return out;
}

/**
 * Reads a wallet file from `body` as a stream: CSV with `csv-parse` (a header line names the
 * columns; BOM skipped; empty lines skipped; a record with another number of fields than the header
 * is a problem of its line), JSONL line by line (`node:readline`; empty lines skipped; every other
 * line one JSON object). Each record is checked with {@link checkRow}.
 * @param limitBytes the most bytes read; past it the read fails with {@link FileTooLargeError}
 * @throws FileTooLargeError; the body stream's own errors
 */
export async function readWalletFile(body: Readable, format: WalletFileFormat, map: ColumnMap, limitBytes: number): Promise<WalletFile> {
  const counter = { bytes: 0 };
  const input = limited(body, limitBytes, counter);
  const rows: WalletRow[] = [];
  const problems: FileProblem[] = [];
  let more = 0;
  const problem = (line: number, p: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ line, problem: p });
    else more++;
  };
  const take = (line: number, record: Record<string, unknown>) => {
    const r = checkRow(line, record, map);
    if (r.row) rows.push(r.row);
    else for (const p of r.problems) problem(line, p);
  };
  if (format === 'csv') {
    // raw records (arrays): the header and each record's field count are checked here, so a short
    // record is a problem of its line and the parse goes on (relax_column_count)
    const parser = input.pipe(parseCsv({ bom: true, skip_empty_lines: true, relax_column_count: true, info: true, max_record_size: 64 * 1024 }));
    input.on('error', (e) => parser.destroy(e));
    try {
      let header: string[] | null = null;
      for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
        if (header === null) {
          header = checkHeader(record, map, (p) => problem(info.lines, p));
          continue;
        }
        if (record.length !== header.length) {
          problem(info.lines, `the record has ${record.length} field(s), the header ${header.length}`);
          continue;
        }
        const cols = header;
        take(info.lines, Object.fromEntries(record.map((v, i) => [cols[i], v])));
      }
    } catch (e) {
      if (e instanceof FileTooLargeError) throw e;
      if (e instanceof CsvError) problem(Number((e as CsvError & { lines?: number }).lines ?? 0), `not CSV: ${e.message.slice(0, 200)}`);
      else throw e;
    }
  } else {
    const lines = createInterface({ input, crlfDelay: Infinity });
    let n = 0;
    const failed = new Promise<never>((_, reject) => input.on('error', reject));
    failed.catch(() => undefined);
    const read = (async () => {
      for await (const text of lines) {
        n++;
        const t = n === 1 ? text.replace(/^\uFEFF/, '') : text;
        if (t.trim() === '') continue;
        let v: unknown;
        try {
          v = JSON.parse(t);
        } catch {
          problem(n, 'not a JSON object');
          continue;
        }
        if (typeof v !== 'object' || v === null || Array.isArray(v)) problem(n, 'not a JSON object');
        else take(n, v as Record<string, unknown>);
      }
    })();
    await Promise.race([read, failed]);
  }
  return { rows, problems, bytes: counter.bytes, moreProblems: more };
}

/** The CSV header: every required field's column must be there, each column once. Returns the columns. */
function checkHeader(header: string[], map: ColumnMap, problem: (p: string) => void): string[] {
  const cols = header.map((h) => h.trim());
  for (const f of REQUIRED_WALLET_FIELDS) if (!cols.includes(map[f])) problem(`the header has no column ${map[f]} (${f})`);
  if (new Set(cols).size !== cols.length) problem('the header names a column twice');
  return cols;
}
