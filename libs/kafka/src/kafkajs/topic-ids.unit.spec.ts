import { decodeMetadataResponse, encodeMetadataRequest } from './topic-ids';

/** A Metadata v12 answer built by hand, field by field as the protocol writes it. */
function answer(correlationId: number, topics: { name: string; error: number; id: Buffer }[]): Buffer {
  const u = (n: number) => Buffer.from([n]); // uvarints below 128
  const i16 = (n: number) => {
    const b = Buffer.alloc(2);
    b.writeInt16BE(n);
    return b;
  };
  const i32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  const str = (s: string) => Buffer.concat([u(Buffer.byteLength(s) + 1), Buffer.from(s)]);
  const parts = [i32(correlationId), u(0), i32(0)];
  parts.push(u(2), i32(1), str('broker-1'), i32(9092), u(0), u(0)); // one broker, rack null
  parts.push(u(0), i32(1)); // cluster id null, controller 1
  parts.push(u(topics.length + 1));
  for (const t of topics) {
    parts.push(i16(t.error), str(t.name), t.id, Buffer.from([0]));
    parts.push(u(2), i16(0), i32(0), i32(1), i32(3), u(2), i32(1), u(2), i32(1), u(1), u(0)); // one partition
    parts.push(i32(-2147483648), u(0));
  }
  parts.push(u(0));
  return Buffer.concat(parts);
}

describe('topic ids over Metadata v12', () => {
  it('encodes a request with header v2 and the topic names', () => {
    const b = encodeMetadataRequest(7, 'cid', ['t1']);
    expect(b.readInt32BE(0)).toBe(b.length - 4);
    expect([b.readInt16BE(4), b.readInt16BE(6), b.readInt32BE(8)]).toEqual([3, 12, 7]);
    expect(b.subarray(14, 17).toString()).toBe('cid');
    expect(b.includes(Buffer.from('t1'))).toBe(true);
  });

  it('reads names, error codes and ids (base64url, null when all zero)', () => {
    const id = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const r = decodeMetadataResponse(
      answer(7, [
        { name: 'a', error: 0, id },
        { name: 'b', error: 3, id: Buffer.alloc(16) },
      ]),
    );
    expect(r.correlationId).toBe(7);
    expect(r.topics).toEqual([
      { name: 'a', errorCode: 0, topicId: id.toString('base64url') },
      { name: 'b', errorCode: 3, topicId: null },
    ]);
  });

  it('refuses a truncated answer', () => {
    const full = answer(1, [{ name: 'a', error: 0, id: Buffer.alloc(16, 1) }]);
    expect(() => decodeMetadataResponse(full.subarray(0, full.length - 30))).toThrow();
  });
});
