import type { LedgerEvent } from '@ledger/events';
import { ProjectionError } from '@ledger/projections';
import { smallShoe } from '@ledger/projections/testing/small-shoe.fixture';
import { analyticsRecordsFor, buildSettlement, toAnalyticsRecord } from './analytics-records';
import { ClaimedOutboxRow, REFERENCED_SOURCE_TYPES, resolveOutboxRow, settlementReferenceRow } from './analytics-references';
import { MemoryAnalyticsState } from './memory-state';

/**
 * A reference row of the analytics outbox, resolved as the publisher resolves it, gives exactly
 * the record the projector would have stored (docs/guarantees.md §4: a re-send is byte-identical),
 * and a reference that does not match the read model is refused, never sent.
 */
describe('analytics outbox references', () => {
  const shoe = smallShoe({ shoeId: 'ref-1', tableId: 'T-REF-1' });

  /** The outbox row as the claim statement returns it for `e`, with the read model the state holds. */
  async function claimed(e: LedgerEvent<'BetSettled' | 'BetResettled'>, state: MemoryAnalyticsState): Promise<ClaimedOutboxRow> {
    const ref = settlementReferenceRow(e);
    const ctx = await state.roundContext(e.data.roundId);
    return {
      global_position: e.globalPosition,
      ordinal: 0,
      kind: 'settlement',
      source_event_id: e.eventId,
      record_key: null,
      headers: null,
      value: null,
      occurred_at: ref.occurred_at as string,
      ref_event_id: e.eventId,
      ref_type: e.type,
      ref_stream_id: e.streamId,
      ref_table_id: e.tableId,
      ref_data: JSON.parse(JSON.stringify(e.data)), // as jsonb gives it back
      ref_dealer_id: ctx.dealerId,
      ref_gaming_day: ctx.gamingDay,
    };
  }

  it('Given every settlement and resettlement of a shoe, Then the resolved record is the one the projector would have stored, byte for byte', async () => {
    const state = new MemoryAnalyticsState();
    let n = 0;
    for (const e of shoe.events) {
      state.apply(e);
      if (!REFERENCED_SOURCE_TYPES.has(e.type)) continue;
      const [expected] = await analyticsRecordsFor(e, state);
      const r = resolveOutboxRow(await claimed(e as LedgerEvent<'BetSettled' | 'BetResettled'>, state));
      expect([r.kind, r.record_key, r.value, r.headers]).toEqual([expected.kind, expected.key, expected.value, expected.headers]);
      n++;
    }
    expect(n).toBeGreaterThan(5);
    expect(shoe.events.some((e) => e.type === 'BetResettled')).toBe(true);
  });

  it('Given an occurredAt in a format the database would not give back (an offset), Then the record carries it as reported', async () => {
    const state = new MemoryAnalyticsState();
    let settled: LedgerEvent<'BetSettled'> | undefined;
    for (const e of shoe.events) {
      state.apply(e);
      if (e.type === 'BetSettled') {
        settled = e as LedgerEvent<'BetSettled'>;
        break;
      }
    }
    const reported = { ...settled!, occurredAt: '2025-03-01T12:30:05.5+07:00' } as LedgerEvent<'BetSettled'>;
    const expected = toAnalyticsRecord('settlement', buildSettlement(reported, await state.roundContext(reported.data.roundId)), 0);
    const r = resolveOutboxRow(await claimed(reported, state));
    expect(r.headers.ce_time).toBe('2025-03-01T12:30:05.5+07:00');
    expect(r.value).toBe(expected.value);
  });

  it('Given a reference whose position holds another event, no round, or an event that is not a settlement, Then it is refused', async () => {
    const state = new MemoryAnalyticsState();
    let row: ClaimedOutboxRow | undefined;
    for (const e of shoe.events) {
      state.apply(e);
      if (e.type === 'BetSettled' && !row) row = await claimed(e as LedgerEvent<'BetSettled'>, state);
    }
    expect(() => resolveOutboxRow(row!)).not.toThrow();
    expect(() => resolveOutboxRow({ ...row!, ref_event_id: 'another' })).toThrow(/audit_events holds another/);
    expect(() => resolveOutboxRow({ ...row!, ref_event_id: null })).toThrow(/audit_events holds no event/);
    expect(() => resolveOutboxRow({ ...row!, ref_dealer_id: null, ref_gaming_day: null })).toThrow(/no hand_outcomes row/);
    expect(() => resolveOutboxRow({ ...row!, ref_type: 'BetRefunded' })).toThrow(/not a referenced settlement/);
    expect(() => resolveOutboxRow({ ...row!, kind: 'roads' })).toThrow(/not a referenced settlement/);
  });

  it('Given a settlement with a malformed amount or dropped fraction, Then the projector refuses it before writing a reference', () => {
    const e = shoe.events.find((x) => x.type === 'BetSettled') as LedgerEvent<'BetSettled'>;
    expect(settlementReferenceRow(e)).toMatchObject({ kind: 'settlement', value: null, headers: null, occurred_at: e.occurredAt });
    for (const data of [
      { ...e.data, payout: '12.5' },
      { ...e.data, net: 7 as unknown as string },
      { ...e.data, dropped: '1/0' },
    ]) {
      expect(() => settlementReferenceRow({ ...e, data } as LedgerEvent<'BetSettled'>)).toThrow(ProjectionError);
    }
  });
});
