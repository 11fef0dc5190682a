import { randomUUID } from 'node:crypto';
import { ConcurrencyError, type PgEventStore } from '@ledger/event-store';
import { LEDGER_WIDE_TABLE_ID, type LedgerEvent, type LedgerEventMap, type NewEvent } from '@ledger/events';
import { gamingDay, type GamingDayConfig } from '@ledger/projections';
import type { CloseRecords } from '../kernel/closes/close-records';

/** Appends lost to a concurrent close or request of the same day are tried again this many times. */
const APPEND_TRIES = 3;

/** What {@link appendToGamingDay} appends, and where. */
export interface DayAppend<T extends 'ClockAttested' | 'ConfigurationAttested'> {
  readonly store: PgEventStore;
  readonly records: CloseRecords;
  readonly dayRule: GamingDayConfig;
  /** The instant (ISO-8601) whose gaming day's stream takes it. */
  readonly at: string;
  readonly type: T;
  readonly data: LedgerEventMap[T];
  readonly actor: { readonly id: string; readonly role: 'system' };
}

/**
 * Appends one ledger-wide event (table id `*`) to the stream of the gaming day of `at`
 * (`gaming-day-<day>`, docs/reports.md §2) through the one append function, at the stream's current
 * version, trying again when a concurrent append of the same day won the race.
 * @returns the event recorded
 * @throws what the append throws (ConcurrencyError after {@link APPEND_TRIES} lost races)
 */
export async function appendToGamingDay<T extends 'ClockAttested' | 'ConfigurationAttested'>(a: DayAppend<T>): Promise<LedgerEvent<T>> {
  const streamId = a.records.streamOf(gamingDay(a.at, a.dayRule));
  for (let attempt = 1; ; attempt++) {
    const eventId = randomUUID();
    try {
      const result = await a.store.append({
        streamId,
        tableId: LEDGER_WIDE_TABLE_ID,
        expectedVersion: await a.store.streamVersion(streamId),
        events: [{ eventId, type: a.type, data: a.data } as NewEvent],
        metadata: { actor: a.actor, correlationId: eventId },
      });
      return result.events[0] as LedgerEvent<T>;
    } catch (err) {
      if (err instanceof ConcurrencyError && attempt < APPEND_TRIES) continue;
      throw err;
    }
  }
}
