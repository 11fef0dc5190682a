import type { ConfigurationAttestedData, LedgerEvent } from '@ledger/events';
import { changesText, configurationChanges, configurationDrafts, MAX_NAMED_CHANGES } from './configuration';
import { dealerChangeDraft } from './detect';
import { DEFAULT_SIGNIFICANT_SETTINGS, fairnessConfidenceInBounds, significantSettingsOf, significantSettingsProblem } from './settings';

const table = (tableId: string, over: Record<string, unknown> = {}) => ({
  tableId,
  variant: 'classic',
  decks: 8,
  currency: 'EUR',
  virtualTable: false,
  pairBetsRequireMainBet: true,
  limitsSha256: 'a'.repeat(64),
  paytableRef: 'classic-standard@1',
  ...over,
});
const base: ConfigurationAttestedData = {
  host: 'api-1',
  tables: [table('T-1'), table('T-2')],
  paytables: [
    { ref: 'classic-no-commission@1', sha256: 'c'.repeat(64) },
    { ref: 'classic-standard@1', sha256: 'b'.repeat(64) },
  ],
  keys: { anchors: ['ed25519:aa'], reports: 'ed25519:aa', tokens: ['hs256:11'] },
};
const PREV = { eventId: 'prev-1', data: base };

describe('configuration attestations compared (docs/significant-events.md, "Configuration at start")', () => {
  it('the first attestation and an identical restart (another host too) raise nothing', () => {
    expect(configurationDrafts(null, base)).toEqual([]);
    expect(configurationDrafts(PREV, { ...base, host: 'api-2' })).toEqual([]);
  });

  it('each part raises its own kind only, with what changed and the previous attestation', () => {
    const limits = { ...base, tables: [table('T-1', { limitsSha256: 'd'.repeat(64) }), table('T-2')] };
    expect(configurationDrafts(PREV, limits)).toEqual([{ code: 'CONFIG.TABLES_CHANGED', severity: 'medium', details: { changes: 'T-1 limits changed', previousAttestation: 'prev-1' } }]);
    const paytable = { ...base, tables: [table('T-1', { paytableRef: 'classic-no-commission@1' }), table('T-2')] };
    expect(configurationDrafts(PREV, paytable)).toEqual([{ code: 'CONFIG.PAYTABLES_CHANGED', severity: 'high', details: { changes: 'T-1 paytable classic-standard@1 → classic-no-commission@1', previousAttestation: 'prev-1' } }]);
    const keys = { ...base, keys: { anchors: ['ed25519:aa', 'ed25519:bb'], reports: 'ed25519:bb', tokens: [] } };
    expect(configurationDrafts(PREV, keys)).toEqual([
      {
        code: 'CONFIG.KEYS_ROTATED',
        severity: 'high',
        details: { changes: 'anchors key ed25519:bb added; reports signing key ed25519:aa → ed25519:bb; tokens key hs256:11 removed', previousAttestation: 'prev-1' },
      },
    ]);
  });

  it('names tables added and removed, settings changed, paytable content changed, added or removed', () => {
    const cur: ConfigurationAttestedData = {
      ...base,
      tables: [table('T-1', { decks: 6, currency: 'USD' }), table('T-3')],
      paytables: [
        { ref: 'classic-standard@1', sha256: 'e'.repeat(64) },
        { ref: 'tiger-standard@1', sha256: 'f'.repeat(64) },
      ],
    };
    expect(configurationChanges(base, cur)).toEqual({
      tables: ['T-1 decks 8 → 6', 'T-1 currency EUR → USD', 'T-2 removed', 'T-3 added'],
      paytables: ['paytable classic-no-commission@1 removed', 'paytable classic-standard@1 content changed', 'paytable tiger-standard@1 added'],
      keys: [],
      significant: [],
    });
  });

  it('raises CONFIG.SIGNIFICANT_SETTINGS_CHANGED (high) when the significant-event settings differ; an older attestation without them counts as the defaults', () => {
    const attested = { ...base, significant: DEFAULT_SIGNIFICANT_SETTINGS };
    // the defaults stated after an attestation that stated none: nothing changed
    expect(configurationDrafts(PREV, attested)).toEqual([]);
    const lowered = { ...base, significant: { ...DEFAULT_SIGNIFICANT_SETTINGS, monitor: false, winAmountMinor: '1', fairnessConfidence: '9999/10000' } };
    expect(configurationDrafts({ eventId: 'prev-2', data: attested }, lowered)).toEqual([
      {
        code: 'CONFIG.SIGNIFICANT_SETTINGS_CHANGED',
        severity: 'high',
        details: { changes: 'monitor true → false; winAmountMinor 1000000 → 1; fairnessConfidence 95/100 → 9999/10000', previousAttestation: 'prev-2' },
      },
    ]);
    expect(configurationDrafts(PREV, lowered).map((d) => d.code)).toEqual(['CONFIG.SIGNIFICANT_SETTINGS_CHANGED']);
    // a current attestation without settings (an older API) changes none
    expect(configurationDrafts({ eventId: 'prev-2', data: lowered }, base)).toEqual([]);
  });

  it('bounds the fairness confidence and refuses attested settings the configuration refuses', () => {
    expect(['90/100', '95/100', '9999/10000'].map(fairnessConfidenceInBounds)).toEqual([true, true, true]);
    expect(['89/100', '99999/100000', '99999999999999999/100000000000000000', '1/2'].map(fairnessConfidenceInBounds)).toEqual([false, false, false, false]);
    expect(significantSettingsProblem(DEFAULT_SIGNIFICANT_SETTINGS)).toBeNull();
    expect(significantSettingsProblem({ ...DEFAULT_SIGNIFICANT_SETTINGS, fairnessConfidence: '1/2' })).toMatch(/outside 90\/100/);
    expect(significantSettingsProblem({ ...DEFAULT_SIGNIFICANT_SETTINGS, winAmountMinor: '0' })).toMatch(/winAmountMinor/);
    expect(
      significantSettingsOf({ SIGNIFICANT_MONITOR: false, SIGNIFICANT_WIN_MULTIPLE: '50', SIGNIFICANT_WIN_AMOUNT_MINOR: '7', OCCURRED_AT_MAX_SKEW_MS: 1, FAIRNESS_ALERT_CONFIDENCE: '99/100', SIGNIFICANT_FLOOD_WINDOW_SECONDS: 2 }),
    ).toEqual({
      monitor: false,
      winMultiple: '50/1',
      winAmountMinor: '7',
      clockSkewBoundMs: 1,
      fairnessConfidence: '99/100',
      floodWindowSeconds: 2,
    });
  });

  it(`names at most ${MAX_NAMED_CHANGES} changes and counts the rest`, () => {
    const many = Array.from({ length: MAX_NAMED_CHANGES + 3 }, (_, i) => `T-${i} added`);
    expect(changesText(many)).toBe(`${many.slice(0, MAX_NAMED_CHANGES).join('; ')}; … and 3 more`);
  });
});

describe('DEALER.CHANGED_MID_SHOE', () => {
  const change = { type: 'DealerChanged', streamVersion: 5, data: { previousDealerId: 'd-1', dealerId: 'd-2' } } as LedgerEvent<'DealerChanged'>;
  it('raises for a change after the shoe opened a round, not before its first round nor in a shoe without one', () => {
    expect(dealerChangeDraft(change, 3)).toEqual({ code: 'DEALER.CHANGED_MID_SHOE', severity: 'low', details: { previousDealerId: 'd-1', dealerId: 'd-2' } });
    expect(dealerChangeDraft(change, 6)).toBeNull();
    expect(dealerChangeDraft(change, null)).toBeNull();
  });
});
