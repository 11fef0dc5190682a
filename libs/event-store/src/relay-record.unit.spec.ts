import { canonicalJson } from './hash';
import { DEV_RECORD_SIGNING_KEY, RECORD_SIGNATURE_HEADER, recordSignature, verifyRecordSignature } from './record-signature';
import { envelopeJson, LEDGER_RECORD_HEADERS, LedgerRecordBuilder, toKafkaMessage } from './relay-record';
import { rowToEnvelope, type EventRow } from './rows';

/**
 * The relay's Kafka record (docs/architecture.md §6, docs/guarantees.md §8): the value is exactly the
 * canonical JSON of the stored envelope, the headers exactly the CloudEvents binding's required
 * attributes, content-type and the signature over key and value.
 */

const KEY = 'a-record-signing-key-of-more-than-32-bytes';

function row(over: Partial<EventRow> = {}): EventRow & { key: string } {
  return {
    key: 'T-1',
    global_position: '7',
    event_id: '0b9f4b58-3c1e-4b8e-9a56-2f1d3c4b5a69',
    stream_id: 'shoe-s1',
    stream_version: 3,
    table_id: 'T-1',
    type: 'BetPlaced',
    schema_version: 1,
    data: { stake: '500', betId: 'B-1', roundId: 'R-1', betCode: 'PLAYER', accountId: 'A-1', currency: 'EUR' },
    actor_id: 'terminal-1',
    actor_role: 'pit-terminal',
    occurred_at: new Date('2025-03-01T05:00:00.123Z'),
    recorded_at: new Date('2025-03-01T05:00:01Z'),
    correlation_id: 'c-1',
    causation_id: 'c-0',
    prev_hash: '0'.repeat(64),
    hash: 'f'.repeat(64),
    ...over,
    ...(over.table_id !== undefined && !('key' in over) ? { key: over.table_id } : {}),
  } as EventRow & { key: string };
}

// strings JSON must escape, non-ASCII, astral and lone surrogates, line separators; keys whose
// UTF-16 order differs from their code-point order; nested arrays and objects; numbers
const awkward = ['plain', 'quo"te\\back', 'tab\tnl\ncr\r\u0000\u001f', 'é ü ß 中文', '😀 astral', '\ud800 lone', '\u2028\u2029', ''];
const awkwardData = {
  z: 1,
  a: [3, 2, { y: 'x', b: [] }],
  '\ufb01': 'U+FB01 sorts after U+1F600 in UTF-16',
  '😀': 'astral key',
  é: -0.5,
  nested: { n: null, t: true, f: false, big: 9007199254740991, small: 1e-7, exp: 1e21 },
};

describe('the relay record value (RFC 8785 canonical JSON of the stored envelope)', () => {
  it('is byte-identical to canonicalJson(rowToEnvelope(row)) for awkward strings, keys and data', () => {
    const rows = [row(), row({ data: awkwardData }), row({ data: {} }), row({ global_position: '9223372036854775807', stream_version: 2 ** 31 - 1, schema_version: 12 })];
    for (const s of awkward) {
      rows.push(row({ actor_id: s, causation_id: s, correlation_id: s, event_id: s, stream_id: `shoe-${s}`, table_id: s || 'T', type: s, prev_hash: s, hash: s, data: { [s]: s } }));
    }
    rows.push(row({ occurred_at: new Date('1999-12-31T23:59:59.999Z'), recorded_at: new Date(0) }));
    for (const r of rows) expect(envelopeJson(r)).toBe(canonicalJson(rowToEnvelope(r)));
  });

  it('refuses a non-integer version rather than writing something else than the envelope', () => {
    expect(() => envelopeJson(row({ stream_version: 1.5 }))).toThrow(/integer/);
  });
});

describe('the relay record', () => {
  it('has key = table id, value = the envelope bytes, and exactly the documented headers', () => {
    const r = row();
    const m = new LedgerRecordBuilder(KEY).build(r);
    expect(m.key!.toString()).toBe('T-1');
    expect(Buffer.isBuffer(m.value)).toBe(true);
    expect(m.value!.toString('utf8')).toBe(canonicalJson(rowToEnvelope(r)));
    const headers = Object.fromEntries(Object.entries(m.headers!).map(([k, v]) => [k, v.toString()]));
    expect(Object.keys(headers)).toEqual([...LEDGER_RECORD_HEADERS]);
    expect(headers).toEqual({
      ce_specversion: '1.0',
      ce_id: r.event_id,
      ce_source: '/tables/T-1',
      ce_type: 'baccarat.ledger.BetPlaced.v1',
      'content-type': 'application/json',
      [RECORD_SIGNATURE_HEADER]: recordSignature(KEY, 'T-1', canonicalJson(rowToEnvelope(r))),
    });
  });

  it('is signed over its key and value: it verifies, and a changed key or value does not', () => {
    const m = new LedgerRecordBuilder(KEY).build(row());
    const sig = m.headers![RECORD_SIGNATURE_HEADER] as string;
    expect(verifyRecordSignature(KEY, m.key as Buffer, m.value as Buffer, sig)).toBe(true);
    expect(verifyRecordSignature(KEY, 'T-2', m.value as Buffer, sig)).toBe(false);
    expect(verifyRecordSignature(KEY, m.key as Buffer, Buffer.from(m.value!.toString().replace('"500"', '"501"')), sig)).toBe(false);
    expect(verifyRecordSignature(DEV_RECORD_SIGNING_KEY, m.key as Buffer, m.value as Buffer, sig)).toBe(false);
  });

  it('is deterministic across builders and tables (a re-send is byte-identical), and the key is the outbox key', () => {
    const a = new LedgerRecordBuilder(KEY);
    const b = new LedgerRecordBuilder(KEY);
    for (const tableId of ['T-1', 'T-2', 'T-1']) {
      const r = row({ table_id: tableId });
      expect(a.build(r)).toEqual(b.build(r));
      expect(a.build(r).headers!.ce_source.toString()).toBe(`/tables/${tableId}`);
    }
    const odd = a.build({ ...row(), key: 'K-9' });
    expect(odd.key!.toString()).toBe('K-9');
    expect(odd.headers!.ce_source.toString()).toBe('/tables/T-1');
    expect(verifyRecordSignature(KEY, 'K-9', odd.value as Buffer, odd.headers![RECORD_SIGNATURE_HEADER])).toBe(true);
    expect(toKafkaMessage(row(), KEY)).toEqual(a.build(row()));
    expect(toKafkaMessage(row())).toEqual(new LedgerRecordBuilder(DEV_RECORD_SIGNING_KEY).build(row()));
  });
});
