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
});
