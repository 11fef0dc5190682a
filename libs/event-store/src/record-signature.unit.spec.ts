import { ConfigError, deadLetterTopicOf, loadConfig, ProjectorEnv, RelayEnv } from '@ledger/config';
import { DEV_RECORD_SIGNING_KEY, RECORD_SIGNATURE_HEADER, recordSignature, recordSigningKey, verifyRecordSignature } from './record-signature';
import { toKafkaMessage } from './relay-record';

const KEY = 'a-record-signing-key-of-more-than-32-bytes';

describe('record signatures (docs/guarantees.md §8)', () => {
  it('is the HMAC-SHA256 of uint32be(len(key)) ‖ key ‖ value, lower-case hex', () => {
    // computed independently: printf '\x00\x00\x00\x01Kv' | openssl dgst -sha256 -hmac k
    expect(recordSignature('k', 'K', 'v')).toBe('8fb80078d0cc3edcc5552d831c8877990963008097cdd3317ba65c66fe0d4ee0');
    expect(recordSignature('k', Buffer.from('K'), Buffer.from('v'))).toBe('8fb80078d0cc3edcc5552d831c8877990963008097cdd3317ba65c66fe0d4ee0');
    expect(recordSignature(KEY, 'T-1', '{"a":1}')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('binds key and value: moving a byte between them, or changing one, changes the signature', () => {
    const s = recordSignature(KEY, 'T-1', '{"a":1}');
    expect(recordSignature(KEY, 'T-', '1{"a":1}')).not.toBe(s);
    expect(recordSignature(KEY, 'T-2', '{"a":1}')).not.toBe(s);
    expect(recordSignature(KEY, 'T-1', '{"a":2}')).not.toBe(s);
    expect(recordSignature(`${KEY}!`, 'T-1', '{"a":1}')).not.toBe(s);
    expect(recordSignature(KEY, null, 'v')).toBe(recordSignature(KEY, '', 'v'));
  });

  it('verifies only the right signature, as text or bytes', () => {
    const s = recordSignature(KEY, 'T-1', 'value');
    expect(verifyRecordSignature(KEY, Buffer.from('T-1'), Buffer.from('value'), s)).toBe(true);
    expect(verifyRecordSignature(KEY, 'T-1', 'value', Buffer.from(s))).toBe(true);
    expect(verifyRecordSignature(KEY, 'T-1', 'value', undefined)).toBe(false);
    expect(verifyRecordSignature(KEY, 'T-1', 'value', '')).toBe(false);
    expect(verifyRecordSignature(KEY, 'T-1', 'value', s.toUpperCase())).toBe(false);
    expect(verifyRecordSignature(KEY, 'T-1', 'value', s.slice(0, 63))).toBe(false);
    expect(verifyRecordSignature(DEV_RECORD_SIGNING_KEY, 'T-1', 'value', s)).toBe(false);
  });

  it('the relay signs each record over its key and value bytes', () => {
    const row = {
      key: 'T-1',
      global_position: '7',
      event_id: 'e-1',
      stream_id: 'shoe-s1',
      stream_version: 1,
      table_id: 'T-1',
      type: 'ShoeOpened',
      schema_version: 1,
      data: { shoeId: 's1' },
      actor_id: 'd',
      actor_role: 'table-device',
      occurred_at: new Date('2025-03-01T05:00:00Z'),
      recorded_at: new Date('2025-03-01T05:00:01Z'),
      correlation_id: 'c',
      causation_id: 'c',
      prev_hash: '0'.repeat(64),
      hash: 'f'.repeat(64),
    };
    const m = toKafkaMessage(row as never, KEY);
    expect(m.headers![RECORD_SIGNATURE_HEADER]).toBe(recordSignature(KEY, 'T-1', m.value as string));
    expect(toKafkaMessage(row as never, KEY)).toEqual(m); // deterministic: a re-send is byte-identical
    expect(toKafkaMessage(row as never).headers![RECORD_SIGNATURE_HEADER]).toBe(recordSignature(DEV_RECORD_SIGNING_KEY, 'T-1', m.value as string));
  });
});

describe('the record signing key of a process', () => {
  const refused = (config: Parameters<typeof recordSigningKey>[0]) => {
    try {
      recordSigningKey(config);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as ConfigError).problems;
    }
    throw new Error('accepted');
  };

  it('is RECORD_SIGNING_KEY when set', () => {
    expect(recordSigningKey({ LEDGER_ENV: 'production', RECORD_SIGNING_KEY: KEY })).toEqual({ key: KEY, developmentKey: false });
    expect(recordSigningKey({ LEDGER_ENV: 'development', RECORD_SIGNING_KEY: KEY })).toEqual({ key: KEY, developmentKey: false });
  });

  it('falls back to the public development key only in development mode, saying so', () => {
    expect(recordSigningKey({ LEDGER_ENV: 'development' })).toEqual({ key: DEV_RECORD_SIGNING_KEY, developmentKey: true });
  });

  it('outside development mode refuses a missing key and the development key, naming the variable', () => {
    expect(refused({ LEDGER_ENV: 'production' })).toEqual([{ variable: 'RECORD_SIGNING_KEY', message: expect.stringMatching(/required outside development mode/) }]);
    expect(refused({ LEDGER_ENV: 'production', RECORD_SIGNING_KEY: DEV_RECORD_SIGNING_KEY })).toEqual([{ variable: 'RECORD_SIGNING_KEY', message: expect.stringMatching(/public development key/) }]);
  });
});

describe('the record signing configuration (docs/architecture.md §5)', () => {
  it('RECORD_SIGNING_KEY is read by the relay and the projector, at least 32 bytes, never echoed', () => {
    expect(loadConfig(RelayEnv, { LEDGER_ENV: 'development', RECORD_SIGNING_KEY: KEY }).RECORD_SIGNING_KEY).toBe(KEY);
    expect(loadConfig(ProjectorEnv, { LEDGER_ENV: 'development', RECORD_SIGNING_KEY: KEY }).RECORD_SIGNING_KEY).toBe(KEY);
    for (const schema of [RelayEnv, ProjectorEnv]) {
      let error: unknown;
      try {
        loadConfig(schema as new () => object, { LEDGER_ENV: 'production', RECORD_SIGNING_KEY: 'sixteen-byte-key' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([{ variable: 'RECORD_SIGNING_KEY', message: expect.stringMatching(/at least 32 bytes/) }]);
      expect((error as Error).message).not.toContain('sixteen-byte-key');
    }
  });

  it('the dead-letter topic follows the events topic', () => {
    expect(loadConfig(ProjectorEnv, {}).LEDGER_EVENTS_DLQ_TOPIC).toBe('baccarat.ledger.events.dlq.v1');
    expect(loadConfig(ProjectorEnv, { LEDGER_EVENTS_TOPIC: 'site2.ledger.events.v3' }).LEDGER_EVENTS_DLQ_TOPIC).toBe('site2.ledger.events.dlq.v3');
    expect(loadConfig(ProjectorEnv, { LEDGER_EVENTS_DLQ_TOPIC: 'dead.letters' }).LEDGER_EVENTS_DLQ_TOPIC).toBe('dead.letters');
    expect(deadLetterTopicOf('test.topic.42')).toBe('test.topic.42.dlq');
  });
});
