import { generateKeyPairSync, sign } from 'node:crypto';
import { publicKeyId } from './checkpoint';
import { checkDayStream, checkGamingDayClose, sha256OfText, type CloseUnderCheck, type DayStreamEvent } from './gaming-day-close';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keyId = publicKeyId(publicKey);
const keys = new Map([[keyId, publicKey]]);

/** A genuine close of `day` for T1 at position 42, and its bytes. */
function genuine(day = '2026-03-01'): CloseUnderCheck {
  const bytes = JSON.stringify({ gamingDay: day, tableIds: ['T1'], throughPosition: '42', trigger: 'MANAGER', early: null, rows: [] });
  const signature = sign(null, Buffer.from(bytes, 'utf8'), privateKey).toString('base64');
  return {
    streamId: `gaming-day-${day}`,
    bytes,
    data: { gamingDay: day, tableIds: ['T1'], throughPosition: '42', reportSha256: sha256OfText(bytes), signature, keyId, trigger: 'MANAGER' },
  };
}

describe('checkGamingDayClose: a close is genuine only with its own signed report', () => {
  it('a genuine close passes, in the default and in a scoped day stream', () => {
    expect(checkGamingDayClose(genuine(), keys)).toEqual({ problem: null, detail: '' });
    expect(checkGamingDayClose({ ...genuine(), streamId: 'gaming-day-2026-03-01:test.topic' }, keys).problem).toBeNull();
  });

  it('each forgery has its own code', () => {
    const g = genuine();
    const other = genuine('2026-03-02');
    const cases: [string, CloseUnderCheck][] = [
      ['WRONG_STREAM', { ...g, streamId: 'gaming-day-2026-03-02' }],
      ['REPORT_MISSING', { ...g, bytes: null }],
      ['SHA_MISMATCH', { ...g, bytes: g.bytes!.replace('"rows":[]', '"rows":[1]') }],
      ['KEY_UNKNOWN', { ...g, data: { ...g.data, keyId: 'ed25519:00' } }],
      ['BAD_SIGNATURE', { ...g, data: { ...g.data, signature: 'AAAA' } }],
      // a genuine report and signature of another day, under this day's event: a replay
      ['REPLAYED', { ...g, bytes: other.bytes, data: { ...g.data, reportSha256: other.data.reportSha256, signature: other.data.signature } }],
      ['REPLAYED', { ...g, data: { ...g.data, tableIds: ['T1', 'T2'] } }],
      ['REPLAYED', { ...g, data: { ...g.data, throughPosition: '43' } }],
      ['MALFORMED', { ...g, data: { ...g.data, tableIds: undefined as never } }],
    ];
    expect(cases.map(([, c]) => checkGamingDayClose(c, keys).problem)).toEqual(cases.map(([code]) => code));
  });

  it("layout 2: the event states the report's clock skew; one that states another is a replay; a layout-1 close (neither states one) stays genuine", () => {
    const clockSkew = [{ tableId: 'T1', deviceEvents: 3, largest: { deviceId: 'device-1', skewMs: -61_250, globalPosition: '40', eventId: 'e-40' } }];
    const bytes = JSON.stringify({ gamingDay: '2026-03-01', tableIds: ['T1'], throughPosition: '42', trigger: 'MANAGER', early: null, rows: [], clockSkew });
    const signature = sign(null, Buffer.from(bytes, 'utf8'), privateKey).toString('base64');
    const v2: CloseUnderCheck = { ...genuine(), bytes, data: { ...genuine().data, reportSha256: sha256OfText(bytes), signature, clockSkew } };
    expect(checkGamingDayClose(v2, keys)).toEqual({ problem: null, detail: '' });
    const lower = [{ ...clockSkew[0], largest: { ...clockSkew[0].largest, skewMs: -1 } }];
    expect(checkGamingDayClose({ ...v2, data: { ...v2.data, clockSkew: lower } }, keys).problem).toBe('REPLAYED');
    const { clockSkew: _dropped, ...withoutSkew } = v2.data;
    expect(checkGamingDayClose({ ...v2, data: withoutSkew }, keys).problem).toBe('REPLAYED');
    expect(checkGamingDayClose({ ...genuine(), data: { ...genuine().data, clockSkew } }, keys).problem).toBe('REPLAYED');
    expect(checkGamingDayClose(genuine(), keys).problem).toBeNull();
  });

  it('bytes that are signed but not JSON are malformed', () => {
    const bytes = 'not json';
    const signature = sign(null, Buffer.from(bytes, 'utf8'), privateKey).toString('base64');
    const g = genuine();
    expect(checkGamingDayClose({ ...g, bytes, data: { ...g.data, reportSha256: sha256OfText(bytes), signature } }, keys).problem).toBe('MALFORMED');
  });
});

