import { createHash } from 'node:crypto';
import type { ReportHeader } from '../kernel/report-header';
import { exec, rows, type Queryable } from '../kernel/sql';
import { isExportKind, type ExportPositions } from './export-kinds';
import type { ExportReceipt } from './export-manifest';

/**
 * The exports' receipts (`export_receipts`, docs/reports.md §5, "The bundle"): what the API counted
 * and hashed of each export it sent, recorded after its last byte; `GET /exports/manifest` signs a
 * bundle from them.
 */

/** The response an export writes into, as far as the receipt needs it (an Express response fits). */
export interface WritableSink {
  write(chunk: string): boolean;
}

/** The SHA-256 and size of everything written through {@link tally}. */
export interface Tally {
  /** Bytes written so far (UTF-8). */
  bytes(): number;
  /** SHA-256 of the bytes written so far, 64 lower-case hex (call once, at the end). */
  sha256(): string;
}

/**
 * `sink` with its `write` counted and hashed (UTF-8, as the response encodes a string); every other
 * member is the sink's own. @returns the wrapped sink and its tally
 */
export function tally<S extends WritableSink>(sink: S): { sink: S; tally: Tally } {
  const hash = createHash('sha256');
  let bytes = 0;
  const write = (chunk: string): boolean => {
    hash.update(chunk, 'utf8');
    bytes += Buffer.byteLength(chunk, 'utf8');
    return sink.write(chunk);
  };
  const wrapped = new Proxy(sink, {
    get: (target, prop) => {
      if (prop === 'write') return write;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { sink: wrapped, tally: { bytes: () => bytes, sha256: () => hash.digest('hex') } };
}

/** Records a receipt (as the API's login: INSERT only, the table is append-only). */
export async function recordReceipt(q: Queryable, r: ExportReceipt & { readonly actorId: string; readonly actorRole: string }): Promise<void> {
  await exec(
    q,
    `INSERT INTO export_receipts (id, actor_id, actor_role, kind, format, period_from, period_to, positions, header, rows, bytes, sha256)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [r.id, r.actorId, r.actorRole, r.kind, r.format, r.period.from, r.period.to, JSON.stringify(r.positions), JSON.stringify(r.header), r.rows, r.bytes, r.sha256],
  );
}

interface ReceiptRow {
  id: string;
  kind: string;
  format: 'jsonl' | 'csv';
  period_from: string;
  period_to: string;
  positions: string;
  header: string;
  rows: string;
  bytes: string;
  sha256: string;
}

/**
 * The receipts of `ids` that exist (UUIDs; any order, each once).
 * @throws Error when a stored receipt names a kind that is no export kind (a row not written by the API)
 */
export async function loadReceipts(q: Queryable, ids: readonly string[]): Promise<ExportReceipt[]> {
  const found = await rows<ReceiptRow>(
    q,
    `SELECT id::text AS id, kind, format, period_from, period_to, positions, header, rows::text AS rows, bytes::text AS bytes, sha256 FROM export_receipts WHERE id = ANY($1::uuid[]) ORDER BY at, id`,
    [[...new Set(ids)]],
  );
  return found.map((r) => {
    if (!isExportKind(r.kind)) throw new Error(`export receipt ${r.id} names no export kind: ${r.kind}`);
    return {
      id: r.id,
      kind: r.kind,
      format: r.format,
      period: { from: r.period_from, to: r.period_to },
      positions: JSON.parse(r.positions) as ExportPositions,
      header: JSON.parse(r.header) as ReportHeader,
      rows: Number(r.rows),
      bytes: Number(r.bytes),
      sha256: r.sha256,
    };
  });
}
