import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { GENESIS_HASH } from '@ledger/events';
import { canonicalJson } from '@ledger/event-store';
import { compareStreamIds, streamsMerkleRoot, type AnchoredStream } from './merkle';

/**
 * Anchor checkpoints: what the ledger signs and keeps outside PostgreSQL (docs/guarantees.md §8,
 * docs/architecture.md §10; the format is specified for regulators in docs/anchors.md).
 *
 * A checkpoint names the head (version and hash) of every stream changed since the previous
 * checkpoint, the Merkle root over those heads, the highest global position it covers, and the hash
 * of the previous checkpoint, so the checkpoints form a chain of their own. The signed bytes are the
 * UTF-8 of the checkpoint's canonical JSON (RFC 8785); the signature is Ed25519 (RFC 8032) over
 * those bytes; the anchor hash is SHA-256 over the same bytes.
 */

/** `format` of every checkpoint of this layout. */
export const ANCHOR_FORMAT = 'baccarat-ledger-anchor/1';

/** `previousAnchorHash` of the first checkpoint of a ledger: 64 zeros (like the first event's `prevHash`). */
export const GENESIS_ANCHOR_HASH = GENESIS_HASH;

/** What is signed. Every field is covered by the signature. */
export interface AnchorCheckpoint {
  /** {@link ANCHOR_FORMAT}. */
  readonly format: string;
  /** Which ledger (database) this chain of checkpoints belongs to; opaque, e.g. `ledger@16384`. */
  readonly ledgerId: string;
  /** 1 for the first checkpoint of the ledger, then +1 each. */
  readonly seq: number;
  /** When it was signed: ISO-8601 UTC with milliseconds. */
  readonly createdAt: string;
  /** The highest global position covered (decimal string): every event at or below it was already published to Kafka. */
  readonly globalPosition: string;
  /** The head of every stream with an event in (previous checkpoint's position, `globalPosition`], sorted by the UTF-8 bytes of `streamId`. */
  readonly streams: readonly AnchoredStream[];
  /** RFC 6962 Merkle root over `streams` (see `merkle.ts`), 64 hex. */
  readonly merkleRoot: string;
  /** {@link anchorHash} of the checkpoint with `seq - 1`; {@link GENESIS_ANCHOR_HASH} for seq 1. */
  readonly previousAnchorHash: string;
  /** Id of the signing key, see {@link publicKeyId}. */
  readonly keyId: string;
}

/** A checkpoint with its signature: one line of the anchor file, one record on the anchors topic. */
export interface SignedAnchor {
  readonly checkpoint: AnchorCheckpoint;
  /** Same as `checkpoint.keyId` (lets a reader pick the key before anything else). */
  readonly keyId: string;
  /** Ed25519 signature of {@link checkpointBytes}, standard base64 (88 characters). */
  readonly signature: string;
}

/** The signed bytes: UTF-8 of the canonical JSON of the checkpoint. */
export function checkpointBytes(c: AnchorCheckpoint): Buffer {
  return Buffer.from(canonicalJson(c), 'utf8');
}

/** SHA-256 (64 lower-case hex) of {@link checkpointBytes}: the next checkpoint's `previousAnchorHash`. */
export function anchorHash(c: AnchorCheckpoint): string {
  return createHash('sha256').update(checkpointBytes(c)).digest('hex');
}

/** The text of a signed anchor as stored and published: its canonical JSON (one line, no newline). */
export function anchorText(a: SignedAnchor): string {
  return canonicalJson({ checkpoint: a.checkpoint, keyId: a.keyId, signature: a.signature });
}

/**
 * The id of an Ed25519 public key: `ed25519:` + the first 16 hex characters of SHA-256 over its
 * DER SubjectPublicKeyInfo (`openssl pkey -pubin -in key.pem -outform DER | sha256sum`).
 * @param key a public or private Ed25519 key (a private key's public half is used)
 */
export function publicKeyId(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const der = pub.export({ type: 'spki', format: 'der' });
  return `ed25519:${createHash('sha256').update(der).digest('hex').slice(0, 16)}`;
}

/** What {@link buildCheckpoint} needs; the streams in any order. */
export interface CheckpointInput {
  readonly ledgerId: string;
  readonly seq: number;
  readonly createdAt: Date;
  readonly globalPosition: bigint | string;
  readonly streams: readonly AnchoredStream[];
  readonly previousAnchorHash: string;
  readonly keyId: string;
}

/** A checkpoint with its streams sorted and its Merkle root computed. */
export function buildCheckpoint(i: CheckpointInput): AnchorCheckpoint {
  const streams = [...i.streams].sort((a, b) => compareStreamIds(a.streamId, b.streamId)).map((s) => ({ streamId: s.streamId, version: s.version, headHash: s.headHash }));
  return {
    format: ANCHOR_FORMAT,
    ledgerId: i.ledgerId,
    seq: i.seq,
    createdAt: i.createdAt.toISOString(),
    globalPosition: BigInt(i.globalPosition).toString(),
    streams,
    merkleRoot: streamsMerkleRoot(streams),
    previousAnchorHash: i.previousAnchorHash,
    keyId: i.keyId,
  };
}

