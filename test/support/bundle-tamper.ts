import { createHash, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { anchorHash, buildCheckpoint, publicKeyId, signCheckpoint, type SignedAnchor } from '@ledger/anchors';
import { canonicalJson, computeEventHash } from '@ledger/event-store';

/**
 * What a malicious exporter does to an export bundle (docs/reports.md §5, test/attack/malicious-exporter.e2e.spec.ts):
 * read and rewrite its JSONL files, rewrite events with every later hash of their stream recomputed,
 * fix up the manifest's hashes and counts, and, when it holds a key, sign again. The helpers read
 * the manifest of either layout: the files, positions and checkpoint digests are in `signed` when the
 * manifest has one, at the top otherwise.
 */

/** A JSONL export file: its first line (`{"header":…,"positions":…}`), its rows, and whether it had a trailer. */
export interface JsonlFile {
  head: Record<string, any>;
  rows: Record<string, any>[];
}

export const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** A copy of the bundle `dir` at `dir/../name`. */
export function copyBundle(dir: string, name: string): string {
  const to = join(dir, '..', name);
  cpSync(dir, to, { recursive: true });
  return to;
}

/** Reads a JSONL export file (without its trailer). */
export function readJsonl(file: string): JsonlFile {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  return { head: JSON.parse(lines[0]), rows: lines.slice(1, -1).map((l) => JSON.parse(l)) };
}

/** Writes a JSONL export file with a trailer of the right count; @returns the text written. */
export function writeJsonl(file: string, f: JsonlFile): string {
  const text = [JSON.stringify(f.head), ...f.rows.map((r) => JSON.stringify(r)), JSON.stringify({ trailer: { rows: f.rows.length } })].join('\n') + '\n';
  writeFileSync(file, text);
  return text;
}

export const loadManifest = (dir: string): Record<string, any> => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
export const saveManifest = (dir: string, m: Record<string, any>): void => writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m, null, 2));

/** The part of a manifest that lists the files and positions (its signed part when it has one). */
export const core = (m: Record<string, any>): Record<string, any> => m.signed ?? m;

/** Sets a listed file's SHA-256, size and row count to those of `text` (rows: the JSONL lines less the header and the trailer). */
export function fixEntry(m: Record<string, any>, name: string, text: string): void {
  const f = core(m).files.find((x: { name: string }) => x.name === name);
  Object.assign(f, { sha256: sha256(text), bytes: Buffer.byteLength(text), rows: text.trimEnd().split('\n').length - 2 });
}

/** Positions of nothing, as an empty period's. */
export const NULL_POSITIONS = { first: null, periodLast: null, through: null };

/**
 * A settled bet of `streamId` rewritten from LOSE to WIN (winnings = stake, payout = 2 × stake, net =
 * stake), its hash and every later hash of the stream recomputed. @returns the rewritten event's id
 */
export function loseToWin(rows: Record<string, any>[], streamId: string): string {
  const at = rows.findIndex((e) => e.streamId === streamId && e.type === 'BetSettled' && e.data.result === 'LOSE');
  if (at < 0) throw new Error(`no lost bet in ${streamId}`);
  const d = rows[at].data;
  rows[at].data = { ...d, result: 'WIN', winnings: d.stake, payout: String(2n * BigInt(d.stake)), net: d.stake };
  let prev = rows[at].prevHash;
  for (const e of rows.filter((x, j) => j >= at && x.streamId === streamId)) {
    e.prevHash = prev;
    e.hash = computeEventHash(e as Parameters<typeof computeEventHash>[0]);
    prev = e.hash;
  }
  return rows[at].eventId;
}

/** Every LOSE row of a settlements file made WIN. @returns how many */
export function settlementsAllWin(rows: Record<string, any>[]): number {
  let n = 0;
  for (const r of rows)
    if (r.result === 'LOSE') {
      Object.assign(r, { result: 'WIN', winnings: r.stake, payout: String(2n * BigInt(r.stake)), net: r.stake });
      n++;
    }
  return n;
}

/** The checkpoint digests a signed manifest lists, made those of the manifest's `anchors` (a key holder's fix-up). */
export function syncAnchorDigests(m: Record<string, any>): void {
  if (m.signed) m.signed.anchors = m.anchors.map((a: SignedAnchor) => ({ seq: a.checkpoint.seq, hash: anchorHash(a.checkpoint) }));
}

/** Signs the manifest again with `key` (a no-op for a manifest without a signed part). */
export function resign(m: Record<string, any>, key: KeyObject): void {
  if (!m.signed) return;
  const keyId = publicKeyId(key);
  m.signed.keyId = keyId;
  m.keyId = keyId;
  m.signature = sign(null, Buffer.from(canonicalJson(m.signed), 'utf8'), key).toString('base64');
}

/**
 * The swapped key: every checkpoint of the bundle re-signed with `key`, its stream heads those of
 * the (forged) `events`, its Merkle root and its chain recomputed; the bundle's public key made
 * `key`'s. The manifest's signed part (if any) is then signed with `key` too.
 */
export function swapKey(dir: string, m: Record<string, any>, events: Record<string, any>[], key: KeyObject): void {
  const heads = new Map(events.map((e) => [`${e.streamId}@${e.streamVersion}`, e.hash as string]));
  const keyId = publicKeyId(key);
  let prevHash: string | null = null;
  m.anchors = (m.anchors as SignedAnchor[]).map((a) => {
    const c = a.checkpoint;
    const streams = c.streams.map((s) => ({ ...s, headHash: heads.get(`${s.streamId}@${s.version}`) ?? s.headHash }));
    const checkpoint = buildCheckpoint({ ledgerId: c.ledgerId, seq: c.seq, createdAt: new Date(c.createdAt), globalPosition: c.globalPosition, streams, previousAnchorHash: prevHash ?? c.previousAnchorHash, keyId });
    prevHash = anchorHash(checkpoint);
    return signCheckpoint(checkpoint, key);
  });
  const pem = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  if ('publicKey' in m) m.publicKey = { keyId, pem };
  if ('publicKeys' in m) m.publicKeys = [{ keyId, pem }];
  writeFileSync(join(dir, 'anchor-public.pem'), pem);
  syncAnchorDigests(m);
  resign(m, key);
}
