import { createHash } from 'node:crypto';
import { GENESIS_HASH, SCHEMA_VERSIONS, type Actor, type LedgerEvent, type LedgerEventMap, type LedgerEventType } from '@ledger/events';

/**
 * Test helpers that wrap event data in well-formed envelopes exactly as the event store would
 * (catalogue `@ledger/events`): stream `shoe-<shoeId>`, gap-free stream versions, one global
 * position counter across streams (decimal strings), hash chain (SHA-256 of prevHash + canonical
 * JSON of the envelope without `hash` and `globalPosition`, keys sorted as RFC 8785 does).
 */

/** Canonical JSON with keys sorted (RFC 8785 for the strings, integers, booleans and nulls events hold). */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
}

/** Global position counter shared by several streams. */
export class GlobalPositions {
  private next: bigint;
  constructor(start = 1n) {
    this.next = start;
  }
  take(): string {
    return (this.next++).toString();
  }
}

/** Deterministic UUID-shaped ids: `<prefix-hex>-0000-4000-8000-<counter>`. */
export function idFactory(prefix: string): () => string {
  const p = createHash('sha256').update(prefix).digest('hex').slice(0, 8);
  let n = 0;
  return () => `${p}-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;
}

/** Options of one appended event. */
export interface AppendOptions {
  readonly actor: Actor;
  readonly occurredAt: string;
  readonly eventId?: string;
  readonly correlationId?: string;
  readonly causationId?: string;
}

/** Builds the events of one stream (a shoe's, or another given by id), in order. */
export class StreamBuilder {
  readonly streamId: string;
  readonly events: LedgerEvent[] = [];
  private prevHash = GENESIS_HASH;

  constructor(
    readonly shoeId: string,
    readonly tableId: string,
    /** Assigns global positions as events are added; `null`: the caller assigns them later (see {@link assignPositions}). */
    private readonly positions: GlobalPositions | null,
    private readonly newId: () => string,
    /** The stream id. @default `shoe-<shoeId>` */
    streamId?: string,
  ) {
    this.streamId = streamId ?? `shoe-${shoeId}`;
  }

  /** Appends one event; returns its envelope. `recordedAt` = occurredAt + 0.25 s. */
  add<T extends LedgerEventType>(type: T, data: LedgerEventMap[T], o: AppendOptions): LedgerEvent<T> {
    const eventId = o.eventId ?? this.newId();
    const body = {
      eventId,
      type,
      schemaVersion: SCHEMA_VERSIONS[type],
      streamId: this.streamId,
      streamVersion: this.events.length + 1,
      tableId: this.tableId,
      occurredAt: o.occurredAt,
      recordedAt: new Date(Date.parse(o.occurredAt) + 250).toISOString(),
      actor: o.actor,
      correlationId: o.correlationId ?? eventId,
      causationId: o.causationId ?? eventId,
      prevHash: this.prevHash,
      data,
    };
    const hash = createHash('sha256').update(this.prevHash, 'utf8').update(canonicalJson(body), 'utf8').digest('hex');
    const envelope = { ...body, hash, globalPosition: this.positions ? this.positions.take() : '0' } as unknown as LedgerEvent<T>;
    this.prevHash = hash;
    this.events.push(envelope as LedgerEvent);
    return envelope;
  }
}

/**
 * Interleaves the events of several streams by `occurredAt` (stream order kept) and assigns global
 * positions from `start` in that order, as one event store would. Mutates the envelopes' `globalPosition`.
 */
export function assignPositions(streams: readonly (readonly LedgerEvent[])[], start = 1n): LedgerEvent[] {
  const all = streams.flatMap((events, s) => events.map((e, i) => ({ e, s, i, t: Date.parse(e.occurredAt) })));
  all.sort((a, b) => a.t - b.t || a.s - b.s || a.i - b.i);
  let next = start;
  return all.map(({ e }) => {
    (e as { globalPosition: string }).globalPosition = (next++).toString();
    return e;
  });
}
