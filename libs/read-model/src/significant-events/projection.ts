import { causeKindOf, type LedgerEvent } from '@ledger/events';
import { ProjectionError, type Projection, type ProjectionTx } from '@ledger/projections';
import { SEVERITIES, severityAtLeast, type Severity } from '@ledger/significant-events';
import { SIGNIFICANT_EVENTS_TABLE } from './tables';

/** The row of a raise. */
function raisedRow(e: LedgerEvent<'SignificantEventRaised'>): Record<string, unknown> {
  const d = e.data;
  // an event cause (untagged in the raises before the tagged causes) names its event; the others are in `cause`
  const event = d.cause.kind === undefined || d.cause.kind === 'event' ? d.cause : null;
  const rank = SEVERITIES.indexOf(d.severity as Severity);
  return {
    significant_event_id: d.significantEventId,
    code: d.code,
    severity: d.severity,
    severity_rank: rank,
    table_id: d.tableId ?? null,
    shoe_id: d.shoeId ?? null,
    round_id: d.roundId ?? null,
    dealer_id: d.dealerId ?? null,
    actor_id: d.actor,
    cause_kind: causeKindOf(d.cause),
    cause_event_id: event ? event.eventId : null,
    cause_event_type: event ? event.eventType : null,
    cause_global_position: event ? event.globalPosition : null,
    cause: d.cause,
    details: d.details,
    requires_ack: rank >= 0 && severityAtLeast(d.severity as Severity, 'high'),
    raised_at: e.recordedAt,
    raised_position: e.globalPosition,
    acknowledged_by: null,
    acknowledged_role: null,
    ack_reason: null,
    acknowledged_at: null,
    ack_position: null,
  };
}

/** The columns an acknowledgement fills in. */
function acknowledgedColumns(e: LedgerEvent<'SignificantEventAcknowledged'>): Record<string, unknown> {
  return { acknowledged_by: e.data.acknowledgedBy, acknowledged_role: e.data.role, ack_reason: e.data.reason, acknowledged_at: e.recordedAt, ack_position: e.globalPosition };
}

/**
 * The row of `significant_events` its stored events give: the raise's columns, completed by the
 * acknowledgement's when there is one. The projection writes it; the API serves it rebuilt from the
 * event store, so the read model selects and orders the list but never decides a row's content
 * (docs/significant-events.md, "What the read model may not decide"). Pure.
 */
export function significantEventRowOf(raise: LedgerEvent<'SignificantEventRaised'>, ack: LedgerEvent<'SignificantEventAcknowledged'> | null): Record<string, unknown> {
  return { ...raisedRow(raise), ...(ack ? acknowledgedColumns(ack) : {}) };
}

/**
 * `significant_events`: one row per significant event (docs/significant-events.md, "Raised as
 * facts"), created by its `SignificantEventRaised` and completed by its `SignificantEventAcknowledged`
 * (who, in which role, why, when). Reads nothing but its own table.
 */
export const significantEventsProjection: Projection<undefined> = {
  name: 'significant_events',
  tables: [{ name: SIGNIFICANT_EVENTS_TABLE, orderBy: 'significant_event_id', scope: { tableId: (p) => `table_id = ${p}` } }],
  async apply(e: LedgerEvent, tx: ProjectionTx): Promise<void> {
    if (e.type === 'SignificantEventRaised') {
      tx.createRow(SIGNIFICANT_EVENTS_TABLE, 'significant_event_id', raisedRow(e));
      return;
    }
    if (e.type !== 'SignificantEventAcknowledged') return;
    const row = await tx.row(SIGNIFICANT_EVENTS_TABLE, 'significant_event_id', e.data.significantEventId);
    // the stream's version check puts the raise first (same stream, same table key, same partition)
    if (row === null) throw new ProjectionError('PROJECTION.INCONSISTENT_EVENT', `SignificantEventAcknowledged of ${e.data.significantEventId}, which was never raised`, { eventId: e.eventId });
    tx.update(row, acknowledgedColumns(e));
  },
};
