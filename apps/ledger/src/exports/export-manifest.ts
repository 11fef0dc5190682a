import type { SignedAnchor } from '@ledger/anchors';
import type { ReportHeader } from '../kernel/report-header';
import type { ExportKind, ExportPositions } from './export-kinds';

/**
 * The pure parts of an export bundle (docs/reports.md §5): which signed checkpoints the events of a
 * period verify against, and the bundle's `manifest.json`.
 */

/** `format` of every manifest of this layout. */
export const MANIFEST_FORMAT = 'baccarat-ledger-export/1';

/** The checkpoints an export carries and where its events end. */
export interface AnchorSelection {
  /**
   * In seq order: the last checkpoint before the period's first position (the "base": it bounds the
   * next one's range and may sign the head the first exported event of a stream chains onto), then
   * every checkpoint from the first position up to the first one at or after `periodLast`.
   */
  readonly anchors: SignedAnchor[];
  /** Where the events export ends: the covering checkpoint's position, else `periodLast` (its tail then unanchored). */
  readonly through: string | null;
}

/**
 * Selects the checkpoints of one ledger for the events at positions `first..periodLast` (decimal
 * strings; null: no event in the period, nothing selected). `anchors` may be in any order and hold
 * repeats of a seq (file and topic copies): the first of each seq is kept.
 */
export function selectAnchors(anchors: readonly SignedAnchor[], first: string | null, periodLast: string | null): AnchorSelection {
  if (first === null || periodLast === null) return { anchors: [], through: null };
  const lo = BigInt(first);
  const hi = BigInt(periodLast);
  const bySeq = new Map<number, SignedAnchor>();
  for (const a of anchors) if (!bySeq.has(a.checkpoint.seq)) bySeq.set(a.checkpoint.seq, a);
  const sorted = [...bySeq.values()].sort((a, b) => a.checkpoint.seq - b.checkpoint.seq);
  const gp = (a: SignedAnchor) => BigInt(a.checkpoint.globalPosition);
  const base = [...sorted].reverse().find((a) => gp(a) < lo) ?? null;
  const cover = sorted.find((a) => gp(a) >= hi) ?? null;
  const inside = sorted.filter((a) => gp(a) >= lo && (cover === null || gp(a) <= gp(cover)));
  return { anchors: base ? [base, ...inside] : inside, through: cover ? cover.checkpoint.globalPosition : periodLast };
}

/** One exported file as the manifest lists it. */
export interface ManifestFile {
  /** File name inside the bundle, e.g. `events.jsonl`. */
  readonly name: string;
  readonly kind: ExportKind;
  readonly format: 'jsonl' | 'csv';
  /** Data rows (not the JSONL header and trailer lines, not the CSV header line). */
  readonly rows: number;
  /** Size in bytes. */
  readonly bytes: number;
  /** SHA-256 of the file's bytes, 64 lower-case hex. */
  readonly sha256: string;
  /** The file's own header (the JSONL first line, the CSV's `Ledger-Report-Header` response header). */
  readonly header: ReportHeader;
}

/** `manifest.json` of a bundle. */
export interface ExportManifest {
  readonly format: typeof MANIFEST_FORMAT;
  /** The bundle's header: report `export.bundle`, the period, noActivity when every file is empty. */
  readonly header: ReportHeader;
  /** The ledger the anchors belong to (`checkpoint.ledgerId`). */
  readonly ledgerId: string;
  /** The events file's positions (see {@link ExportPositions}). */
  readonly positions: ExportPositions;
  readonly files: ManifestFile[];
  /** The signed checkpoints the events verify against, as stored (see {@link selectAnchors}). */
  readonly anchors: SignedAnchor[];
  /** The anchors' public key: its id and its PEM (SubjectPublicKeyInfo); also written as `anchor-public.pem`. */
  readonly publicKey: { readonly keyId: string; readonly pem: string } | null;
}

/**
 * Builds a manifest. Files are listed in the order given; their header's `noActivity` decides the
 * bundle's (`true` only when every file has no activity).
 * @throws Error when two files share a name
 */
export function buildManifest(i: {
  header: Omit<ReportHeader, 'noActivity'>;
  ledgerId: string;
  positions: ExportPositions;
  files: readonly ManifestFile[];
  anchors: readonly SignedAnchor[];
  publicKey: { keyId: string; pem: string } | null;
}): ExportManifest {
  const names = new Set<string>();
  for (const f of i.files) {
    if (names.has(f.name)) throw new Error(`two files named ${f.name}`);
    names.add(f.name);
  }
  return {
    format: MANIFEST_FORMAT,
    header: { ...i.header, noActivity: i.files.every((f) => f.header.noActivity) },
    ledgerId: i.ledgerId,
    positions: i.positions,
    files: [...i.files],
    anchors: [...i.anchors],
    publicKey: i.publicKey,
  };
}
