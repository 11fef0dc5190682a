/**
 * The anchors' settings from the validated configuration (docs/architecture.md §5): defaults,
 * development mode, the verifier's key files. The variables' forms are checked by `@ledger/config`
 * (`libs/config/src/load-config.unit.spec.ts`).
 */
import { resolve } from 'node:path';
import { LedgerApiEnv, loadConfig, RelayEnv, VerifyEnv } from '@ledger/config';
import { anchorPublisherSettings, anchorVerifySettings } from './config';

const relay = (env: Record<string, string>) => anchorPublisherSettings(loadConfig(RelayEnv, env));

describe('anchorPublisherSettings', () => {
  it('outside development mode without a key file: anchoring off (no key, nothing generated)', () => {
    expect(relay({})).toEqual({
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
    const key = resolve('config/tables.json'); // any existing file: its form is checked at start, its content when the relay reads it
    expect(relay({ LEDGER_ENV: 'development' })).toMatchObject({ privateKeyFile: resolve('.stack/anchors/anchor-private.pem'), generateKey: true });
    expect(relay({ LEDGER_ENV: 'development', ANCHOR_PRIVATE_KEY_FILE: key })).toMatchObject({ privateKeyFile: key, generateKey: false });
    expect(relay({ LEDGER_ENV: 'production', ANCHOR_PRIVATE_KEY_FILE: key, ANCHOR_REQUIRED: 'true' })).toMatchObject({ privateKeyFile: key, generateKey: false, required: true });
    expect(relay({ LEDGER_ENV: 'development', ANCHOR_REQUIRED: 'true' })).toMatchObject({ generateKey: true, required: true });
  });

  it('takes the validated values: interval, topic, file (resolved from the working directory), ledger id', () => {
    expect(relay({ ANCHOR_INTERVAL_MS: '250', ANCHOR_TOPIC: 't.anchors', ANCHOR_FILE: 'x/a.jsonl', LEDGER_ID: 'casino-1' })).toMatchObject({
      intervalMs: 250,
      topic: 't.anchors',
      anchorFile: resolve('x/a.jsonl'),
      ledgerId: 'casino-1',
    });
  });
});

describe('anchorVerifySettings', () => {
  it('reads one or several public key files and the topics (verify and the API alike)', () => {
    const env = { ANCHOR_PUBLIC_KEY_FILE: 'a.pem, /k/b.pem', LEDGER_EVENTS_TOPIC: 't.v1', LEDGER_ID: 'casino-1' };
    const expected = {
      anchorFile: resolve('.stack/anchors/anchors.jsonl'),
      publicKeyFiles: [resolve('a.pem'), '/k/b.pem'],
      anchorsTopic: 'baccarat.ledger.anchors.v1',
      eventsTopic: 't.v1',
      ledgerId: 'casino-1',
    };
    expect(anchorVerifySettings(loadConfig(VerifyEnv, env))).toEqual(expected);
    expect(anchorVerifySettings(loadConfig(LedgerApiEnv, { ...env, LEDGER_ENV: 'development' }))).toEqual(expected);
    expect(anchorVerifySettings(loadConfig(VerifyEnv, {})).publicKeyFiles).toEqual([resolve('.stack/anchors/anchor-public.pem')]);
  });
});
