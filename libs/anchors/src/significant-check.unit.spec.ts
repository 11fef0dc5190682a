import { significantEventIdOf, significantEventProblems, type CauseRecord, type SignificantEventRecord } from './significant-check';

const CAUSE = '11111111-2222-4333-8444-555555555555';
const causes = new Map<string, CauseRecord>([[CAUSE, { type: 'ResultCorrected', streamId: 'shoe-S1', globalPosition: '40', actorId: 'pm-appr', actorRole: 'pit-manager' }]]);
const ID = significantEventIdOf(CAUSE, 'RESULT.CORRECTED');
const raise: SignificantEventRecord = {
  eventId: ID,
  type: 'SignificantEventRaised',
  streamId: `significant-${ID}`,
  streamVersion: 1,
  globalPosition: '41',
  actorId: 'significant-event-monitor',
  actorRole: 'system',
  data: {
    significantEventId: ID,
    code: 'RESULT.CORRECTED',
    severity: 'high',
    cause: { eventId: CAUSE, globalPosition: '40', streamId: 'shoe-S1', eventType: 'ResultCorrected' },
    actor: 'pm-appr',
    details: { actingManagerId: 'pm-req', approverId: 'pm-appr' },
  },
};
const ack = (by: string, over: Partial<SignificantEventRecord> = {}): SignificantEventRecord => ({
  eventId: '99999999-2222-4333-8444-555555555555',
  type: 'SignificantEventAcknowledged',
  streamId: `significant-${ID}`,
  streamVersion: 2,
  globalPosition: '42',
  actorId: by,
  actorRole: 'pit-manager',
  data: { significantEventId: ID, code: 'RESULT.CORRECTED', reason: 'reviewed', acknowledgedBy: by, role: 'pit-manager' },
  ...over,
});
const reasons = (events: SignificantEventRecord[]) => significantEventProblems(events, causes).map((p) => p.reason);

