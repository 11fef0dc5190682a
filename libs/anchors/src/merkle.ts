import { createHash } from 'node:crypto';
import { canonicalJson } from '@ledger/event-store';

/**
 * The Merkle tree of an anchor checkpoint (docs/guarantees.md §8, docs/anchors.md "Merkle root").
 *
 * The tree is the Merkle Tree Hash of RFC 6962 §2.1 (Certificate Transparency), over SHA-256:
 *
 *   MTH({})        = SHA-256()                                   (the empty string)
 *   MTH({d0})      = SHA-256(0x00 ‖ d0)                          (a leaf)
 *   MTH(D[0..n))   = SHA-256(0x01 ‖ MTH(D[0..k)) ‖ MTH(D[k..n)))  k = the largest power of 2 < n
 *
 * The leaves of a checkpoint are its streams, in the checkpoint's order (sorted by the UTF-8 bytes
 * of `streamId`), each encoded as the UTF-8 bytes of the canonical JSON (RFC 8785) of
 * `{"headHash":…,"streamId":…,"version":…}`, i.e. exactly those three keys in that order, no
 * whitespace, `version` an integer. The root is written as 64 lower-case hex characters.
 */

/** One stream head named by a checkpoint: the stream's version and the hash of its event at that version. */
export interface AnchoredStream {
  /** `shoe-<shoeId>`. */
  readonly streamId: string;
  /** Stream version (1-based) of the head, an integer ≥ 1. */
  readonly version: number;
  /** The hash chain at that version: the `hash` of the stream's event at `version` (64 hex). */
  readonly headHash: string;
}

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

function sha256(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

/** The largest power of two strictly smaller than `n` (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function mth(leaves: readonly Uint8Array[], from: number, to: number): Buffer {
  const n = to - from;
  if (n === 1) return sha256(LEAF_PREFIX, leaves[from]);
  const k = splitPoint(n);
  return sha256(NODE_PREFIX, mth(leaves, from, from + k), mth(leaves, from + k, to));
}

/**
 * RFC 6962 Merkle Tree Hash of `leaves` (raw leaf data, in order), as 64 lower-case hex characters.
 * No leaves: SHA-256 of the empty string.
 */
export function merkleRoot(leaves: readonly Uint8Array[]): string {
  if (leaves.length === 0) return sha256().toString('hex');
  return mth(leaves, 0, leaves.length).toString('hex');
}

/** The leaf data of one anchored stream: UTF-8 of `{"headHash":…,"streamId":…,"version":…}` (canonical JSON). */
export function streamLeaf(s: AnchoredStream): Buffer {
  return Buffer.from(canonicalJson({ headHash: s.headHash, streamId: s.streamId, version: s.version }), 'utf8');
}

/** Orders stream ids by their UTF-8 bytes (the checkpoint's order; language-neutral). */
export function compareStreamIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The streams sorted as a checkpoint lists them (a copy; the input is not changed). */
export function sortStreams(streams: readonly AnchoredStream[]): AnchoredStream[] {
  return [...streams].sort((a, b) => compareStreamIds(a.streamId, b.streamId));
}

/**
 * The Merkle root of a checkpoint's streams, which must already be in checkpoint order
 * (see {@link sortStreams}); the order is part of what the root commits to.
 */
export function streamsMerkleRoot(streams: readonly AnchoredStream[]): string {
  return merkleRoot(streams.map(streamLeaf));
}
