/**
 * Anchor checkpoints (docs/guarantees.md §8, docs/anchors.md): the exact signed bytes, Ed25519 with
 * node:crypto (RFC 8032 known answer), signature verification, the key id, the line parser.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { ANCHOR_FORMAT, GENESIS_ANCHOR_HASH, anchorHash, anchorText, buildCheckpoint, checkpointBytes, parseAnchor, publicKeyId, signCheckpoint, verifyAnchorSignature } from './checkpoint';
import { streamsMerkleRoot } from './merkle';

// RFC 8032 §7.1, TEST 1
const SEED = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const PUBLIC = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const EMPTY_SIGNATURE = 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';
const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(SEED, 'hex')]), format: 'der', type: 'pkcs8' });
const publicKey = createPublicKey(privateKey);
const KEY_ID = publicKeyId(publicKey);

const input = {
  ledgerId: 'ledger@16384',
  seq: 7,
  createdAt: new Date('2026-12-01T10:00:00.123Z'),
  globalPosition: 1234n,
  streams: [
    { streamId: 'shoe-S2', version: 3, headHash: 'cd'.repeat(32) },
    { streamId: 'shoe-S1', version: 12, headHash: 'ab'.repeat(32) },
  ],
  previousAnchorHash: 'ef'.repeat(32),
  keyId: KEY_ID,
};

describe('Ed25519 through node:crypto', () => {
  it('is RFC 8032 Ed25519 (TEST 1: public key and signature of the empty message)', () => {
    expect(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex')).toBe(PUBLIC);
    expect(sign(null, Buffer.alloc(0), privateKey).toString('hex')).toBe(EMPTY_SIGNATURE);
  });

  it('names a key by the first 16 hex of SHA-256 over its DER SubjectPublicKeyInfo', () => {
    expect(KEY_ID).toBe(
      'ed25519:' +
        createHash('sha256')
          .update(publicKey.export({ type: 'spki', format: 'der' }))
          .digest('hex')
          .slice(0, 16),
    );
    expect(publicKeyId(privateKey)).toBe(KEY_ID);
    expect(KEY_ID).toMatch(/^ed25519:[0-9a-f]{16}$/);
  });
});

describe('the checkpoint and its signed bytes', () => {
  const c = buildCheckpoint(input);

  it('sorts the streams, computes the Merkle root and writes positions as decimal strings', () => {
    expect(c.streams.map((s) => s.streamId)).toEqual(['shoe-S1', 'shoe-S2']);
    expect(c.merkleRoot).toBe(streamsMerkleRoot(c.streams));
    expect(c.globalPosition).toBe('1234');
    expect(c.format).toBe(ANCHOR_FORMAT);
  });

  it('signs exactly the canonical JSON (RFC 8785): keys sorted, no whitespace', () => {
    expect(checkpointBytes(c).toString('utf8')).toBe(
      `{"createdAt":"2026-12-01T10:00:00.123Z","format":"baccarat-ledger-anchor/1","globalPosition":"1234","keyId":"${KEY_ID}",` +
        `"ledgerId":"ledger@16384","merkleRoot":"${c.merkleRoot}","previousAnchorHash":"${'ef'.repeat(32)}","seq":7,` +
        `"streams":[{"headHash":"${'ab'.repeat(32)}","streamId":"shoe-S1","version":12},{"headHash":"${'cd'.repeat(32)}","streamId":"shoe-S2","version":3}]}`,
    );
  });

  it('hashes the same bytes for the chain of checkpoints', () => {
    expect(anchorHash(c)).toBe(createHash('sha256').update(checkpointBytes(c)).digest('hex'));
    expect(GENESIS_ANCHOR_HASH).toBe('0'.repeat(64));
  });

  it('is signed deterministically and verifies; the line is canonical JSON of checkpoint, keyId, signature', () => {
    const a = signCheckpoint(c, privateKey);
    expect(a.keyId).toBe(KEY_ID);
    expect(Buffer.from(a.signature, 'base64')).toHaveLength(64);
    expect(signCheckpoint(c, privateKey).signature).toBe(a.signature);
    expect(verifyAnchorSignature(a, publicKey)).toBe(true);
    expect(anchorText(a)).toBe(`{"checkpoint":${checkpointBytes(c).toString('utf8')},"keyId":"${KEY_ID}","signature":"${a.signature}"}`);
  });
});

describe('verifyAnchorSignature refuses', () => {
  const a = signCheckpoint(buildCheckpoint(input), privateKey);

  it.each([
    ['a changed head hash', { ...a, checkpoint: { ...a.checkpoint, streams: [{ ...a.checkpoint.streams[0], headHash: '00'.repeat(32) }, a.checkpoint.streams[1]] } }],
    ['a changed position', { ...a, checkpoint: { ...a.checkpoint, globalPosition: '1235' } }],
    ['a changed previous anchor', { ...a, checkpoint: { ...a.checkpoint, previousAnchorHash: GENESIS_ANCHOR_HASH } }],
    ['a flipped signature bit', { ...a, signature: Buffer.from(Buffer.from(a.signature, 'base64').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64') }],
    ['a truncated signature', { ...a, signature: a.signature.slice(0, 40) }],
    ['garbage', { ...a, signature: 'not base64 at all!' }],
  ])('%s', (_what, forged) => {
    expect(verifyAnchorSignature(forged, publicKey)).toBe(false);
  });

  it('a signature by another key', () => {
    const other = generateKeyPairSync('ed25519');
    expect(verifyAnchorSignature(a, other.publicKey)).toBe(false);
    expect(() => signCheckpoint(a.checkpoint, other.privateKey)).toThrow(/names key/);
  });
});

describe('parseAnchor', () => {
  const a = signCheckpoint(buildCheckpoint(input), privateKey);

  it('reads back what anchorText wrote', () => {
    const p = parseAnchor(anchorText(a));
    expect(p).toEqual({ anchor: a });
  });

  it.each([
    ['not JSON', '{"checkpoint":', /not JSON/],
    ['another format', anchorText({ ...a, checkpoint: { ...a.checkpoint, format: 'x/2' } }), /format/],
    ['a keyId that differs from the signed one', anchorText({ ...a, keyId: 'ed25519:0000000000000000' }), /differs/],
    ['unsorted streams', anchorText({ ...a, checkpoint: { ...a.checkpoint, streams: [...a.checkpoint.streams].reverse() } }), /sorted/],
    ['a non-integer version', anchorText({ ...a, checkpoint: { ...a.checkpoint, streams: [{ ...a.checkpoint.streams[0], version: 1.5 }] } }), /version/],
    ['an extra field', anchorText({ ...a, checkpoint: { ...a.checkpoint, note: 'x' } as never }), /unknown checkpoint fields/],
    ['a numeric position', anchorText({ ...a, checkpoint: { ...a.checkpoint, globalPosition: 5 as never } }), /globalPosition/],
  ])('refuses %s', (_what, text, reason) => {
    const p = parseAnchor(text);
    expect('error' in p && p.error).toMatch(reason);
  });
});
