import type { KeyObject } from 'node:crypto';
import { GENESIS_ANCHOR_HASH, anchorHash, anchorText, parseAnchor, verifyAnchorSignature, type SignedAnchor } from './checkpoint';
import { streamsMerkleRoot } from './merkle';
import type { DivergenceList, DivergenceSource } from './report';

/**
 * Checks a sequence of signed anchors (docs/anchors.md "Checking the anchors"): shape, key,
 * signature, Merkle root, then the chain (seq 1, 2, 3, … each naming the hash of its predecessor,
 * positions moving forward), and, with two copies (the file and the topic), that they agree.
 */

/** One line of the file or one record of the topic, with where it came from (for the report). */
export interface AnchorInput {
  readonly text: string;
  /** e.g. `line 12` or `offset 0:41`. */
  readonly where: string;
}

/** Valid anchors of one ledger, by seq. */
export interface CheckedAnchors {
  /** Validly signed, well-formed anchors of the ledger, one per seq (the first seen), in seq order. */
  readonly anchors: SignedAnchor[];
  /** Lines or records of other ledgers. */
  readonly otherLedgers: number;
  /** The canonical text of each seq, for comparing copies. */
  readonly textBySeq: Map<number, string>;
}

/**
 * Parses and verifies one copy's anchors for `ledgerId`; reports every problem into `out`.
 * Only well-formed, validly signed anchors are kept; the chain is checked over them.
 * @param keys public keys by key id (see `publicKeyId`)
 */
export function checkAnchorCopy(inputs: readonly AnchorInput[], keys: ReadonlyMap<string, KeyObject>, ledgerId: string, source: Extract<DivergenceSource, 'anchor-file' | 'anchor-topic'>, out: DivergenceList): CheckedAnchors {
  const bySeq = new Map<number, SignedAnchor>();
  const textBySeq = new Map<number, string>();
  let otherLedgers = 0;
  for (const input of inputs) {
    const parsed = parseAnchor(input.text);
    if ('error' in parsed) {
      out.add({ source, kind: 'ANCHOR_MALFORMED', reason: `${input.where}: ${parsed.error}` });
      continue;
    }
    const a = parsed.anchor;
    const c = a.checkpoint;
    if (c.ledgerId !== ledgerId) {
      otherLedgers++;
      continue;
    }
    const key = keys.get(a.keyId);
    if (!key) {
      out.add({
        source,
        kind: 'ANCHOR_KEY_UNKNOWN',
        anchorSeq: c.seq,
        reason: `${input.where}: checkpoint #${c.seq} is signed by key ${a.keyId}, which is not among the given public keys (${[...keys.keys()].join(', ') || 'none'})`,
      });
      continue;
    }
    if (!verifyAnchorSignature(a, key)) {
      out.add({ source, kind: 'ANCHOR_SIGNATURE_INVALID', anchorSeq: c.seq, reason: `${input.where}: the signature of checkpoint #${c.seq} does not verify with key ${a.keyId}: forged or altered` });
      continue;
    }
    const root = streamsMerkleRoot(c.streams);
    if (root !== c.merkleRoot) {
      out.add({ source, kind: 'ANCHOR_MERKLE_MISMATCH', anchorSeq: c.seq, reason: `${input.where}: checkpoint #${c.seq} says Merkle root ${c.merkleRoot} but its streams give ${root}` });
    }
    const text = anchorText(a);
    const seen = textBySeq.get(c.seq);
    if (seen !== undefined) {
      if (seen !== text) {
        out.add({ source, kind: 'ANCHOR_FORK', anchorSeq: c.seq, reason: `${input.where}: a second, different checkpoint #${c.seq} (two signers, or a replayed key)` });
      }
      continue; // an identical copy (a republished record) is harmless
    }
    bySeq.set(c.seq, a);
    textBySeq.set(c.seq, text);
  }
  const anchors = [...bySeq.values()].sort((x, y) => x.checkpoint.seq - y.checkpoint.seq);
  checkChain(anchors, source, out);
  return { anchors, otherLedgers, textBySeq };
}

function checkChain(anchors: readonly SignedAnchor[], source: DivergenceSource, out: DivergenceList): void {
  let expectedSeq = 1;
  let prevHash = GENESIS_ANCHOR_HASH;
  let prevPosition = -1n;
  for (const a of anchors) {
    const c = a.checkpoint;
    if (c.seq !== expectedSeq) {
      out.add({ source, kind: 'ANCHOR_CHAIN_BROKEN', anchorSeq: c.seq, reason: `checkpoints #${expectedSeq}..#${c.seq - 1} are missing before #${c.seq}` });
    } else if (c.previousAnchorHash !== prevHash) {
      out.add({ source, kind: 'ANCHOR_CHAIN_BROKEN', anchorSeq: c.seq, reason: `checkpoint #${c.seq} names previous anchor ${c.previousAnchorHash} but #${c.seq - 1} hashes to ${prevHash}` });
    }
    const position = BigInt(c.globalPosition);
    if (position <= prevPosition) {
      out.add({ source, kind: 'ANCHOR_CHAIN_BROKEN', anchorSeq: c.seq, reason: `checkpoint #${c.seq} covers position ${position}, not beyond its predecessor's ${prevPosition}` });
    }
    expectedSeq = c.seq + 1;
    prevHash = anchorHash(c);
    prevPosition = position;
  }
}

/**
 * Compares the file's and the topic's checkpoints: one seq with different texts always diverges; a
 * checkpoint only one copy holds diverges when it is older than the grace period (the topic may lag
 * the file by a failed send, which the publisher retries).
 * @returns the union of both, by seq (the file's copy where both have one)
 */
export function mergeCopies(file: CheckedAnchors | null, topic: CheckedAnchors | null, graceMs: number, now: Date, out: DivergenceList): SignedAnchor[] {
  const merged = new Map<number, SignedAnchor>();
  for (const a of topic?.anchors ?? []) merged.set(a.checkpoint.seq, a);
  for (const a of file?.anchors ?? []) merged.set(a.checkpoint.seq, a);
  if (file && topic) {
    for (const [seq, a] of merged) {
      const f = file.textBySeq.get(seq);
      const t = topic.textBySeq.get(seq);
      if (f !== undefined && t !== undefined) {
        if (f !== t) out.add({ source: 'anchor-topic', kind: 'ANCHOR_COPIES_DIFFER', anchorSeq: seq, reason: `the file and the topic hold different checkpoints #${seq}` });
        continue;
      }
      const old = now.getTime() - Date.parse(a.checkpoint.createdAt) > graceMs;
      if (!old) continue;
      const [has, lacks] = f === undefined ? ['the topic', 'file'] : ['the file', 'topic'];
      out.add({ source: f === undefined ? 'anchor-file' : 'anchor-topic', kind: 'ANCHOR_COPIES_DIFFER', anchorSeq: seq, reason: `checkpoint #${seq} (${a.checkpoint.createdAt}) is in ${has} but not in the ${lacks}` });
    }
  }
  return [...merged.values()].sort((x, y) => x.checkpoint.seq - y.checkpoint.seq);
}
