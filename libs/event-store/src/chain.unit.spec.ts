import { randomBytes, randomUUID } from 'node:crypto';
import { EVENT_TYPES, GENESIS_HASH, type LedgerEvent, type NewEvent } from '@ledger/events';
import { prepareAppend, type Prepared } from './append-request';
import { chainEvents, withPositions } from './chain';
import { computeEventHash } from './hash';

/** The events as the append built them before (an envelope per event, then a copy with its hash, then a copy with its position). */
function reference(p: Prepared, head: { version: number; lastHash: string }, positions: readonly string[]): LedgerEvent[] {
  let prevHash = head.lastHash;
  const chained = p.events.map((e, i) => {
    const envelope = {
      eventId: e.eventId,
      type: e.type,
      schemaVersion: e.schemaVersion,
      streamId: p.streamId,
      streamVersion: head.version + i + 1,
      tableId: p.tableId,
      occurredAt: p.occurredAt,
      recordedAt: p.recordedAt,
      actor: p.actor,
      correlationId: p.correlationId,
      causationId: p.causationId,
      prevHash,
      data: e.data,
    };
    const hash = computeEventHash(envelope);
    prevHash = hash;
    return { ...envelope, hash };
  });
  return chained.map((e, i) => ({ ...e, globalPosition: positions[i] }) as unknown as LedgerEvent);
}

/** A request of `n` random events (bets, cards), prepared as the store prepares it. */
function randomRequest(n: number): Prepared {
  const events = Array.from({ length: n }, (_, i): NewEvent =>
    i % 3 === 2
      ? { eventId: randomUUID(), type: 'CardDealt' as const, data: { roundId: `R-${i}`, position: 'P1' as const, card: 'TH' } }
      : {
          eventId: randomUUID(),
          type: 'BetPlaced' as const,
          data: { betId: `B-${randomBytes(4).toString('hex')}`, roundId: 'R-1', accountId: `acct-${i}`, betCode: 'BANKER' as const, stake: String(1 + randomBytes(2).readUInt16BE()), currency: 'EUR' },
        },
  );
  return prepareAppend(
    { streamId: `shoe-${randomUUID()}`, tableId: 'T-1', expectedVersion: 3, events, metadata: { actor: { id: 'platform', role: 'betting-platform' }, correlationId: randomUUID() } },
    () => new Date(1_800_000_000_000 + randomBytes(2).readUInt16BE()),
  );
}

describe('chainEvents and withPositions: the events an append records', () => {
  it('equal, field for field and in key order, what the append built before, on random requests and heads', () => {
    for (let run = 0; run < 25; run++) {
      const p = randomRequest(1 + (run % 7) * 9);
      const head = run % 2 === 0 ? { version: 0, lastHash: GENESIS_HASH } : { version: 3 + run, lastHash: randomBytes(32).toString('hex') };
      const positions = p.events.map((_, i) => String(1000 * run + i + 1));
      const before = reference(p, head, positions);
      const now = withPositions(chainEvents(p, head), positions);
      expect(now).toEqual(before);
      expect(JSON.stringify(now)).toEqual(JSON.stringify(before));
    }
  });

  it('chains each hash to the one before, the first to the head', () => {
    const p = randomRequest(5);
    const chained = chainEvents(p, { version: 7, lastHash: GENESIS_HASH });
    expect(chained.map((e) => e.streamVersion)).toEqual([8, 9, 10, 11, 12]);
    expect(chained[0].prevHash).toBe(GENESIS_HASH);
    for (let i = 1; i < chained.length; i++) expect(chained[i].prevHash).toBe(chained[i - 1].hash);
    for (const e of chained) expect(e.hash).toBe(computeEventHash(e));
  });

  it('makes no copy of the events: the recorded events are the chained objects, given their positions', () => {
    const p = randomRequest(4);
    const chained = chainEvents(p, { version: 0, lastHash: GENESIS_HASH });
    const recorded = withPositions(chained, ['11', '12', '13', '14']);
    expect(recorded).toHaveLength(4);
    recorded.forEach((e, i) => {
      expect(e).toBe(chained[i]);
      expect(e.globalPosition).toBe(String(11 + i));
    });
  });
});

describe('the two instants of every event (docs/architecture.md §9, "Time the ledger vouches for")', () => {
  it("every type of the catalogue keeps the device's occurredAt and the ledger's recordedAt, and its hash covers each", () => {
    for (const type of EVENT_TYPES) {
      const p = prepareAppend(
        {
          streamId: 'shoe-s-1',
          tableId: 'T-1',
          expectedVersion: 0,
          events: [{ eventId: randomUUID(), type, data: {} } as unknown as NewEvent],
          metadata: { actor: { id: 'device-1', role: 'table-device' }, correlationId: 'c-1', occurredAt: '2026-12-07T11:59:58.5+00:00' },
        },
        () => new Date('2026-12-07T12:00:00.000Z'),
      );
      const [e] = chainEvents(p, { version: 0, lastHash: GENESIS_HASH });
      expect([type, e.occurredAt, e.recordedAt]).toEqual([type, '2026-12-07T11:59:58.500Z', '2026-12-07T12:00:00.000Z']);
      expect(computeEventHash({ ...e, occurredAt: '2026-12-07T11:59:58.501Z' })).not.toBe(e.hash);
      expect(computeEventHash({ ...e, recordedAt: '2026-12-07T12:00:00.001Z' })).not.toBe(e.hash);
      expect(computeEventHash(e)).toBe(e.hash);
    }
  });
});