/**
 * Signs a checkpoint with an Ed25519 private key.
 * @throws Error when `privateKey` is not an Ed25519 private key or its id is not `checkpoint.keyId`
 */
export function signCheckpoint(checkpoint: AnchorCheckpoint, privateKey: KeyObject): SignedAnchor {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw new Error('anchor signing key must be an Ed25519 private key');
  }
  const keyId = publicKeyId(privateKey);
  if (keyId !== checkpoint.keyId) throw new Error(`checkpoint names key ${checkpoint.keyId} but the signing key is ${keyId}`);
  const signature = sign(null, checkpointBytes(checkpoint), privateKey).toString('base64');
  return { checkpoint, keyId, signature };
}

/** Whether `a.signature` is a valid Ed25519 signature of `a.checkpoint` by `publicKey`. Never throws. */
export function verifyAnchorSignature(a: SignedAnchor, publicKey: KeyObject): boolean {
  try {
    const sig = Buffer.from(a.signature, 'base64');
    if (sig.length !== 64 || sig.toString('base64') !== a.signature) return false;
    return verify(null, checkpointBytes(a.checkpoint), publicKey, sig);
  } catch {
    return false;
  }
}

const HEX64 = /^[0-9a-f]{64}$/;
const POSITION = /^(0|[1-9][0-9]*)$/;

/**
 * Parses one anchor line (or record value) and checks its shape: fields, types, hex forms, streams
 * sorted by UTF-8 bytes without repeats, the top-level `keyId` equal to the checkpoint's. Does not
 * check the signature, the Merkle root or the chain.
 * @returns the anchor, or the reason it is malformed
 */
export function parseAnchor(text: string): { anchor: SignedAnchor } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { error: `not JSON: ${(err as Error).message}` };
  }
  const o = v as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return { error: 'not a JSON object' };
  const c = o.checkpoint as Record<string, unknown>;
  if (typeof c !== 'object' || c === null) return { error: 'no checkpoint object' };
  if (typeof o.signature !== 'string' || typeof o.keyId !== 'string') return { error: 'signature and keyId must be strings' };
  if (c.format !== ANCHOR_FORMAT) return { error: `format must be ${ANCHOR_FORMAT}` };
  if (typeof c.ledgerId !== 'string' || c.ledgerId.length === 0) return { error: 'ledgerId must be a non-empty string' };
  if (!Number.isSafeInteger(c.seq) || (c.seq as number) < 1) return { error: 'seq must be an integer >= 1' };
  if (typeof c.createdAt !== 'string' || Number.isNaN(Date.parse(c.createdAt))) return { error: 'createdAt must be an ISO-8601 time' };
  if (typeof c.globalPosition !== 'string' || !POSITION.test(c.globalPosition)) return { error: 'globalPosition must be a decimal string' };
  if (typeof c.merkleRoot !== 'string' || !HEX64.test(c.merkleRoot)) return { error: 'merkleRoot must be 64 hex' };
  if (typeof c.previousAnchorHash !== 'string' || !HEX64.test(c.previousAnchorHash)) return { error: 'previousAnchorHash must be 64 hex' };
  if (c.keyId !== o.keyId) return { error: `keyId ${String(o.keyId)} differs from the checkpoint's ${String(c.keyId)}` };
  if (!Array.isArray(c.streams)) return { error: 'streams must be an array' };
  const extra = Object.keys(c).filter((k) => !CHECKPOINT_KEYS.has(k));
  if (extra.length > 0) return { error: `unknown checkpoint fields ${extra.join(', ')}` };
  let prev: string | null = null;
  for (const [i, s] of (c.streams as Record<string, unknown>[]).entries()) {
    if (typeof s !== 'object' || s === null) return { error: `streams[${i}] is not an object` };
    if (typeof s.streamId !== 'string' || s.streamId.length === 0) return { error: `streams[${i}].streamId must be a non-empty string` };
    if (!Number.isSafeInteger(s.version) || (s.version as number) < 1) return { error: `streams[${i}].version must be an integer >= 1` };
    if (typeof s.headHash !== 'string' || !HEX64.test(s.headHash)) return { error: `streams[${i}].headHash must be 64 hex` };
    if (Object.keys(s).length !== 3) return { error: `streams[${i}] must have exactly streamId, version, headHash` };
    if (prev !== null && compareStreamIds(prev, s.streamId) >= 0) return { error: `streams not sorted by UTF-8 bytes or repeated at ${s.streamId}` };
    prev = s.streamId;
  }
  return { anchor: { checkpoint: c as unknown as AnchorCheckpoint, keyId: o.keyId, signature: o.signature } };
}

const CHECKPOINT_KEYS = new Set(['format', 'ledgerId', 'seq', 'createdAt', 'globalPosition', 'streams', 'merkleRoot', 'previousAnchorHash', 'keyId']);
