import { stringify, type Options } from 'csv-stringify/sync';

/** The content type of every CSV answer of the API. */
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

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
 * the response and returns the rows as RFC 4180 CSV, a line of the column names first.
 * @param cast how csv-stringify writes values of a type (e.g. booleans as `true`/`false`)
 */
export function csvAnswer(res: HeaderSink, filename: string, rows: readonly object[], columns: readonly string[], cast?: Options['cast']): string {
  attachment(res, CSV_CONTENT_TYPE, filename);
  return stringify(rows as object[], { header: true, columns: [...columns], ...(cast ? { cast } : {}) });
}
