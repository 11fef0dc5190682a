import { SCHEMA_VERSIONS, LedgerEvent, LedgerEventType } from './catalogue';
import type { EventEnvelope } from './envelope';

/**
 * Upcasting (docs/guarantees.md §10, docs/architecture.md §9): an event stored at an old schema version is lifted,
 * on read, step by step to the current version. Stored rows are never rewritten.
 *
 * To change a type's data shape: bump its SCHEMA_VERSIONS entry and add an upcaster from the
 * previous version here. None exist yet: every type is at version 1.
 */
export type Upcaster = (data: any) => any;

/** type → fromVersion → function lifting data from `fromVersion` to `fromVersion + 1`. */
export const UPCASTERS: Partial<Record<LedgerEventType, Record<number, Upcaster>>> = {};

/**
 * Lifts an envelope to the current schema version of its type.
 * @throws Error `EVENT.UNKNOWN_TYPE` / `EVENT.NO_UPCASTER` when it cannot be read
 */
export function upcast(e: EventEnvelope<string, unknown>): LedgerEvent {
  const current = SCHEMA_VERSIONS[e.type as LedgerEventType];
  if (current === undefined) throw new Error(`EVENT.UNKNOWN_TYPE: ${e.type}`);
  let data = e.data;
  let v = e.schemaVersion;
  while (v < current) {
    const step = UPCASTERS[e.type as LedgerEventType]?.[v];
    if (!step) throw new Error(`EVENT.NO_UPCASTER: ${e.type} v${v}→v${v + 1}`);
    data = step(data);
    v++;
  }
  return { ...e, schemaVersion: v, data } as LedgerEvent;
}
