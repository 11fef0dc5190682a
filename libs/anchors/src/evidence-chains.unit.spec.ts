/**
 * The evidence chains' hash (docs/anchors.md "The evidence chains"): the encoding written out byte for byte, so that the
 * TypeScript side cannot drift from the documented formula the database's functions compute
 * (test/attack/evidence-forgery.int.spec.ts checks the two agree on rows PostgreSQL wrote).
 */
import { createHash } from 'node:crypto';
import { EVIDENCE_GENESIS, ItemsDigest, WALLET_ITEM_TAG, WALLET_ITEM_TAG_2, evidenceBody, evidenceField, evidenceHash } from './evidence-chains';

const sha = (b: string | Buffer) => createHash('sha256').update(b).digest();

describe('evidence hash', () => {
  it('encodes a field as its UTF-8 byte length, a colon and the text; null as ~', () => {
    expect(evidenceField(null)).toBe('~');
    expect(evidenceField('')).toBe('0:');
    expect(evidenceField('abc')).toBe('3:abc');
    // é is 2 bytes, € 3, 😀 4 (a surrogate pair in UTF-16: length 2, still 4 bytes)
    expect(evidenceField('é€😀')).toBe('9:é€😀');
    expect(evidenceField('a|b')).toBe('3:a|b');
  });

  it('a body is the tag, then | and each encoded field', () => {
    expect(evidenceBody('query_log/1', ['1', null, '{"a": 1}'])).toBe('query_log/1|1:1|~|8:{"a": 1}');
    expect(evidenceBody('t', [])).toBe('t');
  });

  it('the hash is hex SHA-256 of prev_hash, | and the body', () => {
    const fields = ['1', '2026-12-06T10:00:00.123456Z', '42', null];
    const bytes = `${EVIDENCE_GENESIS}|query_log/1|1:1|27:2026-12-06T10:00:00.123456Z|2:42|~`;
    expect(evidenceHash('query_log/1', EVIDENCE_GENESIS, fields)).toBe(sha(Buffer.from(bytes, 'utf8')).toString('hex'));
    // fields that would run together without the lengths stay apart
    expect(evidenceHash('t', EVIDENCE_GENESIS, ['ab', 'c'])).not.toBe(evidenceHash('t', EVIDENCE_GENESIS, ['a', 'bc']));
    expect(evidenceHash('t', EVIDENCE_GENESIS, [null])).not.toBe(evidenceHash('t', EVIDENCE_GENESIS, ['~']));
  });

  it("a run's items digest is SHA-256 over each item's raw SHA-256, in order; none: SHA-256 of nothing", () => {
    expect(new ItemsDigest().hex()).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    const d = new ItemsDigest();
    d.add(['r', '1']);
    d.add(['r', '2']);
    expect(d.count).toBe(2);
    const inner = (seq: string) => sha(Buffer.from(`${WALLET_ITEM_TAG}|1:r|1:${seq}`, 'utf8'));
    expect(d.hex()).toBe(sha(Buffer.concat([inner('1'), inner('2')])).toString('hex'));
  });

  it('an item with wallet values is digested under its own tag, so clearing them changes the digest; an unknown tag is refused', () => {
    const one = new ItemsDigest();
    one.add(['r', '1', '{}'], WALLET_ITEM_TAG_2);
    const digest = one.hex();
    expect(digest).toBe(sha(sha(Buffer.from(`${WALLET_ITEM_TAG_2}|1:r|1:1|2:{}`, 'utf8'))).toString('hex'));
    const cleared = new ItemsDigest();
    cleared.add(['r', '1'], WALLET_ITEM_TAG);
    expect(cleared.hex()).not.toBe(digest);
    expect(() => new ItemsDigest().add(['r', '1'], 'wallet_match_items/9')).toThrow('unknown wallet item tag');
  });
});
