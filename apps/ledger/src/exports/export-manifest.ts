import { sign, type KeyObject } from 'node:crypto';
import { anchorHash, type SignedAnchor } from '@ledger/anchors';
import { canonicalJson } from '@ledger/event-store';
import { reportHeader, type ReportHeader } from '../kernel/report-header';
import { EXPORT_KINDS, type ExportKind, type ExportPositions } from './export-kinds';

/**
 * The pure parts of an export bundle (docs/reports.md §5, "The bundle"): which signed checkpoints
 * the events of a period verify against, whether the exports named make one bundle, and the
 * bundle's signed manifest (`manifest.json`), which `examples/verify-export/verify.mjs` checks first.
 */

/** `format` of every manifest of this layout (the signed part says it too). `/1` was unsigned: verifiers refuse it. */
export const MANIFEST_FORMAT = 'baccarat-ledger-export/2';

/** Layout version of the bundle's own header (`report` `export.bundle`). */
export const BUNDLE_REPORT_VERSION = 2;

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

/**
 * The checkpoints of a bundle whose events file covers `positions`: {@link selectAnchors}, less any
 * checkpoint after `positions.through` (one signed after the events were exported).
 */
export function bundleAnchors(anchors: readonly SignedAnchor[], positions: ExportPositions): SignedAnchor[] {
  if (positions.through === null) return [];
  const through = BigInt(positions.through);
  return selectAnchors(anchors, positions.first, positions.periodLast).anchors.filter((a) => BigInt(a.checkpoint.globalPosition) <= through);
}

/** What the API recorded of one export it streamed to its end (`export_receipts`). */
export interface ExportReceipt {
  /** The receipt's id (UUID), answered in `Ledger-Export-Receipt`. */
  readonly id: string;
  readonly kind: ExportKind;
  readonly format: 'jsonl' | 'csv';
  /** The period as asked (ISO-8601, `from` inclusive, `to` exclusive). */
  readonly period: { readonly from: string; readonly to: string };
  readonly positions: ExportPositions;
  /** The export's report header, as sent. */
  readonly header: ReportHeader;
  /** Data rows sent. */
  readonly rows: number;
  /** Bytes of the body sent. */
  readonly bytes: number;
  /** SHA-256 of the body sent, 64 lower-case hex. */
  readonly sha256: string;
}

/** One file as the signed manifest lists it. */
export interface ManifestFile {
  /** File name inside the bundle: `<kind>.<format>`, e.g. `events.jsonl`. */
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
  /** The export receipt the API recorded when it sent the file. */
  readonly receipt: string;
}

/** A checkpoint as the signed manifest names it: its seq and the SHA-256 of its canonical bytes (the chain's `previousAnchorHash` form). */
export interface ManifestAnchor {
  readonly seq: number;
  readonly hash: string;
}

/** What the API signs: what makes a bundle a bundle. Canonical JSON (RFC 8785) of it is the signed bytes. */
export interface ManifestBody {
  readonly format: typeof MANIFEST_FORMAT;
  /** The bundle's header: report `export.bundle`, the period, noActivity when every file is empty. */
  readonly header: ReportHeader;
  /** The ledger the checkpoints belong to (`checkpoint.ledgerId`). */
  readonly ledgerId: string;
  /** ISO-8601, `from` inclusive, `to` exclusive, as asked. */
  readonly period: { readonly from: string; readonly to: string };
  /** The events file's positions (see {@link ExportPositions}). */
  readonly positions: ExportPositions;
  /** Exactly one file of each kind, in {@link EXPORT_KINDS} order. */
  readonly files: readonly ManifestFile[];
  /** The checkpoints the bundle carries, in seq order (see {@link bundleAnchors}). */
  readonly anchors: readonly ManifestAnchor[];
  /** The id of the key that signs this body (`ed25519:` + 16 hex). */
  readonly keyId: string;
  /** ISO-8601 UTC. */
  readonly signedAt: string;
}

/** `manifest.json` of a bundle, as `GET /exports/manifest` answers it. */
export interface SignedManifest {
  readonly format: typeof MANIFEST_FORMAT;
  /** What is signed. */
  readonly signed: ManifestBody;
  /** Same as `signed.keyId`. */
  readonly keyId: string;
  /** Ed25519 over {@link manifestBytes} of `signed`, standard base64. */
  readonly signature: string;
  /** The checkpoints `signed.anchors` names, as stored (each signed by the anchor key). */
  readonly anchors: readonly SignedAnchor[];
  /** Public keys the API knows (the anchors' and the signing key's): for information only, never a verifier's trust. */
  readonly publicKeys: readonly { readonly keyId: string; readonly pem: string }[];
}

