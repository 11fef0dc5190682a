import type { LedgerEvent } from '@ledger/events';
import { type Projection, type ProjectionTx, shoeIdOrNull } from '@ledger/projections';
import { AUDIT_EVENTS_TABLE } from './tables';
import { HAND_OUTCOMES_TABLE } from '../outcomes/tables';

/**
 * `audit_events`: every event, flattened for search by table, shoe, round, bet, time, type and
 * actor (regulators' game recall, docs/guarantees.md §9), with the full `data` as jsonb and
 * the hash chain fields. Append-only: one row per event, keyed by global position. Reads nothing.
 */
export const auditEventsProjection: Projection<undefined> = {
  name: 'audit_events',
  tables: [
    {
      name: AUDIT_EVENTS_TABLE,
      orderBy: 'global_position',
      // a gaming day's rows: the events of its rounds (a shoe's own events belong to no single day)
      scope: { tableId: (p) => `table_id = ${p}`, gamingDay: (p, t) => `round_id IN (SELECT round_id FROM ${t(HAND_OUTCOMES_TABLE)} WHERE gaming_day = ${p})`, uses: [HAND_OUTCOMES_TABLE] },
    },
  ],
  async apply(e: LedgerEvent, tx: ProjectionTx): Promise<void> {
    const d = e.data as unknown as Record<string, unknown>;
    const decision = (d.decision ?? null) as { reason?: string; actingManagerId?: string; approverId?: string; compensates?: string } | null;
    tx.append(AUDIT_EVENTS_TABLE, {
      global_position: e.globalPosition,
      event_id: e.eventId,
      stream_id: e.streamId,
      stream_version: e.streamVersion,
      table_id: e.tableId,
      shoe_id: shoeIdOrNull(e),
      round_id: typeof d.roundId === 'string' ? d.roundId : null,
      bet_id: typeof d.betId === 'string' ? d.betId : null,
      type: e.type,
      schema_version: e.schemaVersion,
      actor_id: e.actor.id,
      actor_role: e.actor.role,
      occurred_at: e.occurredAt,
      recorded_at: e.recordedAt,
      correlation_id: e.correlationId,
      causation_id: e.causationId,
      reason: decision?.reason ?? (typeof d.reason === 'string' ? d.reason : null),
      acting_manager_id: decision?.actingManagerId ?? null,
      approver_id: decision?.approverId ?? null,
      compensates: typeof d.compensates === 'string' ? d.compensates : (decision?.compensates ?? null),
      prev_hash: e.prevHash,
      hash: e.hash,
      // the object itself: the batch's rows are sent as one JSON array (ProjectionTx.insertRows)
      data: e.data,
    });
  },
};
