import type { Actor, Role } from './envelope';

/**
 * Time the ledger vouches for (docs/architecture.md §9, "Time the ledger vouches for"): every event
 * keeps two instants, the device's `occurredAt` (as reported) and the ledger's `recordedAt` (the
 * API's clock when it appends). Their difference is the device's clock skew as the ledger sees it.
 */

/**
 * The roles whose `occurredAt` is a device's clock (the clients that report table facts and bets):
 * table devices and betting platforms. The ledger's own events (`system`) and pit managers'
 * decisions carry the ledger's clock or a person's claim, not a device clock, and are not measured.
 */
export const DEVICE_CLOCK_ROLES: readonly Role[] = ['table-device', 'betting-platform'];

function instantMs(iso: string, field: string): number {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) throw new RangeError(`${field} ${JSON.stringify(iso)} is not an ISO-8601 instant`);
  return ms;
}

/**
 * A device's clock skew as the ledger sees it: `occurredAt − recordedAt`, in whole milliseconds
 * (an exact integer: both instants are whole ms since the epoch). Positive: the device's clock is
 * ahead of the ledger's; negative: behind it, or the request took that long to arrive (a device in
 * step with the ledger shows a small negative skew, its request's transit time).
 * @param occurredAt ISO-8601 instant at the table, as reported (any offset)
 * @param recordedAt ISO-8601 instant the ledger recorded the event (its clock)
 * @returns signed ms
 * @throws RangeError when either is not an ISO-8601 instant (a stored envelope always is one)
 */
export function clockSkewMs(occurredAt: string, recordedAt: string): number {
  return instantMs(occurredAt, 'occurredAt') - instantMs(recordedAt, 'recordedAt');
}

/** A device's clock as one event shows it: who, at which table, and the skew ({@link clockSkewMs}). */
export interface DeviceClockReading {
  /** The envelope actor's id (a table device's or betting platform's token subject). */
  readonly deviceId: string;
  readonly tableId: string;
  /** `occurredAt − recordedAt`, ms, signed. */
  readonly skewMs: number;
}

/**
 * The device clock reading of an event: its actor is the device when its role is one of
 * {@link DEVICE_CLOCK_ROLES}; null for any other actor (the ledger, pit managers, auditors).
 * @throws RangeError what {@link clockSkewMs} throws
 */
export function deviceClockOf(e: { readonly actor: Actor; readonly tableId: string; readonly occurredAt: string; readonly recordedAt: string }): DeviceClockReading | null {
  if (!DEVICE_CLOCK_ROLES.includes(e.actor.role)) return null;
  return { deviceId: e.actor.id, tableId: e.tableId, skewMs: clockSkewMs(e.occurredAt, e.recordedAt) };
}

/**
 * The largest device clock skew of one table in a gaming day (docs/reports.md §2): what a close's
 * signed report (layout 2 on) and its `GamingDayClosed` event state per table of their set. Computed
 * from the events of the table recorded in the day (their `recordedAt`, the gaming-day rule) at or
 * below the close's position whose actor is a device ({@link DEVICE_CLOCK_ROLES}).
 */
export interface TableClockSkew {
  readonly tableId: string;
  /** How many such events there are (0: no device reported at the table that day). */
  readonly deviceEvents: number;
  /** The event with the largest absolute skew (the first in global order among equals); null when `deviceEvents` is 0. */
  readonly largest: {
    readonly deviceId: string;
    /** `occurredAt − recordedAt`, ms, signed ({@link clockSkewMs}). */
    readonly skewMs: number;
    /** Its global position, decimal string. */
    readonly globalPosition: string;
    readonly eventId: string;
  } | null;
}
