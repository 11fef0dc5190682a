import { generateKeyPairSync, sign } from 'node:crypto';
import { publicKeyId } from './checkpoint';
import { checkGamingDayClose, sha256OfText, type CloseUnderCheck } from './gaming-day-close';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keyId = publicKeyId(publicKey);
const keys = new Map([[keyId, publicKey]]);

/** A genuine close of `day` for T1 at position 42, and its bytes. */
function genuine(day = '2026-03-01'): CloseUnderCheck {
  const bytes = JSON.stringify({ gamingDay: day, tableIds: ['T1'], throughPosition: '42', rows: [] });
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

  it('bytes that are signed but not JSON are malformed', () => {
    const bytes = 'not json';
    const signature = sign(null, Buffer.from(bytes, 'utf8'), privateKey).toString('base64');
    const g = genuine();
    expect(checkGamingDayClose({ ...g, bytes, data: { ...g.data, reportSha256: sha256OfText(bytes), signature } }, keys).problem).toBe('MALFORMED');
  });
});
