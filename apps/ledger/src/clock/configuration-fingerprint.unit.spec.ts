import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import { BUILT_IN_PAYTABLES } from '@ledger/rules';
import { significantSettingsOf } from '@ledger/significant-events';
import { configurationFingerprint, tokenKeyId } from './configuration-fingerprint';

const limits = { PLAYER: { min: '100', max: '1000000' }, BANKER: { min: '100', max: '1000000' } };
const table = { tableId: 'T-2', variant: 'classic' as const, decks: 8, currency: 'EUR', virtualTable: false, paytableRef: 'classic-standard@1', pairBetsRequireMainBet: true, limits };
const SECRET = 'a-secret-of-at-least-thirty-two-bytes-long!';

describe('the configuration an API attests at start', () => {
  const fp = (over: Partial<Parameters<typeof configurationFingerprint>[0]> = {}) =>
    configurationFingerprint({
      host: 'api-1',
      tables: [table, { ...table, tableId: 'T-1' }],
      paytables: BUILT_IN_PAYTABLES,
      anchorKeyIds: ['ed25519:bb', 'ed25519:aa', 'ed25519:aa'],
      reportKeyId: 'ed25519:aa',
      tokenKeys: [{ kid: null, algorithm: 'HS256', key: createSecretKey(Buffer.from(SECRET)) }],
      significant: significantSettingsOf({
        SIGNIFICANT_MONITOR: true,
        SIGNIFICANT_WIN_MULTIPLE: '100',
        SIGNIFICANT_WIN_AMOUNT_MINOR: '1000000',
        OCCURRED_AT_MAX_SKEW_MS: 5000,
        FAIRNESS_ALERT_CONFIDENCE: '95/100',
        SIGNIFICANT_FLOOD_WINDOW_SECONDS: 60,
      }),
      ...over,
    });

  it('is sorted and deterministic; limits and paytables by digest; keys by id, each once', () => {
    const a = fp();
    expect(a.tables.map((t) => t.tableId)).toEqual(['T-1', 'T-2']);
    expect(a.tables[0].limitsSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(a.paytables.map((p) => p.ref)).toEqual([...BUILT_IN_PAYTABLES.map((p) => `${p.id}@${p.version}`)].sort());
    expect(a.keys.anchors).toEqual(['ed25519:aa', 'ed25519:bb']);
    expect(fp()).toEqual(a);
    // the significant-event settings, exact text: a ratio n/d, an amount in decimal digits
    expect(a.significant).toEqual({ monitor: true, winMultiple: '100/1', winAmountMinor: '1000000', clockSkewBoundMs: 5000, fairnessConfidence: '95/100', floodWindowSeconds: 60 });
    // the limits' digest does not depend on their order
    expect(fp({ tables: [{ ...table, limits: { BANKER: limits.BANKER, PLAYER: limits.PLAYER } }] }).tables[0].limitsSha256).toBe(a.tables[1].limitsSha256);
    expect(fp({ tables: [{ ...table, limits: { ...limits, PLAYER: { min: '200', max: '1000000' } } }] }).tables[0].limitsSha256).not.toBe(a.tables[1].limitsSha256);
  });

  it('never states a secret: an HS256 key is a domain-separated digest; an RS256 key its public key digest, with its kid', () => {
    const text = JSON.stringify(fp());
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(Buffer.from(SECRET).toString('hex'));
    expect(text).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(fp().keys.tokens).toEqual([expect.stringMatching(/^hs256:[0-9a-f]{16}$/)]);
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(tokenKeyId({ kid: 'k-1', algorithm: 'RS256', key: publicKey })).toMatch(/^kid=k-1\/rs256:[0-9a-f]{16}$/);
    expect(tokenKeyId({ kid: null, algorithm: 'HS256', key: createSecretKey(Buffer.from(`${SECRET}!`)) })).not.toBe(fp().keys.tokens[0]);
  });
});
