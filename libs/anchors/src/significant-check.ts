import { createHash } from 'node:crypto';
import { significantStreamId } from '@ledger/events';
import {
  causeMayRaise,
  configurationDrafts,
  configurationPartOf,
  isMidShoe,
  isSignificantEventCode,
  raisersOf,
  significantEventCodesFor,
  significantEventSpec,
  type AttestationOf,
  type SignificantEventCode,
} from '@ledger/significant-events';
import type { ConfigurationAttestedData, LedgerEventType } from '@ledger/events';
import type { DivergenceList } from './report';
import type { SqlSession } from './sql';

/**
 * The id of the significant event `code` raised by the ledger event `causeEventId`: a UUID (version
 * nibble 8, RFC 9562 variant) from the SHA-256 of both, so a cause delivered twice names the same
 * significant event (the API's monitor raises with it; `npm run -s verify` checks every raise has it).
 */
export function significantEventIdOf(causeEventId: string, code: string): string {
  const h = createHash('sha256').update(`${causeEventId.toLowerCase()}|${code}`).digest('hex');
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
  /** A `DealerChanged`: its stream version and the version of its shoe's first `RoundOpened` (null: none). */
  readonly dealerChange?: { readonly streamVersion: number; readonly firstRoundVersion: number | null };
  /** A `ConfigurationAttested`: its data and the ledger's previous attestation (null: it is the first). */
  readonly configuration?: { readonly data: ConfigurationAttestedData; readonly previous: AttestationOf | null };
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
  if (e.eventId !== significantEventIdOf(causeId, d.code)) out.push(`its id is not the one its cause and code give (${significantEventIdOf(causeId, d.code)})`);
  if (cause.type !== d.cause.eventType || cause.streamId !== d.cause.streamId || cause.globalPosition !== d.cause.globalPosition)
    out.push(`its cause is named as ${d.cause.eventType} at ${d.cause.globalPosition}, stored as ${cause.type} at ${cause.globalPosition}`);
  if (cause.actorId !== d.actor) out.push(`its actor ${String(d.actor)} is not its cause's ${cause.actorId}`);
  const raisable = causeMayRaise(d.code, cause.type as LedgerEventType, cause.actorRole);
  if (!raisable) out.push(`a ${cause.type} of a ${cause.actorRole} cannot raise ${d.code}`);
  else out.push(...conditionProblems(d.code, d.details, cause));
  return out;
}

/** Whether `b` is an object of exactly `a`'s string entries (whatever their order). */
function sameStrings(a: Readonly<Record<string, string>>, b: unknown): boolean {
  if (!b || typeof b !== 'object') return false;
  const bb = b as Record<string, unknown>;
  return Object.keys(bb).length === Object.keys(a).length && Object.entries(a).every(([k, v]) => bb[k] === v);
}

/**
 * The problems of a raise whose condition is in the stored events, not in its cause alone: the
 * dealer change's kind (mid-shoe) whose dealer change came before any round of its shoe; a `CONFIG.*` kind
 * whose part the attestation did not change since the previous one (or the first attestation), or
 * whose details are not what changed.
 */
