import { stringify, type Options, type Stringifier } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';

/**
 * Every CSV the API writes (docs/reports.md §8): RFC 4180 through csv-stringify, with every field
 * made safe for spreadsheets by {@link neutraliseCsvField}. The report answers (`format=csv`), the
 * exports, the wallet items and the close all write through {@link csvText} or {@link csvStream};
 * no other file imports csv-stringify (a layer rule, `.dependency-cruiser.cjs`).
 */

/** The content type of every CSV answer of the API. */
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/** A field a spreadsheet would read as a formula (`= + - @`, tab, CR), or one that starts with the `'` the neutralising adds. */
const NEEDS_MARK = /^[=+\-@\t\r']/;
/** A plain number: an optional minus, digits, an optional fraction and exponent (`-150`, `-0.079536`, `-1.5e-7`). */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/**
 * The spreadsheet-safe form of one CSV field (OWASP "CSV injection"; docs/reports.md §8): a field
 * that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets one leading `'`, so that a
 * spreadsheet shows it as text instead of running it as a formula (`=HYPERLINK(…)`, `+cmd|…`,
 * `@SUM(1)`, `-2+3`). Two exceptions and one addition:
 * - a **plain number** (`-150` minor units, a hold of `-0.079536`, `-1.5e-7`) is left as it is: a
 *   spreadsheet reads it as that number, and it cannot hold a formula;
 * - a field that already starts with `'` gets one more, so the mark is never ambiguous: a reader
 *   drops exactly one leading `'` of any field that has one ({@link csvFieldValue}) and has the
 *   value back, byte for byte (the export verifier does, to recompute the events' hashes).
 */
export function neutraliseCsvField(value: string): string {
  return NEEDS_MARK.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/** The value a field of a CSV of the API stands for: the field without the one leading `'` {@link neutraliseCsvField} adds. */
export function csvFieldValue(field: string): string {
  return field.startsWith("'") ? field.slice(1) : field;
}

type Cast = NonNullable<Options['cast']>;
type CastValue = ReturnType<NonNullable<Cast['string']>>;

/** csv-stringify's own cast of each type (its defaults, `normalize_options`), so that only the neutralising is added. */
const DEFAULT_CASTS = {
  bigint: (v: bigint) => String(v),
  boolean: (v: boolean) => (v ? '1' : ''),
  date: (v: Date) => String(v.getTime()),
  number: (v: number) => String(v),
  object: (v: object) => JSON.stringify(v),
  string: (v: string) => v,
} as const;

/** The cast's result, neutralised (a string, or the `value` of a result with options). */
function neutralised(out: CastValue): CastValue {
  if (typeof out === 'string') return neutraliseCsvField(out);
  if (out && typeof out === 'object' && typeof out.value === 'string') return { ...out, value: neutraliseCsvField(out.value) };
  return out;
}

/**
 * A field holding `;` is quoted, though RFC 4180 needs no quotes for it: a spreadsheet in a locale
 * whose list separator is `;` would otherwise split `acc;=1+1` into a second cell that starts with
 * `=` and is run as a formula (docs/reports.md §8).
 */
const QUOTED_FOR_OTHER_SEPARATORS = /;/;

/**
 * The csv-stringify options of every CSV of the API: `columns` (and a header line of them unless
 * `header` is false), each type cast as `cast` says (csv-stringify's default otherwise, e.g.
 * booleans `1` and empty) and then neutralised ({@link neutraliseCsvField}); a field with `;` quoted
 * ({@link QUOTED_FOR_OTHER_SEPARATORS}).
 */
export function csvOptions(o: { columns?: readonly string[]; header?: boolean; cast?: Options['cast'] } = {}): Options {
  const own = o.cast ?? {};
  const cast: Cast = {
    bigint: (v, c) => neutralised((own.bigint ?? DEFAULT_CASTS.bigint)(v, c)),
    boolean: (v, c) => neutralised((own.boolean ?? DEFAULT_CASTS.boolean)(v, c)),
    date: (v, c) => neutralised((own.date ?? DEFAULT_CASTS.date)(v, c)),
    number: (v, c) => neutralised((own.number ?? DEFAULT_CASTS.number)(v, c)),
    object: (v, c) => neutralised((own.object ?? DEFAULT_CASTS.object)(v, c)),
    string: (v, c) => neutralised((own.string ?? DEFAULT_CASTS.string)(v, c)),
  };
  return { ...(o.columns ? { columns: [...o.columns], header: o.header ?? true } : { header: o.header ?? false }), cast, quoted_match: QUOTED_FOR_OTHER_SEPARATORS };
}

/**
 * Records as CSV text ({@link csvOptions}): objects by `columns`, or arrays of fields in order.
 * @returns RFC 4180 CSV, one line per record (a line of the column names first when `header`)
 */
export function csvText(records: readonly object[], o: { columns?: readonly string[]; header?: boolean; cast?: Options['cast'] } = {}): string {
  return stringifySync(records as object[], csvOptions(o));
}

/** A csv-stringify stream of records ({@link csvOptions}), for a CSV answered as a stream (the wallet items). */
export function csvStream(o: { columns: readonly string[]; header?: boolean; cast?: Options['cast'] }): Stringifier {
  return stringify(csvOptions(o));
}

/** What headers are set on: an Express response, or an export's streaming sink. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/** Marks an answer as a download: its `content-type`, and `content-disposition: attachment; filename="<filename>"`. */
export function attachment(res: HeaderSink, contentType: string, filename: string): void {
  res.setHeader('content-type', contentType);
  res.setHeader('content-disposition', `attachment; filename="${filename}"`);
}

/**
 * The CSV answer of a report route (`format=csv`): sets `text/csv` and the attachment `filename` on
 * the response and returns the rows as RFC 4180 CSV, a line of the column names first, every field
 * neutralised for spreadsheets ({@link csvText}, docs/reports.md §8).
 * @param cast how csv-stringify writes values of a type (e.g. booleans as `true`/`false`)
 */
export function csvAnswer(res: HeaderSink, filename: string, rows: readonly object[], columns: readonly string[], cast?: Options['cast']): string {
  attachment(res, CSV_CONTENT_TYPE, filename);
  return csvText(rows, { columns, cast });
}
