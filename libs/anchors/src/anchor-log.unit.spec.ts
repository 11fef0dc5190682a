/**
 * Checking a sequence of signed anchors (docs/guarantees.md §8): a forged line, a broken chain, a
 * fork, a bad Merkle root, another ledger's lines, and the file and topic copies compared.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { checkAnchorCopy, mergeCopies, type AnchorInput } from './anchor-log';
import { GENESIS_ANCHOR_HASH, anchorHash, anchorText, buildCheckpoint, publicKeyId, signCheckpoint, type SignedAnchor } from './checkpoint';
import { DivergenceList } from './report';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keyId = publicKeyId(publicKey);
const keys = new Map<string, KeyObject>([[keyId, publicKey]]);
const LEDGER = 'ledger@1';

/** A valid chain of `n` anchors. */
function chain(n: number, ledgerId = LEDGER): SignedAnchor[] {
  const out: SignedAnchor[] = [];
  let prev = GENESIS_ANCHOR_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const c = buildCheckpoint({
      ledgerId,
      seq,
      createdAt: new Date(Date.UTC(2026, 11, 1, 10, 0, seq)),
      globalPosition: BigInt(seq * 10),
      streams: [{ streamId: `shoe-${seq}`, version: seq, headHash: seq.toString(16).padStart(64, '0') }],
      previousAnchorHash: prev,
      keyId,
    });
    prev = anchorHash(c);
    out.push(signCheckpoint(c, privateKey));
  }
  return out;
}

const lines = (as: readonly SignedAnchor[]): AnchorInput[] => as.map((a, i) => ({ text: anchorText(a), where: `line ${i + 1}` }));

function check(inputs: AnchorInput[]) {
  const out = new DivergenceList(100);
  const r = checkAnchorCopy(inputs, keys, LEDGER, 'anchor-file', out);
  return { ...r, divergences: out.sorted() };
}

describe('checkAnchorCopy', () => {
  it('accepts a valid chain', () => {
    const r = check(lines(chain(4)));
    expect(r.divergences).toEqual([]);
    expect(r.anchors.map((a) => a.checkpoint.seq)).toEqual([1, 2, 3, 4]);
  });

  it('reports a forged line (altered after signing) and keeps it out of the chain', () => {
    const as = chain(3);
    const forged = { ...as[1], checkpoint: { ...as[1].checkpoint, streams: [{ ...as[1].checkpoint.streams[0], headHash: 'f'.repeat(64) }] } };
    const r = check(lines([as[0], forged, as[2]]));
    expect(r.divergences.map((d) => [d.kind, d.anchorSeq])).toEqual([
      ['ANCHOR_SIGNATURE_INVALID', 2],
      ['ANCHOR_CHAIN_BROKEN', 3],
    ]);
    expect(r.divergences[0].reason).toContain('line 2');
  });

  it('reports a line signed by an unknown key', () => {
    const other = generateKeyPairSync('ed25519');
    const c = { ...chain(1)[0].checkpoint, keyId: publicKeyId(other.publicKey) };
    const r = check(lines([signCheckpoint(c, other.privateKey)]));
    expect(r.divergences.map((d) => d.kind)).toEqual(['ANCHOR_KEY_UNKNOWN']);
  });

  it('reports a removed checkpoint and a previousAnchorHash that is not its predecessor', () => {
    const as = chain(4);
    expect(check(lines([as[0], as[1], as[3]])).divergences.map((d) => [d.kind, d.anchorSeq])).toEqual([['ANCHOR_CHAIN_BROKEN', 4]]);
    const rogue = signCheckpoint({ ...as[2].checkpoint, previousAnchorHash: GENESIS_ANCHOR_HASH }, privateKey);
    const r = check(lines([as[0], as[1], rogue]));
    expect(r.divergences.map((d) => [d.kind, d.anchorSeq])).toEqual([['ANCHOR_CHAIN_BROKEN', 3]]);
    expect(r.divergences[0].reason).toMatch(/names previous anchor/);
  });

  it('reports a fork (two signed checkpoints with one seq) but not an identical duplicate', () => {
    const as = chain(2);
    expect(check(lines([as[0], as[1], as[1]])).divergences).toEqual([]);
    const twin = signCheckpoint({ ...as[1].checkpoint, createdAt: '2026-12-01T11:00:00.000Z' }, privateKey);
    expect(check(lines([as[0], as[1], twin])).divergences.map((d) => d.kind)).toEqual(['ANCHOR_FORK']);
  });

  it('reports a Merkle root that does not match the streams, and a malformed line', () => {
    const as = chain(1);
    const bad = signCheckpoint({ ...as[0].checkpoint, merkleRoot: 'a'.repeat(64) }, privateKey);
    expect(check(lines([bad])).divergences.map((d) => d.kind)).toEqual(['ANCHOR_MERKLE_MISMATCH']);
    expect(check([{ text: '{"checkpoint":{"seq":1', where: 'line 1' }]).divergences.map((d) => d.kind)).toEqual(['ANCHOR_MALFORMED']);
  });

  it("skips and counts another ledger's lines", () => {
    const r = check([...lines(chain(2)), ...lines(chain(3, 'other@2'))]);
    expect(r.divergences).toEqual([]);
    expect(r.otherLedgers).toBe(3);
  });

  it('reports positions that do not move forward', () => {
    const as = chain(1);
    const c2 = buildCheckpoint({ ledgerId: LEDGER, seq: 2, createdAt: new Date(), globalPosition: as[0].checkpoint.globalPosition, streams: [], previousAnchorHash: anchorHash(as[0].checkpoint), keyId });
    expect(check(lines([as[0], signCheckpoint(c2, privateKey)])).divergences.map((d) => d.kind)).toEqual(['ANCHOR_CHAIN_BROKEN']);
  });
});

describe('mergeCopies', () => {
  const as = chain(3);
  const now = new Date(Date.UTC(2026, 11, 1, 12));
  const copy = (xs: SignedAnchor[]) => checkAnchorCopy(lines(xs), keys, LEDGER, 'anchor-file', new DivergenceList(10));

  it('merges equal copies silently', () => {
    const out = new DivergenceList(10);
    expect(mergeCopies(copy(as), copy(as), 60_000, now, out).map((a) => a.checkpoint.seq)).toEqual([1, 2, 3]);
    expect(out.count).toBe(0);
  });

  it('reports a checkpoint older than the grace period that one copy lacks, and different texts for one seq', () => {
    const out = new DivergenceList(10);
    mergeCopies(copy(as), copy(as.slice(0, 2)), 60_000, now, out);
    expect(out.sorted().map((d) => [d.source, d.kind, d.anchorSeq])).toEqual([['anchor-topic', 'ANCHOR_COPIES_DIFFER', 3]]);
    const out2 = new DivergenceList(10);
    const twin = signCheckpoint({ ...as[2].checkpoint, createdAt: '2026-12-01T11:00:00.000Z' }, privateKey);
    mergeCopies(copy(as), copy([as[0], as[1], twin]), 60_000, now, out2);
    expect(out2.sorted().map((d) => d.kind)).toEqual(['ANCHOR_COPIES_DIFFER']);
  });

  it('tolerates a recent checkpoint not yet on the topic', () => {
    const out = new DivergenceList(10);
    mergeCopies(copy(as), copy(as.slice(0, 2)), 24 * 3600_000, now, out);
    expect(out.count).toBe(0);
  });
});
