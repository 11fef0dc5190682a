import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { assignRequestId, InFlightRequests, REQUEST_ID_PATTERN, unversionedUrl, type IdentifiedRequest } from './http-hygiene';

describe('unversionedUrl (/v1 alias, docs/api-versioning.md)', () => {
  it.each([
    ['/v1/tables', '/tables'],
    ['/v1/shoes/s-1/rounds?x=1', '/shoes/s-1/rounds?x=1'],
    ['/v1', '/'],
    ['/v1?x=1', '/?x=1'],
    ['/tables', '/tables'],
    ['/v1tables', '/v1tables'],
    ['/v2/tables', '/v2/tables'],
    ['/console/v1/x', '/console/v1/x'],
  ])('%s → %s', (from, to) => expect(unversionedUrl(from)).toBe(to));
});

describe('assignRequestId', () => {
  const req = (id?: unknown) => ({ headers: id === undefined ? {} : { 'x-request-id': id } }) as unknown as IdentifiedRequest;
  it('keeps a well-formed caller id, once', () => {
    const r = req('abc-1.2:3_X');
    expect(assignRequestId(r)).toBe('abc-1.2:3_X');
    r.headers['x-request-id'] = 'other';
    expect(assignRequestId(r)).toBe('abc-1.2:3_X');
  });
  it('replaces an absent, malformed, oversized or repeated id by a UUID', () => {
    for (const bad of [undefined, '', 'a b', 'x'.repeat(129), 'é', ['a', 'b'], 'a\nb']) {
      const id = assignRequestId(req(bad));
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(REQUEST_ID_PATTERN.test(id)).toBe(true);
    }
  });
});

describe('InFlightRequests', () => {
  const res = (contentType?: string) => {
    const e = new EventEmitter() as EventEmitter & { writableEnded: boolean; getHeader: (n: string) => unknown; end: () => void };
    e.writableEnded = false;
    e.getHeader = () => contentType;
    e.end = () => {
      e.writableEnded = true;
      e.emit('finish');
    };
    return e as unknown as Response;
  };
  it('counts responses until they finish or close, and ends only event streams', () => {
    const f = new InFlightRequests();
    const [json, sse, gone] = [res('application/json'), res('text/event-stream; charset=utf-8'), res()];
    for (const r of [json, sse, gone]) f.track(r);
    expect(f.size).toBe(3);
    (gone as unknown as EventEmitter).emit('close');
    expect(f.size).toBe(2);
    expect(f.endStreams()).toBe(1);
    expect(f.size).toBe(1);
    expect(json.writableEnded).toBe(false);
  });
});
