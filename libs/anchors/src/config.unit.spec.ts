/** The anchors' settings from the environment (docs/architecture.md §5): defaults, development mode, refusals naming the variable. */
import { resolve } from 'node:path';
import { anchorConfigFromEnv, verifyConfigFromEnv } from './config';

describe('anchorConfigFromEnv', () => {
  it('outside development mode without a key file: anchoring off (no key, nothing generated)', () => {
    expect(anchorConfigFromEnv({})).toEqual({
      privateKeyFile: null,
      generateKey: false,
      required: false,
      anchorFile: resolve('.stack/anchors/anchors.jsonl'),
      topic: 'baccarat.ledger.anchors.v1',
      intervalMs: 10_000,
      ledgerId: null,
    });
  });

  it('development mode: the generated key under .stack/anchors; an explicit key is never generated', () => {
    expect(anchorConfigFromEnv({ LEDGER_ENV: 'development' })).toMatchObject({ privateKeyFile: resolve('.stack/anchors/anchor-private.pem'), generateKey: true });
    expect(anchorConfigFromEnv({ LEDGER_ENV: 'development', ANCHOR_PRIVATE_KEY_FILE: '/keys/a.pem' })).toMatchObject({ privateKeyFile: '/keys/a.pem', generateKey: false });
    expect(anchorConfigFromEnv({ LEDGER_ENV: 'production', ANCHOR_PRIVATE_KEY_FILE: '/keys/a.pem', ANCHOR_REQUIRED: 'true' })).toMatchObject({ privateKeyFile: '/keys/a.pem', generateKey: false, required: true });
  });

  it.each([
    ['ANCHOR_INTERVAL_MS', 'abc', /ANCHOR_INTERVAL_MS must be an integer from 100/],
    ['ANCHOR_INTERVAL_MS', '10', /ANCHOR_INTERVAL_MS/],
    ['ANCHOR_REQUIRED', 'yes', /ANCHOR_REQUIRED must be true or false/],
    ['ANCHOR_TOPIC', 'a topic', /ANCHOR_TOPIC must be a Kafka topic name/],
    ['LEDGER_ID', 'x'.repeat(201), /LEDGER_ID/],
  ])('refuses %s=%s naming the variable', (name, value, message) => {
    expect(() => anchorConfigFromEnv({ [name]: value })).toThrow(message);
  });
});

describe('verifyConfigFromEnv', () => {
  it('reads one or several public key files and the topics', () => {
    expect(verifyConfigFromEnv({ ANCHOR_PUBLIC_KEY_FILE: 'a.pem, /k/b.pem', LEDGER_EVENTS_TOPIC: 't.v1', LEDGER_ID: 'casino-1' })).toEqual({
      anchorFile: resolve('.stack/anchors/anchors.jsonl'),
      publicKeyFiles: [resolve('a.pem'), '/k/b.pem'],
      anchorsTopic: 'baccarat.ledger.anchors.v1',
      eventsTopic: 't.v1',
      ledgerId: 'casino-1',
    });
    expect(verifyConfigFromEnv({}).publicKeyFiles).toEqual([resolve('.stack/anchors/anchor-public.pem')]);
  });
});
