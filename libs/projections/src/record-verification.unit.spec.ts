import { computeEventHash, DEV_RECORD_SIGNING_KEY, LedgerRecordBuilder, RECORD_SIGNATURE_HEADER, recordSignature, envelopeToRow } from '@ledger/event-store';
import type { LedgerEvent } from '@ledger/events';
import { GENESIS_HASH } from '@ledger/events';
import { keptHeaders } from './quarantine';
import { checkLink, checkRecord, claimedIdentity, QUARANTINE_REASONS } from './record-verification';
import { signedMessage, toMessage } from './testing/kafka-kit';
import { smallShoe } from './testing/small-shoe.fixture';

/** The projector's checks of a record before it applies it (docs/guarantees.md §8), pure. */
describe('verifying a ledger record', () => {
  const fx = smallShoe({ shoeId: 'ver-1', tableId: 'T-VER-1' });
  const [first, second] = fx.events;
  const at = { topic: 't', partition: 0, offset: '3' };
  const record = (m: ReturnType<typeof toMessage>) => ({ ...at, key: m.key as string, value: Buffer.from(m.value as string), headers: m.headers as Record<string, string> });
  const reasonOf = (r: ReturnType<typeof checkRecord>) => (r.ok ? 'OK' : r.refusal.reason);

  it('accepts what the relay publishes: signed, well-formed, its hash recomputed', () => {
    const r = checkRecord(record(toMessage(first)), DEV_RECORD_SIGNING_KEY);
    expect(r).toEqual({ ok: true, event: first });
  });

  /** The events row of an event, as the relay reads it. */
  const rowOf = (e: LedgerEvent) => envelopeToRow(e);
  /** A record as kafkajs delivers it: key, value and header values as bytes. */
  const delivered = (m: { key?: unknown; value: unknown; headers?: Record<string, unknown> }) => ({
    ...at,
    key: Buffer.from(String(m.key)),
    value: Buffer.from(m.value as Buffer),
    headers: Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, Buffer.from(String(v))])),
  });

  it('accepts the relay’s own records (6 headers) and those of older relays (10 headers: an old topic replayed)', () => {
    const relay = new LedgerRecordBuilder(DEV_RECORD_SIGNING_KEY);
    for (const e of fx.events) {
      const m = relay.build(rowOf(e));
      expect(Object.keys(m.headers!)).toEqual(['ce_specversion', 'ce_id', 'ce_source', 'ce_type', 'content-type', RECORD_SIGNATURE_HEADER]);
      expect(checkRecord(delivered(m), DEV_RECORD_SIGNING_KEY)).toEqual({ ok: true, event: e });
      // an older relay: same key, value and signature, plus ce_time, ce_subject, schema_version, global_position
      const old = { ...m, headers: { ...m.headers, ce_time: e.occurredAt, ce_subject: e.streamId, schema_version: String(e.schemaVersion), global_position: e.globalPosition } };
      expect(checkRecord(delivered(old), DEV_RECORD_SIGNING_KEY)).toEqual({ ok: true, event: e });
    }
  });

  it('refuses forgeries of the new layout: other key, unsigned, a signed value under another ce_id, a value swapped under a valid signature', () => {
    const relay = new LedgerRecordBuilder(DEV_RECORD_SIGNING_KEY);
    const forger = new LedgerRecordBuilder('an-attacker-key-of-at-least-32-bytes!!');
    const m = relay.build(rowOf(second));
    expect(reasonOf(checkRecord(delivered(forger.build(rowOf(second))), DEV_RECORD_SIGNING_KEY))).toBe('SIGNATURE_INVALID');
    const { [RECORD_SIGNATURE_HEADER]: _sig, ...unsignedHeaders } = m.headers!;
    expect(reasonOf(checkRecord(delivered({ ...m, headers: unsignedHeaders }), DEV_RECORD_SIGNING_KEY))).toBe('SIGNATURE_INVALID');
    expect(reasonOf(checkRecord(delivered({ ...m, headers: { ...m.headers, ce_id: first.eventId } }), DEV_RECORD_SIGNING_KEY))).toBe('MALFORMED');
    const other = relay.build(rowOf(first));
    expect(reasonOf(checkRecord(delivered({ ...m, value: other.value }), DEV_RECORD_SIGNING_KEY))).toBe('SIGNATURE_INVALID');
    // headers are not signed: one contradicting the signed value is refused, not believed
    expect(reasonOf(checkRecord(delivered({ ...m, headers: { ...m.headers, ce_type: 'baccarat.ledger.ShoeVoided.v1' } }), DEV_RECORD_SIGNING_KEY))).toBe('MALFORMED');
    expect(reasonOf(checkRecord(delivered({ ...m, headers: { ...m.headers, ce_source: '/tables/elsewhere' } }), DEV_RECORD_SIGNING_KEY))).toBe('MALFORMED');
    expect(m.headers![RECORD_SIGNATURE_HEADER]).toBe(recordSignature(DEV_RECORD_SIGNING_KEY, second.tableId, m.value as Buffer));
  });

  it('refuses a record without a signature or with one made with another key (SIGNATURE_INVALID), and reads what it claims', () => {
    const unsigned = checkRecord(record(toMessage(first, null)), DEV_RECORD_SIGNING_KEY);
    expect(unsigned).toEqual({
      ok: false,
      refusal: { reason: 'SIGNATURE_INVALID', detail: `no ${RECORD_SIGNATURE_HEADER} header`, authentic: false, eventId: first.eventId, streamId: first.streamId, streamVersion: 1 },
    });
    const otherKey = checkRecord(record(toMessage(first, 'an-attacker-key-of-at-least-32-bytes!!')), DEV_RECORD_SIGNING_KEY);
    expect(otherKey.ok === false && otherKey.refusal).toMatchObject({ reason: 'SIGNATURE_INVALID', detail: expect.stringMatching(/does not verify/) });
    // a self-consistent chain is not enough: valid hashes, no signature
    expect(fx.events.slice(0, 5).map((e) => reasonOf(checkRecord(record(toMessage(e, null)), DEV_RECORD_SIGNING_KEY)))).toEqual(Array(5).fill('SIGNATURE_INVALID'));
  });

  it('refuses a signed record changed in one byte of its value or its key (SIGNATURE_INVALID)', () => {
    const m = record(toMessage(first));
    const value = Buffer.from(m.value);
    expect(value.indexOf('"decks":8')).toBeGreaterThan(0);
    const i = value.indexOf('"decks":8') + '"decks":'.length;
    value[i] = '9'.charCodeAt(0);
    expect(reasonOf(checkRecord({ ...m, value }, DEV_RECORD_SIGNING_KEY))).toBe('SIGNATURE_INVALID');
    expect(reasonOf(checkRecord({ ...m, key: 'T-VER-2' }, DEV_RECORD_SIGNING_KEY))).toBe('SIGNATURE_INVALID');
    expect(reasonOf(checkRecord({ ...m, key: null }, DEV_RECORD_SIGNING_KEY))).toBe('SIGNATURE_INVALID');
  });

  it('refuses a signed record whose hash is not the hash of its canonical bytes (HASH_MISMATCH)', () => {
    const madeUp = { ...first, hash: 'ab'.repeat(32) };
    const r = checkRecord(record(toMessage(madeUp)), DEV_RECORD_SIGNING_KEY);
    expect(r.ok === false && r.refusal).toMatchObject({ reason: 'HASH_MISMATCH', authentic: true, eventId: first.eventId, detail: expect.stringContaining(first.hash) });
    // data changed after hashing, then signed (a relay fed a rewritten row)
    const rewritten = { ...first, data: { ...first.data, decks: 6 } };
    expect(reasonOf(checkRecord(record(toMessage(rewritten as never)), DEV_RECORD_SIGNING_KEY))).toBe('HASH_MISMATCH');
    // the hash is over the envelope as stored: a consistent recomputation is accepted
    expect(reasonOf(checkRecord(record(toMessage({ ...rewritten, hash: computeEventHash(rewritten) } as never)), DEV_RECORD_SIGNING_KEY))).toBe('OK');
  });

  it('refuses what it cannot read (MALFORMED, UNKNOWN_TYPE), signed or not', () => {
    const sign = (value: string) => ({ ...at, ...signedMessage('T-VER-1', value) }) as never;
    expect(reasonOf(checkRecord(sign('{not json'), DEV_RECORD_SIGNING_KEY))).toBe('MALFORMED');
    expect(reasonOf(checkRecord(sign(JSON.stringify({ ...first, actor: { id: 'x', role: 'croupier' } })), DEV_RECORD_SIGNING_KEY))).toBe('MALFORMED');
    expect(reasonOf(checkRecord({ ...at, key: 'T', value: null, headers: {} }, DEV_RECORD_SIGNING_KEY))).toBe('SIGNATURE_INVALID');
    expect(reasonOf(checkRecord({ ...at, ...signedMessage('T', '') } as never, DEV_RECORD_SIGNING_KEY))).toBe('MALFORMED');
    expect(reasonOf(checkRecord(sign(JSON.stringify({ ...first, type: 'ShoeTeleported' })), DEV_RECORD_SIGNING_KEY))).toBe('UNKNOWN_TYPE');
    expect(reasonOf(checkRecord(sign(JSON.stringify({ ...first, schemaVersion: 99 })), DEV_RECORD_SIGNING_KEY))).toBe('UNKNOWN_TYPE');
  });

  it('links an event to its stream head: next version, prevHash = the head hash, version 1 after genesis', () => {
    expect(checkLink(undefined, first)).toBeNull();
    expect(first.prevHash).toBe(GENESIS_HASH);
    expect(checkLink({ version: 1, hash: first.hash }, second)).toBeNull();
    expect(checkLink({ version: 1, hash: first.hash }, first)?.reason).toBe('VERSION_CONFLICT');
    const another = { ...second, eventId: 'other' };
    expect(checkLink({ version: 2, hash: second.hash }, another)?.reason).toBe('VERSION_CONFLICT');
    expect(checkLink(undefined, second)).toEqual({ reason: 'VERSION_GAP', detail: 'shoe-ver-1 version 2 follows 0: 1 version(s) missing' });
    expect(checkLink({ version: 1, hash: first.hash }, fx.events[3])?.reason).toBe('VERSION_GAP');
    expect(checkLink({ version: 1, hash: 'cd'.repeat(32) }, second)?.reason).toBe('PREV_HASH_MISMATCH');
    const relinked = { ...first, prevHash: first.hash };
    expect(checkLink(undefined, relinked)?.reason).toBe('PREV_HASH_MISMATCH');
  });

  it('reads the claimed identity of anything, and keeps hostile headers storable', () => {
    expect(claimedIdentity(null)).toEqual({});
    expect(claimedIdentity('[1]')).toEqual({});
    expect(claimedIdentity(JSON.stringify({ eventId: 'e', streamId: 's', streamVersion: 2 }))).toEqual({ eventId: 'e', streamId: 's', streamVersion: 2 });
    expect(claimedIdentity(JSON.stringify({ eventId: 7, streamVersion: -1 }))).toEqual({});
    expect(keptHeaders({ a: 'text', b: Buffer.from([0xff, 0x00]), 'c\u0000': ['x\u0000y'] })).toEqual({ a: 'text', b: { base64: '/wA=' }, 'c\ufffd': [{ base64: Buffer.from('x\u0000y').toString('base64') }] });
  });

  it('names every reason the read model accepts', () => {
    expect(QUARANTINE_REASONS).toEqual(['SIGNATURE_INVALID', 'MALFORMED', 'UNKNOWN_TYPE', 'HASH_MISMATCH', 'EVENT_ID_CONFLICT', 'VERSION_CONFLICT', 'VERSION_GAP', 'PREV_HASH_MISMATCH', 'PREDECESSOR_QUARANTINED']);
  });
});