function conditionProblems(code: string, details: unknown, cause: CauseRecord): string[] {
  if (cause.type === 'DealerChanged' && significantEventCodesFor('DealerChanged').includes(code as SignificantEventCode)) {
    const c = cause.dealerChange;
    return c && isMidShoe(c.streamVersion, c.firstRoundVersion) ? [] : [`its DealerChanged (version ${c?.streamVersion ?? '?'} of ${cause.streamId}) came before any round of its shoe: not mid-shoe`];
  }
  if (cause.type !== 'ConfigurationAttested') return [];
  const c = cause.configuration;
  if (!c?.previous) return [`its ConfigurationAttested at ${cause.globalPosition} is the first of the ledger: nothing to compare with`];
  const draft = configurationDrafts(c.previous, c.data).find((x) => x.code === code);
  const part = configurationPartOf(code);
  if (!draft) return [`its ConfigurationAttested at ${cause.globalPosition} changed no ${part} since the previous attestation ${c.previous.eventId}`];
  return sameStrings(draft.details, details) ? [] : [`its details are not what changed since the previous attestation: ${JSON.stringify(draft.details)}`];
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
 * that code, on the condition the stored events say (`DEALER.CHANGED_MID_SHOE`: a round of its shoe
 * opened before the change; `CONFIG.*`: its part changed since the ledger's previous configuration
 * attestation, and its details say what); every `SignificantEventAcknowledged` follows its raise in the same stream and was written
 * by a pit manager or an auditor, as themselves, who had no hand in the cause. Pure.
 * @param events the significant events, in stream order
 * @param causes the stored events the raises name, by event id, with the conditions' context ({@link CauseRecord})
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

/** A stored cause as step 7 reads it (the data of a configuration attestation only). */
interface CauseRow {
  readonly event_id: string;
  readonly type: string;
  readonly stream_id: string;
  readonly stream_version: number;
  readonly global_position: string;
  readonly actor_id: string;
  readonly actor_role: string;
  readonly data: ConfigurationAttestedData | null;
}

/**
 * Adds to each cause whose raises have a condition in the stored events what the check needs: a
 * `DealerChanged`'s version and its shoe's first `RoundOpened`; a `ConfigurationAttested`'s data and
 * the ledger's previous attestation (the last one below it in global order).
 */
async function addConditions(session: SqlSession, rows: readonly CauseRow[], causes: Map<string, CauseRecord>): Promise<void> {
  const dealerStreams = [...new Set(rows.filter((r) => r.type === 'DealerChanged').map((r) => r.stream_id))];
  if (dealerStreams.length > 0) {
    const firsts: { stream_id: string; v: number }[] = await session.query(`SELECT e.stream_id, min(e.stream_version) AS v FROM events e WHERE e.stream_id = ANY($1::text[]) AND e.type = 'RoundOpened' GROUP BY e.stream_id`, [
      dealerStreams,
    ]);
    const first = new Map(firsts.map((f) => [f.stream_id, Number(f.v)]));
    for (const r of rows.filter((x) => x.type === 'DealerChanged')) causes.set(r.event_id, { ...causes.get(r.event_id)!, dealerChange: { streamVersion: r.stream_version, firstRoundVersion: first.get(r.stream_id) ?? null } });
  }
  if (!rows.some((r) => r.type === 'ConfigurationAttested')) return;
  const attestations: { event_id: string; global_position: string; data: ConfigurationAttestedData }[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.global_position::text AS global_position, e.data FROM events e WHERE e.table_id = '*' AND e.type = 'ConfigurationAttested' ORDER BY e.global_position`,
  );
  for (const r of rows.filter((x) => x.type === 'ConfigurationAttested')) {
    const before = attestations.filter((a) => BigInt(a.global_position) < BigInt(r.global_position));
    const previous = before.length > 0 ? { eventId: before[before.length - 1].event_id, data: before[before.length - 1].data } : null;
    causes.set(r.event_id, { ...causes.get(r.event_id)!, configuration: { data: r.data!, previous } });
  }
}

/**
 * Step 7 of `verifyLedger` (`npm run -s verify`, `GET /audit/anchors/verify`): reads every significant
 * event of the ledger and the causes their raises name, in the session's snapshot, and reports each
 * problem of {@link significantEventProblems} as `SIGNIFICANT_EVENT_NOT_GENUINE` (source
 * `significant-events`). Their hash chain, anchoring and Kafka copy are checked with every other
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
  const causeRows: CauseRow[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.type, e.stream_id, e.stream_version, e.global_position::text AS global_position, e.actor_id, e.actor_role,
            CASE WHEN e.type = 'ConfigurationAttested' THEN e.data END AS data
       FROM events e WHERE e.event_id = ANY($1::uuid[])`,
    [causeIds],
  );
  const causes = new Map(causeRows.map((c) => [c.event_id, { type: c.type, streamId: c.stream_id, globalPosition: c.global_position, actorId: c.actor_id, actorRole: c.actor_role }]));
  await addConditions(session, causeRows, causes);
  const events = rows.map((r) => ({ eventId: r.event_id, type: r.type, streamId: r.stream_id, streamVersion: r.stream_version, globalPosition: r.global_position, actorId: r.actor_id, actorRole: r.actor_role, data: r.data }));
  for (const p of significantEventProblems(events, causes)) {
    const e = p.event;
    out.add({ source: 'significant-events', kind: 'SIGNIFICANT_EVENT_NOT_GENUINE', streamId: e.streamId, version: e.streamVersion, eventId: e.eventId, globalPosition: e.globalPosition, reason: `${e.type}: ${p.reason}` });
  }
  return rows.length;
}
