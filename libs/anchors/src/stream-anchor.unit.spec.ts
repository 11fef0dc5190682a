/**
 * The anchor status of one stream for the game recall (stream-anchor.ts, docs/anchors.md): the
 * latest signed checkpoint naming the stream, its signature and Merkle root, and the event store's
 * hash at the anchored version — each way it can fail.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENESIS_ANCHOR_HASH, anchorHash, anchorText, buildCheckpoint, publicKeyId, signCheckpoint, type SignedAnchor } from './checkpoint';
import { streamAnchorStatus } from './stream-anchor';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const KEY_ID = publicKeyId(publicKey);
const H = (c: string) => c.repeat(64);
const dir = mkdtempSync(join(tmpdir(), 'stream-anchor-'));

function anchors(): SignedAnchor[] {
  const a1 = signCheckpoint(
    buildCheckpoint({
      ledgerId: 'l',
      seq: 1,
      createdAt: new Date('2026-12-01T10:00:00Z'),
      globalPosition: 10n,
      streams: [
        { streamId: 'shoe-A', version: 5, headHash: H('a') },
        { streamId: 'shoe-B', version: 2, headHash: H('b') },
      ],
      previousAnchorHash: GENESIS_ANCHOR_HASH,
      keyId: KEY_ID,
    }),
    privateKey,
  );
  const a2 = signCheckpoint(
    buildCheckpoint({
      ledgerId: 'l',
      seq: 2,
      createdAt: new Date('2026-12-01T10:01:00Z'),
      globalPosition: 20n,
      streams: [{ streamId: 'shoe-A', version: 9, headHash: H('c') }],
      previousAnchorHash: anchorHash(a1.checkpoint),
      keyId: KEY_ID,
    }),
    privateKey,
  );
  return [a1, a2];
}

function file(name: string, lines: string[]): string {
  const f = join(dir, name);
  writeFileSync(f, lines.join('\n') + '\n');
  return f;
}

const keys: ReadonlyMap<string, KeyObject> = new Map([[KEY_ID, publicKey]]);
const ledger = (hashes: Record<number, string>) => async (v: number) => hashes[v] ?? null;

describe('streamAnchorStatus', () => {
  it('takes the latest checkpoint naming the stream and checks it against the event store', async () => {
    const f = file('ok.jsonl', [...anchors().map(anchorText), 'not json at all']);
    const s = await streamAnchorStatus({ file: f, publicKeys: keys, streamId: 'shoe-A', hashAt: ledger({ 9: H('c') }) });
    expect(s).toMatchObject({ status: 'ANCHORED', seq: 2, anchoredVersion: 9, anchoredHash: H('c'), signatureValid: true, matchesLedger: true, problem: null, keyId: KEY_ID });
    const b = await streamAnchorStatus({ file: f, publicKeys: keys, streamId: 'shoe-B', hashAt: ledger({ 2: H('b') }) });
    expect(b).toMatchObject({ status: 'ANCHORED', seq: 1, anchoredVersion: 2 });
  });

  it('says NOT_YET_ANCHORED for a stream no checkpoint names, and for a missing file', async () => {
    const f = file('none.jsonl', anchors().map(anchorText));
    expect((await streamAnchorStatus({ file: f, publicKeys: keys, streamId: 'shoe-Z', hashAt: ledger({}) })).status).toBe('NOT_YET_ANCHORED');
    expect((await streamAnchorStatus({ file: join(dir, 'absent.jsonl'), publicKeys: keys, streamId: 'shoe-A', hashAt: ledger({}) })).status).toBe('NOT_YET_ANCHORED');
  });

  it('finds a rewritten event store: another hash, or no event, at the anchored version', async () => {
    const f = file('rewrite.jsonl', anchors().map(anchorText));
    const other = await streamAnchorStatus({ file: f, publicKeys: keys, streamId: 'shoe-A', hashAt: ledger({ 9: H('d') }) });
    expect(other).toMatchObject({ status: 'MISMATCH', matchesLedger: false, signatureValid: true });
    expect(other.problem).toMatch(/version 9 has another hash/);
    const gone = await streamAnchorStatus({ file: f, publicKeys: keys, streamId: 'shoe-A', hashAt: ledger({}) });
    expect(gone).toMatchObject({ status: 'MISMATCH', matchesLedger: false });
  });

  it('finds a forged checkpoint: a head changed after signing, or a Merkle root that is not its heads', async () => {
    const [a1, a2] = anchors();
    const forged = { ...a2, checkpoint: { ...a2.checkpoint, streams: [{ streamId: 'shoe-A', version: 9, headHash: H('e') }] } };
    const f = file('forged.jsonl', [anchorText(a1), JSON.stringify(forged)]);
    const s = await streamAnchorStatus({ file: f, publicKeys: keys, streamId: 'shoe-A', hashAt: ledger({ 9: H('e') }) });
    expect(s).toMatchObject({ status: 'MISMATCH', signatureValid: false });
    const badRoot = signCheckpoint({ ...a2.checkpoint, merkleRoot: H('f') }, privateKey);
    const g = file('root.jsonl', [anchorText(a1), anchorText(badRoot)]);
    const r = await streamAnchorStatus({ file: g, publicKeys: keys, streamId: 'shoe-A', hashAt: ledger({ 9: H('c') }) });
    expect(r).toMatchObject({ status: 'MISMATCH', signatureValid: true });
    expect(r.problem).toMatch(/Merkle root/);
  });

  it('cannot vouch without the public key of the checkpoint', async () => {
    const f = file('nokey.jsonl', anchors().map(anchorText));
    const other = generateKeyPairSync('ed25519').publicKey;
    const s = await streamAnchorStatus({ file: f, publicKeys: new Map([[publicKeyId(other), other]]), streamId: 'shoe-A', hashAt: ledger({ 9: H('c') }) });
    expect(s).toMatchObject({ status: 'UNVERIFIABLE', signatureValid: null, seq: 2 });
    expect(s.problem).toMatch(/no public key/);
  });
});
