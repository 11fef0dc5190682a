import { parseTableEvent } from '../../apps/console/src/lib/live';

describe('live stream events (apps/console/src/lib/live.ts)', () => {
  it('reads a table event of GET /live/tables', () => {
    expect(parseTableEvent('{"tableId":"T-1","shoeId":"S-1","globalPosition":"9007199254740993"}')).toEqual({ tableId: 'T-1', shoeId: 'S-1', globalPosition: '9007199254740993' });
  });
  it('keeps a null shoeId (every table may have changed)', () => {
    expect(parseTableEvent('{"tableId":"T-1","shoeId":null,"globalPosition":null}')).toEqual({ tableId: 'T-1', shoeId: null, globalPosition: null });
  });
  it('ignores what is not a table event', () => {
    for (const d of ['', 'not json', '{}', '{"tableId":5}', '[]']) expect(parseTableEvent(d)).toBeNull();
  });
});