describe('checkDayStream: a close holds in its day stream too', () => {
  const day = '2026-03-01';
  const stream = `gaming-day-${day}`;
  const signedClose = (over: { tableIds?: string[]; trigger?: 'MANAGER' | 'AUTOMATIC'; early?: Record<string, string> | null } = {}) => {
    const tableIds = over.tableIds ?? ['T1'];
    const trigger = over.trigger ?? 'MANAGER';
    const early = over.early ?? null;
    const bytes = JSON.stringify({ gamingDay: day, tableIds, throughPosition: '42', trigger, early, rows: [] });
    const signature = sign(null, Buffer.from(bytes, 'utf8'), privateKey).toString('base64');
    return { bytes, data: { gamingDay: day, tableIds, throughPosition: '42', reportSha256: sha256OfText(bytes), signature, keyId, trigger, ...(early ? { early } : {}) } };
  };
  let n = 0;
  const ev = (type: string, data: unknown, actor: [string, string], recordedAt = '2026-03-01T10:00:00.000Z'): DayStreamEvent => ({
    eventId: `e${++n}`,
    streamId: stream,
    type,
    data,
    actor: { id: actor[0], role: actor[1] },
    recordedAt,
  });
  const problems = (events: DayStreamEvent[], bytes: Map<string, string>) => [...checkDayStream(events, (id) => bytes.get(id) ?? null, keys).values()].map((c) => c.problem);

  it('a genuine close appended again (an exact copy) is a duplicate; a close of another table is not', () => {
    const a = signedClose();
    const b = signedClose({ tableIds: ['T2'] });
    const events = [ev('GamingDayClosed', a.data, ['pm-1', 'pit-manager']), ev('GamingDayClosed', a.data, ['pm-1', 'pit-manager']), ev('GamingDayClosed', b.data, ['pm-1', 'pit-manager'])];
    const bytes = new Map([
      [events[0].eventId, a.bytes],
      [events[1].eventId, a.bytes],
      [events[2].eventId, b.bytes],
    ]);
    expect(problems(events, bytes)).toEqual([null, 'DUPLICATE', null]);
  });

  it('a genuine close whose event claims another trigger or approval is a replay; a sweeper close by a pit manager is the wrong actor', () => {
    const a = signedClose();
    const early = { requestId: 'r1', reason: 'storm', requestedBy: 'pm-1', approvedBy: 'pm-2' };
    const events = [ev('GamingDayClosed', { ...a.data, trigger: 'AUTOMATIC' }, ['system', 'system']), ev('GamingDayClosed', { ...a.data, early }, ['pm-2', 'pit-manager'])];
    const bytes = new Map(events.map((e) => [e.eventId, a.bytes]));
    expect(problems(events, bytes)).toEqual(['REPLAYED', 'REPLAYED']);
    const auto = signedClose({ trigger: 'AUTOMATIC' });
    const byManager = ev('GamingDayClosed', auto.data, ['pm-1', 'pit-manager']);
    expect(problems([byManager], new Map([[byManager.eventId, auto.bytes]]))).toEqual(['WRONG_ACTOR']);
  });

  it('an early close needs its request, made by the requester it names, approved by another pit manager in time', () => {
    const request = { requestId: 'r1', gamingDay: day, tableIds: ['T1'], reason: 'storm', requestedBy: 'pm-1', expiresAt: '2099-01-01T00:00:00.000Z' };
    const early = { requestId: 'r1', reason: 'storm', requestedBy: 'pm-1', approvedBy: 'pm-2' };
    const c = signedClose({ early });
    const run = (events: DayStreamEvent[]) => problems(events, new Map(events.map((e) => [e.eventId, c.bytes])));
    const close = (actor: [string, string] = ['pm-2', 'pit-manager'], at = '2026-03-01T10:30:00.000Z') => ev('GamingDayClosed', c.data, actor, at);
    // genuine: requested by pm-1 at 10:00, approved by pm-2 at 10:30
    expect(run([ev('GamingDayCloseRequested', request, ['pm-1', 'pit-manager']), close()])).toEqual([null]);
    // no request in the stream
    expect(run([close()])).toEqual(['EARLY_NOT_APPROVED']);
    // a request forged with the API login in pm-1's name, made by pm-2 (who then approves it)
    expect(run([ev('GamingDayCloseRequested', request, ['pm-2', 'pit-manager']), close()])).toEqual(['EARLY_NOT_APPROVED']);
    // expiresAt in 2099: the approval still counts only within the TTL of the request's recordedAt
    expect(run([ev('GamingDayCloseRequested', request, ['pm-1', 'pit-manager']), close(['pm-2', 'pit-manager'], '2026-03-01T11:00:00.001Z')])).toEqual(['EARLY_NOT_APPROVED']);
    // the close recorded by someone else than the approver it names
    expect(run([ev('GamingDayCloseRequested', request, ['pm-1', 'pit-manager']), close(['pm-3', 'pit-manager'])])).toEqual(['EARLY_NOT_APPROVED']);
    // the request after the close
    expect(run([close(), ev('GamingDayCloseRequested', request, ['pm-1', 'pit-manager'])])).toEqual(['EARLY_NOT_APPROVED']);
  });
});
