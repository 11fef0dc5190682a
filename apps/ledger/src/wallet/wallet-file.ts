import { createInterface } from 'node:readline';
import { Transform, type Readable } from 'node:stream';
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

/** Raised when a file holds more rows than its limit, as soon as the first row over it is read. */
export class TooManyRowsError extends Error {
  constructor(readonly limitRows: number) {
    super(`the wallet file has more than ${limitRows} rows`);
  }
}

/** Checked rows {@link WalletFileReader.chunks} hands over at once, at most (the default of `chunkRows`). */
export const WALLET_ROW_CHUNK = 1000;

/** What {@link readWalletFile} and {@link WalletFileReader} read, and their bounds. */
export interface ReadWalletFileOptions {
  readonly format: WalletFileFormat;
  readonly map: ColumnMap;
  /** The most bytes read; past it the read fails with {@link FileTooLargeError}. */
  readonly limitBytes: number;
  /** The most records (rows, good or bad) the file may hold; at the first one over it the read stops with {@link TooManyRowsError}. */
  readonly limitRows: number;
  /** The most checked rows one chunk holds (default {@link WALLET_ROW_CHUNK}). */
  readonly chunkRows?: number;
}

/** One record of the file before it is checked: its values by column, or what is wrong with its line. */
type RawRecord = { readonly line: number; readonly record: Record<string, unknown> } | { readonly line: number; readonly problem: string };

/** Counts the bytes going through and fails past `limit`; backpressure passes through (a Transform). */
function limited(limit: number, counter: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      counter.bytes += chunk.length;
      if (counter.bytes > limit) cb(new FileTooLargeError(limit));
      else cb(null, chunk);
    },
  });
}

/**
 * Reads a wallet file from a stream in bounded chunks: CSV with `csv-parse` (a header line names the
 * columns; BOM skipped; empty lines skipped; a record with another number of fields than the header
 * is a problem of its line), JSONL line by line (`node:readline`; empty lines skipped; every other
 * line one JSON object). Each record is checked with {@link checkRow}. The stream is read only as
 * fast as the chunks are taken (backpressure), so the reader itself holds at most one chunk of rows
 * (`chunkRows`) plus the streams' buffers; it stops reading at the first byte over `limitBytes` and
 * at the first record over `limitRows`. Problems are kept here (at most {@link MAX_PROBLEMS}).
 */
export class WalletFileReader {
  /** The first {@link MAX_PROBLEMS} problems. */
  readonly problems: FileProblem[] = [];
  /** Problems beyond those kept. */
  moreProblems = 0;
  /** Records read so far (good and bad; the CSV header is none). */
  records = 0;
  private readonly counter = { bytes: 0 };

  constructor(
    private readonly body: Readable,
    private readonly o: ReadWalletFileOptions,
  ) {}

  /** Bytes read so far. */
  get bytes(): number {
    return this.counter.bytes;
  }

  /**
   * The checked rows, in file order, in chunks of at most `chunkRows`.
   * @throws FileTooLargeError, TooManyRowsError; the body stream's own errors
   */
  async *chunks(): AsyncGenerator<WalletRow[]> {
    const size = Math.max(1, this.o.chunkRows ?? WALLET_ROW_CHUNK);
    const input = limited(this.o.limitBytes, this.counter);
    this.body.on('error', (e) => input.destroy(e));
    this.body.pipe(input);
    let chunk: WalletRow[] = [];
    try {
      for await (const r of this.o.format === 'csv' ? this.csvRecords(input) : this.jsonlRecords(input)) {
        if (++this.records > this.o.limitRows) throw new TooManyRowsError(this.o.limitRows);
        if ('problem' in r) {
          this.problem(r.line, r.problem);
          continue;
        }
        const checked = checkRow(r.line, r.record, this.o.map);
        if (checked.row) chunk.push(checked.row);
        else for (const p of checked.problems) this.problem(r.line, p);
        if (chunk.length >= size) {
          yield chunk;
          chunk = [];
        }
      }
      if (chunk.length) yield chunk;
      if (this.counter.bytes === 0) this.problem(1, 'the file is empty (0 bytes): a wallet file has a header line (CSV) or one transaction a line (JSONL)');
    } finally {
      // whatever ended the read: no byte more is read from the body
      // (its error listener stays: an error of the body after the read, a client gone, must not go unhandled)
      this.body.unpipe(input);
      this.body.pause();
      input.destroy();
    }
  }

