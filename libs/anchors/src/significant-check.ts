import { createHash } from 'node:crypto';
import { significantStreamId } from '@ledger/events';
import { causeMayRaise, FAIRNESS_ALERT_CODE, isSignificantEventCode, raisersOf, significantEventSpec } from '@ledger/significant-events';
import type { LedgerEventType } from '@ledger/events';
import { outOfBoundsProblems } from './fairness-raise';
import type { DivergenceList } from './report';
import type { SqlSession } from './sql';

/**
 * The id of the significant event `code` raised by the ledger event `causeEventId`: a UUID (version
 * nibble 8, RFC 9562 variant) from the SHA-256 of both, so a cause delivered twice names the same
 * significant event (the API's monitor raises with it; `npm run -s verify` checks every raise has it).
 * A kind one cause raises once per scope (`STATISTICS.OUT_OF_BOUNDS`: `shoe:<id>`, `dealer:<id>`,
 * `table:<id>`) adds the scope's key; without one the id is the (cause, code) one, unchanged.
 */
export function significantEventIdOf(causeEventId: string, code: string, scopeKey?: string): string {
  const text = `${causeEventId.toLowerCase()}|${code}${scopeKey === undefined ? '' : `|${scopeKey}`}`;
  const h = createHash('sha256').update(text).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A stored significant event (`SignificantEventRaised` or `SignificantEventAcknowledged`) as the check reads it. */
export interface SignificantEventRecord {
  readonly eventId: string;
  readonly type: string;
  readonly streamId: string;
  readonly streamVersion: number;
  readonly globalPosition: string;
  readonly actorId: string;
  readonly actorRole: string;
  readonly data: Record<string, any>;
}

/** The event a raise names as its cause, as stored (absent when the store has no event of that id). */
export interface CauseRecord {
  readonly type: string;
  readonly streamId: string;
  readonly globalPosition: string;
  readonly actorId: string;
  readonly actorRole: string;
  /** The cause's table (what a `STATISTICS.OUT_OF_BOUNDS` is computed again for). */
  readonly tableId?: string;
  /** ISO-8601, the cause's `recordedAt`. */
  readonly recordedAt?: string;
}

/** What is wrong with one significant event, by the event's id. */
export interface SignificantProblem {
  readonly event: SignificantEventRecord;
  readonly reason: string;
}

/** The problems of a raise (empty when genuine). */
function raiseProblems(e: SignificantEventRecord, cause: CauseRecord | undefined): string[] {
  const d = e.data;
  const out: string[] = [];
  if (!isSignificantEventCode(d.code)) return [`code ${String(d.code)} is not in the significant-event catalogue`];
  if (d.severity !== significantEventSpec(d.code).severity) out.push(`severity ${String(d.severity)} is not the catalogue's ${significantEventSpec(d.code).severity} for ${d.code}`);
  if (e.eventId !== d.significantEventId || e.streamId !== significantStreamId(String(d.significantEventId)) || e.streamVersion !== 1) out.push('not the first event of stream significant-<its significantEventId>');
  if (e.actorRole !== 'system') out.push(`raised by ${e.actorRole} ${e.actorId}, not by the ledger (system)`);
  const causeId = String(d.cause?.eventId ?? '');
  if (!cause) return [...out, `its cause ${causeId} is no event of the ledger`];
  const scopeKey = d.code === FAIRNESS_ALERT_CODE ? String(d.details?.scopeKey ?? '') : undefined;
  const id = significantEventIdOf(causeId, d.code, scopeKey);
  if (e.eventId !== id) out.push(`its id is not the one its cause${scopeKey === undefined ? ' and code' : ', code and scope'} give (${id})`);
  if (cause.type !== d.cause.eventType || cause.streamId !== d.cause.streamId || cause.globalPosition !== d.cause.globalPosition)
    out.push(`its cause is named as ${d.cause.eventType} at ${d.cause.globalPosition}, stored as ${cause.type} at ${cause.globalPosition}`);
  if (cause.actorId !== d.actor) out.push(`its actor ${String(d.actor)} is not its cause's ${cause.actorId}`);
  const raisable = causeMayRaise(d.code, cause.type as LedgerEventType, cause.actorRole);
  if (!raisable) out.push(`a ${cause.type} of a ${cause.actorRole} cannot raise ${d.code}`);
  return out;
}

/** The problems of an acknowledgement (empty when genuine). */
function ackProblems(e: SignificantEventRecord, raise: SignificantEventRecord | undefined): string[] {
  const d = e.data;
  if (!raise) return [`it acknowledges ${String(d.significantEventId)}, which was never raised (no SignificantEventRaised before it in its stream)`];
  const out: string[] = [];
  if (e.streamVersion !== 2 || d.significantEventId !== raise.data.significantEventId || d.code !== raise.data.code) out.push("not the raise's acknowledgement (version 2 of its stream, its id and code)");
  if (d.acknowledgedBy !== e.actorId || d.role !== e.actorRole || !['pit-manager', 'auditor'].includes(e.actorRole))
    out.push(`acknowledged by ${e.actorRole} ${e.actorId}, named as ${String(d.role)} ${String(d.acknowledgedBy)}: only a pit manager or an auditor, as themselves`);
  if (raisersOf({ actor: String(raise.data.actor), details: raise.data.details ?? {} }).has(e.actorId)) out.push(`acknowledged by ${e.actorId}, whose act raised it: a second person must`);
  return out;
}

/**
 * Step 7 of `npm run -s verify` (docs/significant-events.md, "What verify checks"): every
 * `SignificantEventRaised` names a code of the catalogue with its severity, has the id its cause and
 * code give, heads its own stream, was written by the ledger, and names a stored cause that can raise
 * that code; every `SignificantEventAcknowledged` follows its raise in the same stream and was written
 * by a pit manager or an auditor, as themselves, who had no hand in the cause. Pure.
 * @param events the significant events, in stream order
 * @param causes the stored events the raises name, by event id
 */
export function significantEventProblems(events: readonly SignificantEventRecord[], causes: ReadonlyMap<string, CauseRecord>): SignificantProblem[] {
  const raises = new Map<string, SignificantEventRecord>();
  const out: SignificantProblem[] = [];
  for (const e of events) {
    const reasons = e.type === 'SignificantEventRaised' ? raiseProblems(e, causes.get(String(e.data.cause?.eventId))) : ackProblems(e, raises.get(e.streamId));
    if (e.type === 'SignificantEventRaised' && !raises.has(e.streamId)) raises.set(e.streamId, e);
    for (const reason of reasons) out.push({ event: e, reason });
  }
  return out;
}

/**
 * Step 7 of `verifyLedger` (`npm run -s verify`, `GET /audit/anchors/verify`): reads every significant
 * event of the ledger and the causes their raises name, in the session's snapshot, and reports each
 * problem of {@link significantEventProblems} as `SIGNIFICANT_EVENT_NOT_GENUINE` (source
 * `significant-events`); for every `STATISTICS.OUT_OF_BOUNDS`, the look at its cause (a shoe's close)
 * is computed again from the stored events ({@link outOfBoundsProblems}): a raise whose scope passes
 * its tests, or whose details are not what the events give, is reported the same way. Their hash chain, anchoring and Kafka copy are checked with every other
 * stream's (steps 2 and 3).
 * @returns how many significant events it checked
 */
export async function checkSignificantEvents(session: SqlSession, out: DivergenceList): Promise<number> {
  const rows: { event_id: string; type: string; stream_id: string; stream_version: number; global_position: string; actor_id: string; actor_role: string; data: Record<string, any> }[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.type, e.stream_id, e.stream_version, e.global_position::text AS global_position, e.actor_id, e.actor_role, e.data
       FROM events e WHERE e.type IN ('SignificantEventRaised', 'SignificantEventAcknowledged') ORDER BY e.stream_id, e.stream_version`,
  );
  if (rows.length === 0) return 0;
  const causeIds = [...new Set(rows.filter((r) => r.type === 'SignificantEventRaised').map((r) => String(r.data.cause?.eventId ?? '')))].filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  const causeRows: { event_id: string; type: string; stream_id: string; global_position: string; actor_id: string; actor_role: string; table_id: string; recorded_at: string }[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.type, e.stream_id, e.global_position::text AS global_position, e.actor_id, e.actor_role, e.table_id,
            to_char(e.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at
       FROM events e WHERE e.event_id = ANY($1::uuid[])`,
    [causeIds],
  );
  const causes = new Map(
    causeRows.map((c) => [c.event_id, { type: c.type, streamId: c.stream_id, globalPosition: c.global_position, actorId: c.actor_id, actorRole: c.actor_role, tableId: c.table_id, recordedAt: c.recorded_at }]),
  );
  const events = rows.map((r) => ({ eventId: r.event_id, type: r.type, streamId: r.stream_id, streamVersion: r.stream_version, globalPosition: r.global_position, actorId: r.actor_id, actorRole: r.actor_role, data: r.data }));
  const report = (e: SignificantEventRecord, reason: string) =>
    out.add({ source: 'significant-events', kind: 'SIGNIFICANT_EVENT_NOT_GENUINE', streamId: e.streamId, version: e.streamVersion, eventId: e.eventId, globalPosition: e.globalPosition, reason: `${e.type}: ${reason}` });
  for (const p of significantEventProblems(events, causes)) report(p.event, p.reason);
  // a statistical alert: the verdict computed again from the events at its cause (docs/fairness.md §6)
  const looks = new Map<string, unknown>();
  for (const e of events) {
    if (e.type !== 'SignificantEventRaised' || e.data.code !== FAIRNESS_ALERT_CODE) continue;
    const cause = causes.get(String(e.data.cause?.eventId));
    if (!cause) continue; // reported above
    for (const reason of await outOfBoundsProblems(session, e, { ...cause, tableId: cause.tableId, recordedAt: cause.recordedAt }, looks)) report(e, reason);
  }
  return rows.length;
}