describe('significant events in npm run -s verify (docs/significant-events.md)', () => {
  it('derives the id from cause and code: the same for a redelivered cause, another for another code', () => {
    expect(significantEventIdOf(CAUSE, 'RESULT.CORRECTED')).toBe(ID);
    expect(significantEventIdOf(CAUSE.toUpperCase(), 'RESULT.CORRECTED')).toBe(ID);
    expect(significantEventIdOf(CAUSE, 'WIN.LARGE')).not.toBe(ID);
    expect(ID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('finds nothing wrong with a genuine raise and its acknowledgement by a second person', () => {
    expect(reasons([raise, ack('pm-3')])).toEqual([]);
  });

  it('reports a forged raise: an unknown code, a wrong severity, a missing or mismatched cause, an id not derived, a human author', () => {
    expect(reasons([{ ...raise, data: { ...raise.data, code: 'NOPE.NOPE' } }])).toEqual(['code NOPE.NOPE is not in the significant-event catalogue']);
    expect(reasons([{ ...raise, data: { ...raise.data, severity: 'low' } }])).toEqual(["severity low is not the catalogue's high for RESULT.CORRECTED"]);
    expect(reasons([{ ...raise, data: { ...raise.data, cause: { ...raise.data.cause, eventId: '00000000-0000-4000-8000-000000000000' } } }])).toEqual(['its cause 00000000-0000-4000-8000-000000000000 is no event of the ledger']);
    const wrongId = '12345678-1234-4234-8234-123456789012';
    expect(reasons([{ ...raise, eventId: wrongId, streamId: `significant-${wrongId}`, data: { ...raise.data, significantEventId: wrongId } }])).toEqual([`its id is not the one its cause and code give (${ID})`]);
    expect(reasons([{ ...raise, actorId: 'pm-x', actorRole: 'pit-manager' }])).toEqual(['raised by pit-manager pm-x, not by the ledger (system)']);
    expect(reasons([{ ...raise, data: { ...raise.data, actor: 'someone-else' } }])).toEqual(["its actor someone-else is not its cause's pm-appr"]);
    const asWin = significantEventIdOf(CAUSE, 'WIN.LARGE');
    expect(reasons([{ ...raise, eventId: asWin, streamId: `significant-${asWin}`, data: { ...raise.data, significantEventId: asWin, code: 'WIN.LARGE' } }])).toEqual(['a ResultCorrected of a pit-manager cannot raise WIN.LARGE']);
  });

  it('reports a forged acknowledgement: by whoever had a hand in the cause, of nothing raised, in another name, by a device', () => {
    expect(reasons([raise, ack('pm-req')])).toEqual(['acknowledged by pm-req, whose act raised it: a second person must']);
    expect(reasons([raise, ack('pm-appr')])).toEqual(['acknowledged by pm-appr, whose act raised it: a second person must']);
    expect(reasons([ack('pm-3')])).toEqual([`it acknowledges ${ID}, which was never raised (no SignificantEventRaised before it in its stream)`]);
    expect(reasons([raise, ack('pm-3', { data: { ...ack('pm-3').data, acknowledgedBy: 'pm-4' } })])).toEqual(['acknowledged by pit-manager pm-3, named as pit-manager pm-4: only a pit manager or an auditor, as themselves']);
    expect(reasons([raise, ack('dev-1', { actorRole: 'table-device', data: { ...ack('dev-1').data, role: 'table-device' } })])).toEqual([
      'acknowledged by table-device dev-1, named as table-device dev-1: only a pit manager or an auditor, as themselves',
    ]);
  });

  describe('the kinds whose condition is in the stored events: verify recomputes it', () => {
    const DEALER_CAUSE = '21111111-2222-4333-8444-555555555555';
    const PREV_ATT = '31111111-2222-4333-8444-555555555555';
    const ATT = '41111111-2222-4333-8444-555555555555';
    const raiseOf = (cause: { eventId: string; streamId: string; globalPosition: string; eventType: string }, code: string, actor: string, details: Record<string, string>, tableId?: string): SignificantEventRecord => {
      const id = significantEventIdOf(cause.eventId, code);
      return {
        eventId: id,
        type: 'SignificantEventRaised',
        streamId: `significant-${id}`,
        streamVersion: 1,
        globalPosition: '99',
        actorId: 'significant-event-monitor',
        actorRole: 'system',
        data: { significantEventId: id, code, severity: code === 'DEALER.CHANGED_MID_SHOE' ? 'low' : code === 'CONFIG.TABLES_CHANGED' ? 'medium' : 'high', cause, ...(tableId ? { tableId } : {}), actor, details },
      };
    };
    const config = (over: Partial<{ limits: string; paytableRef: string; reports: string | null }> = {}) => ({
      host: 'api-1',
      tables: [
        { tableId: 'T-1', variant: 'classic', decks: 8, currency: 'EUR', virtualTable: false, pairBetsRequireMainBet: true, limitsSha256: over.limits ?? 'a'.repeat(64), paytableRef: over.paytableRef ?? 'classic-standard@1' },
      ],
      paytables: [{ ref: 'classic-standard@1', sha256: 'b'.repeat(64) }],
      keys: { anchors: ['ed25519:00aa'], reports: over.reports === undefined ? 'ed25519:00aa' : over.reports, tokens: ['hs256:0011'] },
    });
    const dealerCause = (firstRoundVersion: number | null): Map<string, CauseRecord> =>
      new Map([[DEALER_CAUSE, { type: 'DealerChanged', streamId: 'shoe-S2', globalPosition: '50', actorId: 'device-1', actorRole: 'table-device', dealerChange: { streamVersion: 5, firstRoundVersion } }]]);
    const dealerRaise = raiseOf({ eventId: DEALER_CAUSE, streamId: 'shoe-S2', globalPosition: '50', eventType: 'DealerChanged' }, 'DEALER.CHANGED_MID_SHOE', 'device-1', { previousDealerId: 'd-1', dealerId: 'd-2' }, 'T-1');
    const attCause = (previous: ReturnType<typeof config> | null, current: ReturnType<typeof config>): Map<string, CauseRecord> =>
      new Map([
        [
          ATT,
          {
            type: 'ConfigurationAttested',
            streamId: 'gaming-day-2026-12-07',
            globalPosition: '70',
            actorId: 'configuration-attestor',
            actorRole: 'system',
            configuration: { data: current, previous: previous ? { eventId: PREV_ATT, data: previous } : null },
          },
        ],
      ]);
    const configRaise = (code: string, changes: string) =>
      raiseOf({ eventId: ATT, streamId: 'gaming-day-2026-12-07', globalPosition: '70', eventType: 'ConfigurationAttested' }, code, 'configuration-attestor', { changes, previousAttestation: PREV_ATT });

    it('a dealer change after the shoe opened a round raises DEALER.CHANGED_MID_SHOE; a forged raise for a change before the first round is reported', () => {
      expect(significantEventProblems([dealerRaise], dealerCause(3)).map((p) => p.reason)).toEqual([]);
      expect(significantEventProblems([dealerRaise], dealerCause(null)).map((p) => p.reason)).toEqual(['its DealerChanged (version 5 of shoe-S2) came before any round of its shoe: not mid-shoe']);
      expect(significantEventProblems([dealerRaise], dealerCause(7)).map((p) => p.reason)).toEqual(['its DealerChanged (version 5 of shoe-S2) came before any round of its shoe: not mid-shoe']);
    });

    it('a configuration change raises the kind of its part, with what changed; a raise the two attestations do not give is reported', () => {
      const rotated = configRaise('CONFIG.KEYS_ROTATED', 'reports signing key ed25519:00aa → ed25519:00bb');
      expect(significantEventProblems([rotated], attCause(config(), config({ reports: 'ed25519:00bb' }))).map((p) => p.reason)).toEqual([]);
      // an identical restart changes nothing: a forged rotation is reported
      expect(significantEventProblems([rotated], attCause(config(), config())).map((p) => p.reason)).toEqual([`its ConfigurationAttested at 70 changed no keys since the previous attestation ${PREV_ATT}`]);
      // the first attestation ever raises nothing
      expect(significantEventProblems([rotated], attCause(null, config({ reports: 'ed25519:00bb' }))).map((p) => p.reason)).toEqual(['its ConfigurationAttested at 70 is the first of the ledger: nothing to compare with']);
      // another part changed, not this one
      const tables = configRaise('CONFIG.TABLES_CHANGED', 'T-1 limits changed');
      expect(significantEventProblems([tables], attCause(config(), config({ paytableRef: 'classic-no-commission@1' }))).map((p) => p.reason)).toEqual([
        `its ConfigurationAttested at 70 changed no tables since the previous attestation ${PREV_ATT}`,
      ]);
      // the right kind, details that lie about what changed
      expect(significantEventProblems([configRaise('CONFIG.TABLES_CHANGED', 'T-9 removed')], attCause(config(), config({ limits: 'c'.repeat(64) }))).map((p) => p.reason)).toEqual([
        `its details are not what changed since the previous attestation: {"changes":"T-1 limits changed","previousAttestation":"${PREV_ATT}"}`,
      ]);
    });
  });
});
