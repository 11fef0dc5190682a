import { createHash, verify, type KeyObject } from 'node:crypto';
import { RECEIPT_SEAL_FORMAT, signedBytes } from '@ledger/anchors';
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

/** Who asked for an export, as its receipt records it. */
export interface ReceiptActor {
  readonly actorId: string;
  readonly actorRole: string;
}

/**
 * The body a receipt's seal signs (docs/reports.md §5, "The bundle"): `receipt`
 * `baccarat-ledger-export-receipt/1`, the receipt's id, who asked (`actorId`) and what was sent
 * (kind, format, period, positions, header, rows, bytes, SHA-256) — the signing kind
 * `export-receipt` of the report signer.
 */
export function receiptSealBody(r: ExportReceipt & Pick<ReceiptActor, 'actorId'>): Record<string, unknown> {
  return {
    receipt: RECEIPT_SEAL_FORMAT,
    id: r.id,
    actorId: r.actorId,
    kind: r.kind,
    format: r.format,
    period: r.period,
    positions: r.positions,
    header: r.header,
    rows: r.rows,
    bytes: r.bytes,
    sha256: r.sha256,
  };
}

/** A receipt's seal: the report key's signature of {@link receiptSealBody}, or null when no key could sign. */
export interface ReceiptSeal {
  readonly signature: string;
  readonly keyId: string;
}

/** Records a receipt with its seal (as the API's login: INSERT only, the table is append-only). */
export async function recordReceipt(q: Queryable, r: ExportReceipt & ReceiptActor & { readonly seal: ReceiptSeal | null }): Promise<void> {
  await exec(
    q,
    `INSERT INTO export_receipts (id, actor_id, actor_role, kind, format, period_from, period_to, positions, header, rows, bytes, sha256, seal, seal_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [r.id, r.actorId, r.actorRole, r.kind, r.format, r.period.from, r.period.to, JSON.stringify(r.positions), JSON.stringify(r.header), r.rows, r.bytes, r.sha256, r.seal?.signature ?? null, r.seal?.keyId ?? null],
  );
}

interface ReceiptRow {
  id: string;
  actor_id: string;
  kind: string;
  format: 'jsonl' | 'csv';
  period_from: string;
  period_to: string;
  positions: string;
  header: string;
  rows: string;
  bytes: string;
  sha256: string;
  seal: string | null;
  seal_key_id: string | null;
}

/** A stored receipt with who asked for it and its seal (null: none). */
export type StoredReceipt = ExportReceipt & { readonly actorId: string; readonly seal: ReceiptSeal | null };

/**
 * The receipts of `ids` that exist (UUIDs; any order, each once), with who asked and their seals.
 * @throws Error when a stored receipt names a kind that is no export kind (a row not written by the API)
 */
export async function loadReceipts(q: Queryable, ids: readonly string[]): Promise<StoredReceipt[]> {
  const found = await rows<ReceiptRow>(
    q,
    `SELECT id::text AS id, actor_id, kind, format, period_from, period_to, positions, header, rows::text AS rows, bytes::text AS bytes, sha256, seal, seal_key_id
       FROM export_receipts WHERE id = ANY($1::uuid[]) ORDER BY at, id`,
    [[...new Set(ids)]],
  );
  return found.map((r) => {
    if (!isExportKind(r.kind)) throw new Error(`export receipt ${r.id} names no export kind: ${r.kind}`);
    return {
      id: r.id,
      actorId: r.actor_id,
      kind: r.kind,
      format: r.format,
      period: { from: r.period_from, to: r.period_to },
      positions: JSON.parse(r.positions) as ExportPositions,
      header: JSON.parse(r.header) as ReportHeader,
      rows: Number(r.rows),
      bytes: Number(r.bytes),
      sha256: r.sha256,
      seal: r.seal !== null && r.seal_key_id !== null ? { signature: r.seal, keyId: r.seal_key_id } : null,
    };
  });
}

/**
 * Whether a stored receipt's seal verifies: sealed with the key `keyId` (the report key now) and its
 * signature valid over {@link receiptSealBody} of the stored row. False for a receipt without a seal,
 * sealed with another key, or whose row differs in any sealed field from what was sealed.
 */
export function sealVerifies(r: StoredReceipt, key: { readonly keyId: string; readonly publicKey: KeyObject }): boolean {
  if (!r.seal || r.seal.keyId !== key.keyId) return false;
  try {
    return verify(null, signedBytes(receiptSealBody(r)), key.publicKey, Buffer.from(r.seal.signature, 'base64'));
  } catch {
    return false;
  }
}
