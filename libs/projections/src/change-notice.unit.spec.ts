import { allChangedPayload, changeNoticePayload, MAX_NOTICE_BYTES, parseChangeNotice } from './change-notice';

describe('change notices (pg_notify payloads of the projector)', () => {
  it('lists each table once, with the shoe and position of its last change, and the batch’s last position', () => {
    const json = changeNoticePayload('read', [
      { tableId: 'T-2', shoeId: 'S-2', globalPosition: '7' },
      { tableId: 'T-1', shoeId: 'S-1', globalPosition: '9' },
      { tableId: 'T-2', shoeId: 'S-3', globalPosition: '12' },
      { tableId: 'T-2', shoeId: 'S-2', globalPosition: '8' },
    ]);
    expect(JSON.parse(json)).toEqual({
      schema: 'read',
      globalPosition: '12',
      tables: [
        { tableId: 'T-1', shoeId: 'S-1', globalPosition: '9' },
        { tableId: 'T-2', shoeId: 'S-3', globalPosition: '12' },
      ],
    });
    expect(parseChangeNotice(json)).toEqual(JSON.parse(json));
  });

  it('falls back to `all` above the size PostgreSQL takes, and for no change', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({ tableId: `TABLE-${i}`, shoeId: `SHOE-${i}-xxxxxxxx`, globalPosition: String(1000 + i) }));
    const json = changeNoticePayload('read', many);
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(MAX_NOTICE_BYTES);
    expect(JSON.parse(json)).toEqual({ schema: 'read', globalPosition: '1399', all: true });
    expect(JSON.parse(changeNoticePayload('read', []))).toEqual({ schema: 'read', globalPosition: null, all: true });
    expect(parseChangeNotice(allChangedPayload('x', '5'))).toEqual({ schema: 'x', globalPosition: '5', all: true });
  });

  it('ignores what is not a notice', () => {
    for (const p of [undefined, '', 'nope', '{}', '{"schema":"read"}', '[1]']) expect(parseChangeNotice(p)).toBeNull();
  });
});
