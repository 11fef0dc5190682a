import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { NumberedTableLogLine, parseTableLogLine, TableLogError } from '@ledger/table-log';

/** Hex characters of the file's SHA-256 used in idempotency keys (`<prefix>:<line>`). */
export const HASH_PREFIX_LENGTH = 16;

/** A table-log file read and validated, ready to send. */
export interface LoadedTableLog {
  readonly file: string;
  /** SHA-256 of the file's bytes, hex. */
  readonly sha256: string;
  /** The first {@link HASH_PREFIX_LENGTH} hex characters of `sha256`. */
  readonly hashPrefix: string;
  /** Physical lines in the file (blank ones included). */
  readonly totalLines: number;
  /** The valid lines, in file order. */
  readonly lines: NumberedTableLogLine[];
  /** Every problem of every bad line, in file order. */
  readonly errors: TableLogError[];
  /** Lines with at least one problem. */
  readonly badLines: number;
}

/**
 * Streams a table-log file once: hashes its bytes and parses and validates every line.
 * Holds the valid lines in memory (about 1 KB per hand of a converted log).
 * @throws Error when the file cannot be read
 */
export async function loadTableLog(file: string): Promise<LoadedTableLog> {
  const hash = createHash('sha256');
  const input = createReadStream(file);
  input.on('data', (chunk) => hash.update(chunk));
  const rl = createInterface({ input, crlfDelay: Infinity });
  const lines: NumberedTableLogLine[] = [];
  const errors: TableLogError[] = [];
  let n = 0;
  let badLines = 0;
  for await (const text of rl) {
    n++;
    const r = parseTableLogLine(text, n);
    if (!r) continue;
    if (r.ok) lines.push({ line: r.line, value: r.value });
    else {
      badLines++;
      errors.push(...r.errors);
    }
  }
  const sha256 = hash.digest('hex');
  return { file, sha256, hashPrefix: sha256.slice(0, HASH_PREFIX_LENGTH), totalLines: n, lines, errors, badLines };
}

/** The `Idempotency-Key` of a line: `<file hash prefix>:<line number>`. */
export function idempotencyKeyOf(hashPrefix: string, line: number): string {
  return `${hashPrefix}:${line}`;
}

/** The `Idempotency-Key` of a decision line's approval (its second request): `<file hash prefix>:<line number>:approve`. */
export function approvalKeyOf(hashPrefix: string, line: number): string {
  return `${idempotencyKeyOf(hashPrefix, line)}:approve`;
}
