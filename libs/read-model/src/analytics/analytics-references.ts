import type { LedgerEvent } from '@ledger/events';
import { parseFraction, parseMinor, qualified } from '@ledger/projections';
import { AnalyticsRecord, AnalyticsRecordKind, buildSettlement, toAnalyticsRecord } from './analytics-records';

/**
 * Analytics outbox rows as references (migration 1797040000000, docs/guarantees.md §4 and §6).
 *
 * The bulk of the analytics records are settlements: one per bet of every round. The record of a
 * BetSettled / BetResettled is a pure function of the event and of the round's attribution fixed
 * at RoundOpened (dealer, gaming day: `RoundContext`), and both are immutable in the read model once
 * the projector's transaction commits: the event is its `audit_events` row (the `data` verbatim),
 * the attribution is the round's `hand_outcomes` row. So the projector writes only a reference —
 * `(global_position, ordinal, kind, source_event_id, occurred_at)` — and the publisher builds the
 * record when it claims the row, byte-identical to what the projector would have built (same
 * builders, same inputs). `occurred_at` is the one input the read model does not hold verbatim
 * (`audit_events.occurred_at` is a timestamptz; the record carries the string as reported).
 *
 * Every other record (round-outcome, roads, the settlement of a refund) depends on the round or
 * the shoe as they stood right after the event, which later events change: those stay stored in
 * full by the projector.
 */

/** Source event types whose analytics record the outbox stores as a reference. */
export const REFERENCED_SOURCE_TYPES: ReadonlySet<string> = new Set(['BetSettled', 'BetResettled']);

/**
 * The outbox row of a referenced settlement (column → value, every column of the table's rows so
 * that one batch's rows share one column list: `ProjectionTx.append`). Checks here, in the
 * projector's transaction, the amounts the publisher's `buildSettlement` will parse, so a record
 * the publisher could not build is refused with its event (quarantine/incident), never left in
 * the outbox.
 * @throws ProjectionError `PROJECTION.BAD_AMOUNT` for an amount or `dropped` that is not well formed
 */
export function settlementReferenceRow(e: LedgerEvent<'BetSettled' | 'BetResettled'>): Record<string, unknown> {
  const d = e.data;
  parseMinor(d.stake, 'stake');
  parseMinor(d.winnings, 'winnings');
  parseMinor(d.payout, 'payout');
  parseMinor(d.net, 'net');
  parseFraction(d.dropped);
  return {
    global_position: e.globalPosition,
    ordinal: 0,
    kind: 'settlement',
    source_event_id: e.eventId,
    record_key: null,
    ce_id: null,
    headers: null,
    value: null,
    occurred_at: e.occurredAt,
  };
}

/** A pending outbox row as the publisher claims it, with the read-model rows a reference needs. */
export interface ClaimedOutboxRow {
  global_position: string;
  ordinal: number;
  kind: AnalyticsRecordKind;
  source_event_id: string;
  /** Null for a reference (then the `ref_*` fields are set). */
  record_key: string | null;
  headers: Record<string, string> | null;
  value: string | null;
  occurred_at: string | null;
  ref_event_id: string | null;
  ref_type: string | null;
  ref_stream_id: string | null;
  ref_table_id: string | null;
  ref_data: Record<string, unknown> | null;
  ref_dealer_id: string | null;
  ref_gaming_day: string | null;
}

/** A claimed row with its Kafka record in hand (stored, or built from its reference). */
export interface ResolvedOutboxRow {
  readonly global_position: string;
  readonly ordinal: number;
  readonly kind: AnalyticsRecordKind;
  readonly record_key: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly value: string;
}

/**
 * The claim statement: up to `$1` unpublished rows of `<schema>.analytics_outbox` in
 * `(global_position, ordinal)` order, each reference joined to its source event's `audit_events`
 * row and its round's `hand_outcomes` row (primary-key look-ups).
 * @param options.includePublished also the rows already published (specs, tools: the whole outbox)
 */
export function claimOutboxSql(schema: string, options: { includePublished?: boolean } = {}): string {
  // ORDER BY the bigint column (o.…), not the text alias of the same name: '100' < '98'
  return `SELECT o.global_position::text AS global_position, o.ordinal, o.kind, o.source_event_id, o.record_key, o.headers, o.value, o.occurred_at,
            a.event_id AS ref_event_id, a.type AS ref_type, a.stream_id AS ref_stream_id, a.table_id AS ref_table_id, a.data AS ref_data,
            h.dealer_id AS ref_dealer_id, h.gaming_day::text AS ref_gaming_day
     FROM ${qualified(schema, 'analytics_outbox')} o
     LEFT JOIN ${qualified(schema, 'audit_events')} a ON o.value IS NULL AND a.global_position = o.global_position
     LEFT JOIN ${qualified(schema, 'hand_outcomes')} h ON o.value IS NULL AND h.round_id = a.round_id
     ${options.includePublished ? '' : 'WHERE o.published_at IS NULL'} ORDER BY o.global_position, o.ordinal LIMIT $1`;
}

/**
 * The record of a claimed row: the stored one, or the settlement built from its reference.
 * @throws Error when a reference's source event or round is missing from the read model or is not
 *   a settlement (the read model was altered outside the projector): the publisher's batch is
 *   rolled back and retried, nothing is sent in its place
 */
export function resolveOutboxRow(row: ClaimedOutboxRow): ResolvedOutboxRow {
  if (row.value !== null) {
    return { global_position: row.global_position, ordinal: row.ordinal, kind: row.kind, record_key: row.record_key!, headers: row.headers!, value: row.value };
  }
  const where = `analytics outbox reference (${row.global_position}, ${row.ordinal}) to event ${row.source_event_id}`;
  if (row.ref_event_id !== row.source_event_id) throw new Error(`${where}: audit_events holds ${row.ref_event_id ?? 'no event'} at that position`);
  if (row.ref_type === null || !REFERENCED_SOURCE_TYPES.has(row.ref_type) || row.kind !== 'settlement' || row.occurred_at === null) {
    throw new Error(`${where}: a ${row.kind} reference to a ${row.ref_type} event is not a referenced settlement`);
  }
  if (row.ref_dealer_id === null || row.ref_gaming_day === null) throw new Error(`${where}: its round has no hand_outcomes row`);
  const event = {
    eventId: row.ref_event_id,
    type: row.ref_type,
    streamId: row.ref_stream_id!,
    tableId: row.ref_table_id!,
    globalPosition: row.global_position,
    occurredAt: row.occurred_at,
    data: row.ref_data!,
  } as unknown as LedgerEvent<'BetSettled' | 'BetResettled'>;
  const record: AnalyticsRecord = toAnalyticsRecord(
    'settlement',
    // a settlement or resettlement names its own paytable: the attribution's is not read (buildSettlement)
    buildSettlement(event, { dealerId: row.ref_dealer_id, gamingDay: row.ref_gaming_day, paytableRef: '' }),
    row.ordinal,
  );
  return { global_position: row.global_position, ordinal: row.ordinal, kind: row.kind, record_key: record.key, headers: record.headers, value: record.value };
}
