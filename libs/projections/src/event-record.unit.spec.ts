import { parseEventRecord } from './event-record';
import { smallShoe } from './testing/small-shoe.fixture';
import { toMessage } from './testing/kafka-kit';

describe('reading a Kafka record', () => {
  const e = smallShoe().events[0];
  const at = { topic: 't', partition: 0, offset: '7' };

  it('reads the envelope the relay publishes', () => {
    const m = toMessage(e);
    expect(parseEventRecord({ ...at, value: Buffer.from(m.value as string), headers: m.headers as never })).toEqual(e);
  });

  it('refuses what is not a well-formed envelope, naming the offset', () => {
    const bad = (value: unknown) => parseEventRecord({ ...at, value: typeof value === 'string' ? value : JSON.stringify(value) });
    expect(() => parseEventRecord({ ...at, value: null })).toThrow(expect.objectContaining({ code: 'PROJECTION.MALFORMED_EVENT' }));
    expect(() => bad('{not json')).toThrow(/t\/0@7/);
    expect(() => bad({ ...e, globalPosition: 12 })).toThrow(/globalPosition/);
    expect(() => bad({ ...e, streamId: 'table-1' })).toThrow(/shoe-/);
    expect(() => bad({ ...e, actor: { id: 'x', role: 'croupier' } })).toThrow(/actor/);
    expect(() => bad({ ...e, occurredAt: 'noon' })).toThrow(/occurredAt/);
    expect(() => parseEventRecord({ ...at, value: JSON.stringify(e), headers: { ce_id: 'other' } })).toThrow(/ce_id/);
  });

  it('refuses an event type or schema version this build cannot read', () => {
    expect(() => parseEventRecord({ ...at, value: JSON.stringify({ ...e, type: 'ShoeTeleported' }) })).toThrow(expect.objectContaining({ code: 'PROJECTION.UNKNOWN_EVENT_TYPE' }));
    expect(() => parseEventRecord({ ...at, value: JSON.stringify({ ...e, schemaVersion: 99 }) })).toThrow(expect.objectContaining({ code: 'PROJECTION.UNKNOWN_EVENT_TYPE' }));
  });
});
