import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { merkleRoot, streamLeaf, streamsMerkleRoot, type AnchoredStream } from './merkle';

/**
 * Known answers of the anchors' Merkle root (docs/guarantees.md §8, docs/anchors.md "Merkle root"):
 * the FROZEN fixture `known-answers.json` (generated once by scripts/gen-known-answers.ts, never
 * from this spec) holds fixed stream heads (0 to 13 streams) with their leaf bytes and roots, and
 * raw leaf sets with their RFC 6962 roots. Today's code must give exactly those bytes.
 */
interface Fixture {
  merkle: { streams: AnchoredStream[]; leavesHex: string[]; root: string }[];
  raw: { leavesHex: string[]; root: string }[];
}

const fx = JSON.parse(readFileSync(join(__dirname, 'known-answers.json'), 'utf8')) as Fixture;

describe('known answers: Merkle root of anchored streams (docs/guarantees.md §8)', () => {
  it('covers the empty tree, one leaf, powers of two and uneven splits', () => {
    expect(fx.merkle.map((m) => m.streams.length)).toEqual([0, 1, 2, 3, 4, 5, 7, 8, 13]);
    expect(new Set(fx.merkle.map((m) => m.root)).size).toBe(fx.merkle.length);
  });

  it.each(fx.merkle.map((m) => [m.streams.length, m] as const))('%i streams: leaf bytes and root as stored', (_n, m) => {
    expect(m.streams.map((s) => streamLeaf(s).toString('hex'))).toEqual(m.leavesHex);
    expect(streamsMerkleRoot(m.streams)).toBe(m.root);
    expect(merkleRoot(m.leavesHex.map((l) => Buffer.from(l, 'hex')))).toBe(m.root);
  });

  it('the empty root is SHA-256 of nothing, one leaf is SHA-256(0x00 ‖ leaf), as stored', () => {
    expect(fx.merkle[0].root).toBe(createHash('sha256').digest('hex'));
    const one = fx.merkle[1];
    expect(one.root).toBe(
      createHash('sha256')
        .update(Buffer.from([0]))
        .update(Buffer.from(one.leavesHex[0], 'hex'))
        .digest('hex'),
    );
  });

  it.each(fx.raw.map((r) => [r.leavesHex.join(',') || '(none)', r] as const))('raw leaves %s: root as stored', (_n, r) => {
    expect(merkleRoot(r.leavesHex.map((l) => Buffer.from(l, 'hex')))).toBe(r.root);
  });
});