/**
 * Why the exports named do not make one bundle (empty when they do): exactly one of each kind, one
 * period and one format, each header of that period, and the events, settlements and decisions of
 * the same positions (a period still being recorded moves between two exports).
 */
export function bundleProblems(receipts: readonly ExportReceipt[]): string[] {
  const problems: string[] = [];
  for (const kind of EXPORT_KINDS) {
    const n = receipts.filter((r) => r.kind === kind).length;
    if (n !== 1) problems.push(n === 0 ? `no ${kind} export` : `${n} ${kind} exports`);
  }
  const [first] = receipts;
  if (!first) return problems;
  if (receipts.some((r) => r.period.from !== first.period.from || r.period.to !== first.period.to)) problems.push('exports of different periods');
  if (receipts.some((r) => r.format !== first.format)) problems.push('exports of different formats');
  if (receipts.some((r) => r.header.period.from !== r.period.from || r.header.period.to !== r.period.to)) problems.push('a header of another period');
  const byPosition = receipts.filter((r) => r.kind === 'events' || r.kind === 'settlements' || r.kind === 'decisions');
  if (byPosition.some((r) => r.positions.first !== byPosition[0].positions.first || r.positions.periodLast !== byPosition[0].positions.periodLast)) {
    problems.push('the events, settlements and decisions cover different positions (the period was still being recorded): export a period that has ended');
  }
  return problems;
}

/**
 * The body the API signs for receipts that make one bundle ({@link bundleProblems} empty): the
 * files in {@link EXPORT_KINDS} order, the events' positions, the checkpoints' digests.
 */
export function manifestBody(i: { receipts: readonly ExportReceipt[]; ledgerId: string; anchors: readonly SignedAnchor[]; keyId: string; now: Date }): ManifestBody {
  const files = EXPORT_KINDS.map((kind) => i.receipts.find((r) => r.kind === kind)!).map((r): ManifestFile => ({
    name: `${r.kind}.${r.format}`,
    kind: r.kind,
    format: r.format,
    rows: r.rows,
    bytes: r.bytes,
    sha256: r.sha256,
    header: r.header,
    receipt: r.id,
  }));
  const events = i.receipts.find((r) => r.kind === 'events')!;
  const period = events.period;
  const header = reportHeader(
    'Export bundle for a regulator',
    'export.bundle',
    BUNDLE_REPORT_VERSION,
    period,
    { format: events.format },
    files.every((f) => f.rows === 0),
    i.now,
  );
  return {
    format: MANIFEST_FORMAT,
    header,
    ledgerId: i.ledgerId,
    period: { from: period.from, to: period.to },
    positions: events.positions,
    files,
    anchors: i.anchors.map((a) => ({ seq: a.checkpoint.seq, hash: anchorHash(a.checkpoint) })),
    keyId: i.keyId,
    signedAt: i.now.toISOString(),
  };
}

/** The signed bytes of a manifest body: UTF-8 of its canonical JSON (RFC 8785). */
export function manifestBytes(body: ManifestBody): Buffer {
  return Buffer.from(canonicalJson(body), 'utf8');
}

/**
 * Signs a body. @returns the manifest (`manifest.json`)
 * @param o.privateKey the report signing key (Ed25519) whose id is `body.keyId`
 */
export function signManifest(o: { body: ManifestBody; privateKey: KeyObject; anchors: readonly SignedAnchor[]; publicKeys: readonly { keyId: string; pem: string }[] }): SignedManifest {
  const signature = sign(null, manifestBytes(o.body), o.privateKey).toString('base64');
  return signedManifest({ body: o.body, signature, anchors: o.anchors, publicKeys: o.publicKeys });
}

/**
 * The manifest of a body signed elsewhere (the report signer, `ReportSigningKey`).
 * @param o.signature Ed25519 signature (base64) of {@link manifestBytes} of the body by the key `body.keyId`
 */
export function signedManifest(o: { body: ManifestBody; signature: string; anchors: readonly SignedAnchor[]; publicKeys: readonly { keyId: string; pem: string }[] }): SignedManifest {
  return { format: MANIFEST_FORMAT, signed: o.body, keyId: o.body.keyId, signature: o.signature, anchors: [...o.anchors], publicKeys: [...o.publicKeys] };
}
