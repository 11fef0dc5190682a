/**
 * The Merkle root of a checkpoint (docs/guarantees.md §8): RFC 6962 §2.1 known answers, and the
 * encoding of a stream leaf.
 */
import { createHash } from 'node:crypto';
import { compareStreamIds, merkleRoot, sortStreams, streamLeaf, streamsMerkleRoot } from './merkle';

const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

describe('merkleRoot: the Merkle Tree Hash of RFC 6962', () => {
  // The test vectors of Certificate Transparency's reference implementation (merkle_tree_test):
  // leaf data "", 00, 10, 2021, 3031, 40414243, 5051525354555657, 606162636465666768696a6b6c6d6e6f.
  const leaves = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((h) => Buffer.from(h, 'hex'));
  const roots = [
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
    'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
    '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
    'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
    '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
  ];
  it.each(roots.map((root, n) => [n, root]))('the first %i leaves give %s', (n, root) => {
    expect(merkleRoot(leaves.slice(0, n as number))).toBe(root);
  });

  it('is the domain-separated tree: leaf = H(00 ‖ d), node = H(01 ‖ left ‖ right), odd leaf promoted', () => {
    const [a, b, c] = [Buffer.from('a'), Buffer.from('b'), Buffer.from('c')];
    const leaf = (d: Buffer) => sha(Buffer.from([0]), d);
    const node = (l: Buffer, r: Buffer) => sha(Buffer.from([1]), l, r);
    expect(merkleRoot([a])).toBe(leaf(a).toString('hex'));
    expect(merkleRoot([a, b, c])).toBe(node(node(leaf(a), leaf(b)), leaf(c)).toString('hex'));
  });

  it('changes with any leaf and with the order of the leaves', () => {
    const base = ['x', 'y', 'z', 'w', 'v'].map((s) => Buffer.from(s));
    const root = merkleRoot(base);
    expect(merkleRoot([base[1], base[0], ...base.slice(2)])).not.toBe(root);
    expect(merkleRoot([...base.slice(0, 4), Buffer.from('V')])).not.toBe(root);
    expect(merkleRoot(base.slice(0, 4))).not.toBe(root);
  });
});

describe('stream leaves', () => {
  const s = { streamId: 'shoe-S1', version: 12, headHash: 'ab'.repeat(32) };

  it('encode a stream head as the canonical JSON {"headHash","streamId","version"}', () => {
    expect(streamLeaf(s).toString('utf8')).toBe(`{"headHash":"${'ab'.repeat(32)}","streamId":"shoe-S1","version":12}`);
  });

  it('give a known root for two heads', () => {
    const t = { streamId: 'shoe-S2', version: 3, headHash: 'cd'.repeat(32) };
    const leaf = (d: Buffer) => sha(Buffer.from([0]), d);
    const expected = sha(Buffer.from([1]), leaf(streamLeaf(s)), leaf(streamLeaf(t))).toString('hex');
    expect(streamsMerkleRoot([s, t])).toBe(expected);
    expect(streamsMerkleRoot([s, t])).toBe(merkleRoot([streamLeaf(s), streamLeaf(t)]));
  });

  it('are sorted by the UTF-8 bytes of the stream id (not by locale, not by UTF-16 units)', () => {
    // U+FF5E (EF BD 9E in UTF-8) sorts before U+1F600 (F0 9F 98 80) in bytes, after it in UTF-16 units
    const ids = ['shoe-b', 'shoe-\u{1F600}', 'shoe-A', 'shoe-\uFF5E', 'shoe-a'];
    expect(sortStreams(ids.map((streamId) => ({ ...s, streamId }))).map((x) => x.streamId)).toEqual(['shoe-A', 'shoe-a', 'shoe-b', 'shoe-\uFF5E', 'shoe-\u{1F600}']);
    expect(compareStreamIds('a', 'a')).toBe(0);
  });
});
