import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES, type LedgerEvent } from '@ledger/events';
import { canonicalJson, computeEventHash, hashedFields } from './hash';
import { recordSignature, verifyRecordSignature } from './record-signature';
import { toKafkaMessage } from './relay-record';
import { envelopeToRow } from './rows';

/**
 * Known answers of the hash chain and the record signature (docs/guarantees.md §8): the FROZEN
 * fixture `known-answers.json` (generated once by scripts/gen-known-answers.ts, never from this
 * spec) holds events of every type and of the three games, canonical JSON cases (unicode, big
 * numbers, nesting, key-order variants) and record signatures, each with its expected bytes. The
 * code of today must give exactly those bytes: a dependency upgrade (`canonicalize`, Node's crypto)
 * or a refactoring that changed the chain fails here. Each expectation is also checked against
 * Node's SHA-256/HMAC applied to the stored bytes, so the stored hashes follow the documented formula.
 */
interface Fixture {
  signingKey: string;
  devSigningKey: string;
  events: { envelope: LedgerEvent; canonicalHex: string; hash: string; record: { key: string; valueHex: string; ledgerSigDevKey: string; ledgerSigFixtureKey: string } }[];
  canonical: { name: string; json: string; canonicalHex: string }[];
  signatures: { key: string | null; valueHex: string; secret: string; signature: string }[];
}

const fx = JSON.parse(readFileSync(join(__dirname, 'known-answers.json'), 'utf8')) as Fixture;
const hexOf = (s: string) => Buffer.from(s, 'utf8').toString('hex');

/** `v` with every object's keys in reverse insertion order (a key-order variant, same JSON value). */
function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reversedKeys(x)]),
    );
  return v;
}

const rowOf = (e: LedgerEvent) => envelopeToRow(e);

describe('known answers: hash chain and record signature (docs/guarantees.md §8)', () => {
  it('the fixture covers every event type, the three games, and a chained run of events', () => {
    const types = new Set(fx.events.map((e) => e.envelope.type));
    expect([...EVENT_TYPES].filter((t) => !types.has(t))).toEqual([]);
    const variants = new Set(fx.events.filter((e) => e.envelope.type === 'ShoeOpened').map((e) => (e.envelope.data as { variant: string }).variant));
    expect([...variants].sort()).toEqual(['classic', 'fabulous4', 'tiger']);
    const crafted = fx.events.filter((e) => e.envelope.eventId.startsWith('5a1e0000-'));
    expect(crafted.length).toBe(7);
    for (let i = 1; i < crafted.length; i++) expect(crafted[i].envelope.prevHash).toBe(crafted[i - 1].hash);
  });

  it.each(fx.events.map((e) => [`${e.envelope.type} ${e.envelope.eventId}`, e] as const))('%s: canonical bytes and hash as stored', (_name, e) => {
    expect(hexOf(canonicalJson(hashedFields(e.envelope)))).toBe(e.canonicalHex);
    expect(computeEventHash(e.envelope)).toBe(e.hash);
    expect(e.envelope.hash).toBe(e.hash);
    // the documented formula over the stored bytes: hex(SHA-256(prevHash ‖ canonical bytes))
    expect(createHash('sha256').update(e.envelope.prevHash, 'utf8').update(Buffer.from(e.canonicalHex, 'hex')).digest('hex')).toBe(e.hash);
    // a key-order variant of the same envelope hashes the same
    expect(computeEventHash(reversedKeys(e.envelope) as LedgerEvent)).toBe(e.hash);
  });

  it.each(fx.events.map((e) => [`${e.envelope.type} ${e.envelope.eventId}`, e] as const))('%s: Kafka record value and ledger-sig as stored', (_name, e) => {
    const message = toKafkaMessage(rowOf(e.envelope), fx.devSigningKey);
    expect(String(message.key)).toBe(e.record.key);
    expect((message.value as Buffer).toString('hex')).toBe(e.record.valueHex);
    expect(String((message.headers as Record<string, unknown>)['ledger-sig'])).toBe(e.record.ledgerSigDevKey);
    const value = Buffer.from(e.record.valueHex, 'hex');
    expect(recordSignature(fx.signingKey, e.record.key, value)).toBe(e.record.ledgerSigFixtureKey);
    expect(verifyRecordSignature(fx.devSigningKey, e.record.key, value, e.record.ledgerSigDevKey)).toBe(true);
    // the documented formula: hex(HMAC-SHA256(secret, uint32be(len(key)) ‖ key ‖ value))
    const key = Buffer.from(e.record.key, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(key.length);
    expect(createHmac('sha256', Buffer.from(fx.devSigningKey, 'utf8')).update(len).update(key).update(value).digest('hex')).toBe(e.record.ledgerSigDevKey);
  });

  it.each(fx.canonical.map((c) => [c.name, c] as const))('canonical JSON: %s', (_name, c) => {
    expect(hexOf(canonicalJson(JSON.parse(c.json)))).toBe(c.canonicalHex);
    expect(hexOf(canonicalJson(reversedKeys(JSON.parse(c.json))))).toBe(c.canonicalHex);
  });

  it('the two key-order cases are the same canonical bytes', () => {
    const [a, b] = fx.canonical.filter((c) => c.name.startsWith('key order: insertion'));
    expect(a.json).not.toBe(b.json);
    expect(a.canonicalHex).toBe(b.canonicalHex);
  });

  it.each(fx.signatures.map((s) => [`key ${JSON.stringify(s.key)} value ${s.valueHex || '(empty)'}`, s] as const))('record signature of %s as stored', (_name, s) => {
    expect(recordSignature(s.secret, s.key, Buffer.from(s.valueHex, 'hex'))).toBe(s.signature);
    expect(verifyRecordSignature(s.secret, s.key, Buffer.from(s.valueHex, 'hex'), s.signature)).toBe(true);
  });
});