  private problem(line: number, p: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push({ line, problem: p });
    else this.moreProblems++;
  }

  /** The CSV's records by column; the header and each record's field count are checked here (relax_column_count: a short record is a problem of its line and the parse goes on). */
  private async *csvRecords(input: Readable): AsyncGenerator<RawRecord> {
    const parser = input.pipe(parseCsv({ bom: true, skip_empty_lines: true, relax_column_count: true, info: true, max_record_size: 64 * 1024 }));
    input.on('error', (e) => parser.destroy(e));
    let header: string[] | null = null;
    try {
      for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
        if (header === null) {
          header = checkHeader(record, this.o.map, (p) => this.problem(info.lines, p));
          continue;
        }
        if (record.length !== header.length) {
          yield { line: info.lines, problem: `the record has ${record.length} field(s), the header ${header.length}` };
          continue;
        }
        const cols = header;
        yield { line: info.lines, record: Object.fromEntries(record.map((v, i) => [cols[i], v])) };
      }
      if (header === null && this.counter.bytes > 0) this.problem(1, 'the file has no header line');
    } catch (e) {
      if (!(e instanceof CsvError)) throw e;
      this.problem(Number((e as CsvError & { lines?: number }).lines ?? 0), `not CSV: ${e.message.slice(0, 200)}`);
    } finally {
      parser.destroy();
    }
  }

  /** The JSONL's objects, one a line; readline does not pass the input's errors on, so each line is raced against them. */
  private async *jsonlRecords(input: Readable): AsyncGenerator<RawRecord> {
    const lines = createInterface({ input, crlfDelay: Infinity });
    const failed = new Promise<never>((_, reject) => input.on('error', reject));
    failed.catch(() => undefined);
    const it = lines[Symbol.asyncIterator]();
    let n = 0;
    try {
      for (;;) {
        const next = await Promise.race([it.next(), failed]);
        if (next.done) return;
        n++;
        const t = n === 1 ? next.value.replace(/^\uFEFF/, '') : next.value;
        if (t.trim() === '') continue;
        let v: unknown;
        try {
          v = JSON.parse(t);
        } catch {
          yield { line: n, problem: 'not a JSON object' };
          continue;
        }
        if (typeof v !== 'object' || v === null || Array.isArray(v)) yield { line: n, problem: 'not a JSON object' };
        else yield { line: n, record: v as Record<string, unknown> };
      }
    } finally {
      lines.close();
    }
  }
}

/**
 * Reads a whole wallet file ({@link WalletFileReader}): its rows (at most `limitRows`, so at most
 * that many held in memory, whatever the file's size), its problems and its size.
 * @throws FileTooLargeError, TooManyRowsError; the body stream's own errors
 */
export async function readWalletFile(body: Readable, o: ReadWalletFileOptions): Promise<WalletFile> {
  const reader = new WalletFileReader(body, o);
  const rows: WalletRow[] = [];
  for await (const chunk of reader.chunks()) for (const r of chunk) rows.push(r);
  return { rows, problems: reader.problems, bytes: reader.bytes, moreProblems: reader.moreProblems };
}

/** The CSV header: every required field's column must be there, each column once. Returns the columns. */
function checkHeader(header: string[], map: ColumnMap, problem: (p: string) => void): string[] {
  const cols = header.map((h) => h.trim());
  for (const f of REQUIRED_WALLET_FIELDS) if (!cols.includes(map[f])) problem(`the header has no column ${map[f]} (${f})`);
  if (new Set(cols).size !== cols.length) problem('the header names a column twice');
  return cols;
}
