import { significantEventIdFor, significantEventIdOf, significantEventProblems, type CauseRecord, type SignificantEventRecord } from './significant-check';

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

  it('a scope key gives each scope of one cause its own id, and leaves the ids of the kinds without one as they were', () => {
    // the id of (cause, code) before scope keys existed: SHA-256 of `cause|code`
    expect(significantEventIdOf(CAUSE, 'RESULT.CORRECTED', undefined)).toBe(ID);
    const shoe = significantEventIdOf(CAUSE, 'STATISTICS.OUT_OF_BOUNDS', 'shoe:S-1');
    const table = significantEventIdOf(CAUSE, 'STATISTICS.OUT_OF_BOUNDS', 'table:T-1');
    expect(new Set([shoe, table, significantEventIdOf(CAUSE, 'STATISTICS.OUT_OF_BOUNDS')]).size).toBe(3);
    expect(significantEventIdOf(CAUSE.toUpperCase(), 'STATISTICS.OUT_OF_BOUNDS', 'shoe:S-1')).toBe(shoe);
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

  describe('causes that are not a ledger event (refusals, the projector, the verifier, a storm of 429s)', () => {
    const W = { start: '2026-12-07T16:00:00.000Z', seconds: 60, subject: 'table-device:dev-1', count: 7, rest: true as const };
    /** A raise of `code` by `cause` with the id the cause gives, by the ledger. */
    const raiseBy = (code: string, cause: Record<string, any>, actor: string, severity = 'medium'): SignificantEventRecord => {
      const id = significantEventIdFor(code, cause as any);
      return { ...raise, eventId: id, streamId: `significant-${id}`, data: { significantEventId: id, code, severity, cause, actor, details: {} } };
    };
    const refusal = { kind: 'refusal', errorCode: 'TABLEAU.VIOLATION', requestId: 'req-1', actorId: 'dev-1', actorRole: 'table-device', tableId: 'T1', window: W };
    const skewRefusal = { ...refusal, errorCode: 'TIME.OCCURRED_AT_OUT_OF_RANGE', reason: 'IN_THE_FUTURE' };
    const quarantine = { kind: 'projector', record: 'quarantine', key: 'ledger.events/0/12', consumerGroup: 'projector', reason: 'HASH_MISMATCH' };
    const incident = { kind: 'projector', record: 'incident', key: '3', consumerGroup: 'projector', reason: 'PROJECTION.GAP' };
    const divergence = { kind: 'verifier', divergence: 'HEAD_MISMATCH', source: 'anchors', where: 'shoe-S1@3#e' };
    const storm = { kind: 'rate-limit-window', window: { ...W, subject: '*', count: 600 }, threshold: 600 };

    it('finds nothing wrong with genuine raises of each kind', () => {
      expect(
        reasons([
          raiseBy('CARD.WRONG', refusal, 'dev-1'),
          raiseBy('DEVICE.CLOCK_SKEW', skewRefusal, 'dev-1'),
          raiseBy('RECORD.QUARANTINED', quarantine, 'projector', 'high'),
          raiseBy('PROJECTION.HALTED', incident, 'projector', 'high'),
          raiseBy('CHAIN.DIVERGED', divergence, 'verifier', 'critical'),
          raiseBy('ANCHOR.DIVERGED', { ...divergence, divergence: 'ANCHOR_FORK', source: 'anchor-file', where: 'anchor 4' }, 'verifier', 'critical'),
          raiseBy('RATE.LIMIT_STORM', storm, 'rate-limits'),
        ]),
      ).toEqual([]);
    });

    it('derives the id from (code, subject, window) for a windowed cause: another window, subject or code is another id; the count is not in it', () => {
      const id = significantEventIdFor('CARD.WRONG', refusal as any);
      expect(significantEventIdFor('CARD.WRONG', { ...refusal, requestId: 'req-2', window: { ...W, count: 1 } } as any)).toBe(id);
      expect(significantEventIdFor('CARD.WRONG', { ...refusal, window: { ...W, start: '2026-12-07T16:01:00.000Z' } } as any)).not.toBe(id);
      expect(significantEventIdFor('CARD.WRONG', { ...refusal, window: { ...W, subject: 'table-device:dev-2' } } as any)).not.toBe(id);
      expect(significantEventIdFor('CARD.ACCOUNTING_ANOMALY', refusal as any)).not.toBe(id);
      // an event cause without a tag or window keeps the id of the raises written before the tagged causes
      expect(significantEventIdFor('RESULT.CORRECTED', raise.data.cause)).toBe(ID);
      expect(significantEventIdFor('RESULT.CORRECTED', { ...raise.data.cause, kind: 'event' })).toBe(ID);
    });

    it('reports a forged raise whose cause kind its code does not admit', () => {
      expect(reasons([raiseBy('WIN.LARGE', refusal, 'dev-1', 'high')])).toEqual(['a refusal TABLEAU.VIOLATION cannot raise WIN.LARGE']);
      expect(reasons([raiseBy('CHAIN.DIVERGED', quarantine, 'projector', 'critical')])).toEqual(["a projector's quarantine record cannot raise CHAIN.DIVERGED"]);
      expect(reasons([raiseBy('PROJECTION.HALTED', quarantine, 'projector', 'high')])).toEqual(["a projector's quarantine record cannot raise PROJECTION.HALTED"]);
      expect(reasons([raiseBy('RECORD.QUARANTINED', divergence, 'verifier', 'high')])).toEqual(['a divergence HEAD_MISMATCH cannot raise RECORD.QUARANTINED']);
      expect(reasons([raiseBy('ANCHOR.DIVERGED', divergence, 'verifier', 'critical')])).toEqual(['a divergence HEAD_MISMATCH cannot raise ANCHOR.DIVERGED']);
      expect(reasons([raiseBy('CHAIN.DIVERGED', { ...divergence, divergence: 'SIGNIFICANT_EVENT_NOT_GENUINE' }, 'verifier', 'critical')])).toEqual(['a divergence SIGNIFICANT_EVENT_NOT_GENUINE cannot raise CHAIN.DIVERGED']);
      expect(reasons([raiseBy('CARD.WRONG', storm, 'rate-limits')])).toEqual(['a window of 429 refusals cannot raise CARD.WRONG']);
      expect(reasons([raiseBy('CARD.WRONG', { kind: 'telepathy' }, 'x')])).toEqual(['its cause is of an unknown kind telepathy']);
    });

    it("reports a refusal cause whose error code or reason the code's raisedBy does not list, or whose actor is not the refusal's", () => {
      expect(reasons([raiseBy('DEVICE.CLOCK_SKEW', { ...skewRefusal, reason: 'TOO_OLD' }, 'dev-1')])).toEqual(['a refusal TIME.OCCURRED_AT_OUT_OF_RANGE (TOO_OLD) cannot raise DEVICE.CLOCK_SKEW']);
      expect(reasons([raiseBy('CARD.WRONG', { ...refusal, errorCode: 'SHOE.CARD_EXCEEDS_DECKS' }, 'dev-1')])).toEqual(['a refusal SHOE.CARD_EXCEEDS_DECKS cannot raise CARD.WRONG']);
      expect(reasons([raiseBy('CARD.WRONG', refusal, 'pm-1')])).toEqual(["its actor pm-1 and window subject table-device:dev-1 are not the refusal's table-device:dev-1"]);
    });

    it('reports a malformed window, a storm under its threshold, an id not from the cause key, a human author', () => {
      expect(reasons([raiseBy('CARD.WRONG', { ...refusal, window: { ...W, start: '2026-12-07T16:00:30.000Z' } }, 'dev-1')])).toEqual(["its window's start 2026-12-07T16:00:30.000Z is not aligned to 60 s"]);
      expect(reasons([raiseBy('CARD.WRONG', { ...refusal, window: { ...W, count: 0 } }, 'dev-1')])).toEqual(["its window's count 0 is not a positive integer"]);
      // a window's first cause is raised alone, at once: a first raise standing for 7 is not one
      const { rest: _rest, ...firstOfSeven } = W;
      expect(reasons([raiseBy('CARD.WRONG', { ...refusal, window: firstOfSeven }, 'dev-1')])).toEqual(["its window's first cause is raised alone (count 1), the others by a raise marked rest: count 7, rest undefined"]);
      expect(reasons([raiseBy('CARD.WRONG', { ...refusal, window: { ...firstOfSeven, count: 1 } }, 'dev-1')])).toEqual([]);
      expect(reasons([raiseBy('RATE.LIMIT_STORM', { ...storm, window: { ...storm.window, count: 5 } }, 'rate-limits')])).toEqual(['its count 5 does not reach its threshold 600']);
      const forged = raiseBy('CHAIN.DIVERGED', divergence, 'verifier', 'critical');
      const moved = { ...forged, data: { ...forged.data, cause: { ...divergence, where: 'shoe-S2@1#f' } } };
      expect(reasons([moved])).toEqual([`its id is not the one its cause and code give (${significantEventIdFor('CHAIN.DIVERGED', moved.data.cause as any)})`]);
      expect(reasons([{ ...forged, actorId: 'aud-1', actorRole: 'auditor' }])).toEqual(['raised by auditor aud-1, not by the ledger (system)']);
      expect(reasons([raiseBy('CHAIN.DIVERGED', divergence, 'aud-1', 'critical')])).toEqual(['its actor aud-1 is not the verifier']);
    });

    it("checks a device's windowed clock skew against its first stored event: of the window's device, recorded in it", () => {
      const SKEWED = '22222222-2222-4333-8444-555555555555';
      const first = { type: 'CardDealt', streamId: 'shoe-S1', globalPosition: '50', actorId: 'dev-1', actorRole: 'table-device', recordedAt: '2026-12-07T16:00:10.000Z' };
      const withCauses = new Map([...causes, [SKEWED, first]]);
      const cause = { kind: 'event', eventId: SKEWED, globalPosition: '50', streamId: 'shoe-S1', eventType: 'CardDealt', window: W };
      const check = (c: Record<string, any>, actor = 'dev-1', code = 'DEVICE.CLOCK_SKEW') => significantEventProblems([raiseBy(code, c, actor, code === 'CARD.EXPOSED' ? 'low' : 'medium')], withCauses).map((p) => p.reason);
      expect(check(cause)).toEqual([]);
      expect(check({ ...cause, window: { ...W, start: '2026-12-07T16:01:00.000Z' } })).toEqual(['its cause was recorded at 2026-12-07T16:00:10.000Z, outside its window from 2026-12-07T16:01:00.000Z']);
      expect(check({ ...cause, window: { ...W, subject: 'table-device:dev-9' } })).toEqual(["its window's subject table-device:dev-9 is not its cause's table-device:dev-1"]);
      expect(check(cause, 'dev-1', 'CARD.EXPOSED').sort()).toEqual(['CARD.EXPOSED is not raised by a window of events', 'a CardDealt of a table-device cannot raise CARD.EXPOSED'].sort());
    });
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
