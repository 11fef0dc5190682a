import type { KeyObject } from 'node:crypto';
import { readAnchorLines } from './anchor-file';
import { parseAnchor, verifyAnchorSignature, type SignedAnchor } from './checkpoint';
import { streamsMerkleRoot } from './merkle';

/**
 * The anchor status of one stream, for the game recall (docs/anchors.md, docs/guarantees.md §8):
 * the latest signed checkpoint of the anchor file that names the stream, whether its signature and
 * Merkle root hold, and whether the event store still has the anchored head (same hash at the
 * anchored version).
 *
 * - `ANCHORED`: the latest checkpoint naming the stream is signed by a known key, its Merkle root
 *   is the root of its heads, and the stream's event at the anchored version has the anchored hash;
 * - `NOT_YET_ANCHORED`: no checkpoint names the stream yet (the relay signs one every
 *   `ANCHOR_INTERVAL_MS` once its events are published);
 * - `MISMATCH`: a signature, a Merkle root or the anchored head does not hold (a rewrite of the
 *   event store, or of the anchor file);
 * - `UNVERIFIABLE`: no public key for the checkpoint's key id, or the file cannot be read.
 *
 * This checks one checkpoint; the chain of checkpoints (`previousAnchorHash`) and every stream are
 * checked by `GET /audit/anchors/verify` (`npm run -s verify`).
 */
export interface StreamAnchorStatus {
  readonly status: 'ANCHORED' | 'NOT_YET_ANCHORED' | 'MISMATCH' | 'UNVERIFIABLE';
  /** `seq` of the checkpoint used, or null when none names the stream. */
  readonly seq: number | null;
  /** When that checkpoint was signed (ISO-8601), or null. */
  readonly createdAt: string | null;
  /** Id of its signing key, or null. */
  readonly keyId: string | null;
  /** The stream version (1-based) and head hash the checkpoint anchors, or null. */
  readonly anchoredVersion: number | null;
  readonly anchoredHash: string | null;
  /** Whether the signature verified (null: not checked). */
  readonly signatureValid: boolean | null;
  /** Whether the event store's event at `anchoredVersion` has `anchoredHash` (null: not checked). */
  readonly matchesLedger: boolean | null;
  /** Why the status is MISMATCH or UNVERIFIABLE; null otherwise. */
  readonly problem: string | null;
}

/** Inputs of {@link streamAnchorStatus}. */
export interface StreamAnchorQuery {
  /** The anchor file (`ANCHOR_FILE`), one signed checkpoint per line. */
  readonly file: string;
  /** Public keys by key id (`readPublicKeys`). */
  readonly publicKeys: ReadonlyMap<string, KeyObject>;
  /** `shoe-<shoeId>`. */
  readonly streamId: string;
  /** The hash of the stream's event at `version` in the event store, or null when it has none. */
  readonly hashAt: (version: number) => Promise<string | null>;
}

const EMPTY = { seq: null, createdAt: null, keyId: null, anchoredVersion: null, anchoredHash: null, signatureValid: null, matchesLedger: null, problem: null } as const;

/**
 * Finds the latest checkpoint naming `q.streamId` in the anchor file and checks it (see
 * {@link StreamAnchorStatus}). Malformed lines are skipped (the full verification reports them).
 * Never throws: an unreadable file is `UNVERIFIABLE` with its reason.
 */
export async function streamAnchorStatus(q: StreamAnchorQuery): Promise<StreamAnchorStatus> {
  let latest: { anchor: SignedAnchor; version: number; headHash: string } | null = null;
  try {
    for (const line of await readAnchorLines(q.file)) {
      const parsed = parseAnchor(line.text);
      if (!('anchor' in parsed)) continue;
      const head = parsed.anchor.checkpoint.streams.find((s) => s.streamId === q.streamId);
      if (head && (!latest || parsed.anchor.checkpoint.seq > latest.anchor.checkpoint.seq)) latest = { anchor: parsed.anchor, version: head.version, headHash: head.headHash };
    }
  } catch (err) {
    return { ...EMPTY, status: 'UNVERIFIABLE', problem: `the anchor file cannot be read: ${(err as Error).message}` };
  }
  if (!latest) return { ...EMPTY, status: 'NOT_YET_ANCHORED' };
  const c = latest.anchor.checkpoint;
  const base = { seq: c.seq, createdAt: c.createdAt, keyId: c.keyId, anchoredVersion: latest.version, anchoredHash: latest.headHash };
  const key = q.publicKeys.get(c.keyId);
  if (!key) return { ...EMPTY, ...base, status: 'UNVERIFIABLE', problem: `no public key for key id ${c.keyId} (ANCHOR_PUBLIC_KEY_FILE)` };
  const signatureValid = verifyAnchorSignature(latest.anchor, key);
  if (!signatureValid) return { ...EMPTY, ...base, status: 'MISMATCH', signatureValid, problem: `checkpoint ${c.seq}: the signature does not verify` };
  if (streamsMerkleRoot(c.streams) !== c.merkleRoot) return { ...EMPTY, ...base, status: 'MISMATCH', signatureValid, problem: `checkpoint ${c.seq}: the Merkle root is not the root of its heads` };
  const hash = await q.hashAt(latest.version);
  const matchesLedger = hash === latest.headHash;
  return {
    ...EMPTY,
    ...base,
    status: matchesLedger ? 'ANCHORED' : 'MISMATCH',
    signatureValid,
    matchesLedger,
    problem: matchesLedger ? null : hash === null ? `the event store has no event at the anchored version ${latest.version}` : `the event at version ${latest.version} has another hash than the anchored head`,
  };
}
