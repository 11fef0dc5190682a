import { createHash } from 'node:crypto';
import { LEDGER_WIDE_TABLE_ID, SIGNIFICANT_STREAM_PREFIX, significantStreamId, type ConfigurationAttestedData, type LedgerEvent, type SignificantEventCause, type SignificantEventEventCause } from '@ledger/events';
import {
  causeKey,
  causeMayRaise,
  causeProblems,
  clockSkewProblems,
  configurationDrafts,
  configurationPartOf,
  detectAgain,
  FAIRNESS_ALERT_CODE,
  isMidShoe,
  isSignificantEventCode,
  raisersOf,
  significantEventCodesFor,
  significantEventSpec,
  thresholdsOf,
  WINDOWED_EVENT_CODES,
  type AttestationOf,
  type SignificantEventCode,
} from '@ledger/significant-events';
import type { LedgerEventType } from '@ledger/events';
import { outOfBoundsProblems } from './fairness-raise';
import type { DivergenceList } from './report';
import { attestedSettings, settingsInForce, topicOrNull, type SettingsInForce } from './significant-settings';
import type { SqlSession } from './sql';
import { attestationBefore, firstRoundVersions, ledgerAttestations, partOfShoeVoid, storedEventOf, type StoredEventRow } from './significant-stored';

/**
 * A UUID (version nibble 8, RFC 9562 variant) from the SHA-256 of a cause's stable key
 * (`causeKey` of `@ledger/significant-events`): the same cause names the same significant event.
 */
export function significantEventIdOfKey(key: string): string {
  const h = createHash('sha256').update(key).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The id of the significant event `code` raised by the ledger event `causeEventId` (an event cause
 * without a window): the SHA-256 of both, so a cause delivered twice names the same significant
 * event (the API's monitor raises with it; `npm run -s verify` checks every raise has it). A kind one
 * cause raises once per scope (`STATISTICS.OUT_OF_BOUNDS`: `shoe:<id>`, `dealer:<id>`, `table:<id>`)
 * adds the scope's key; without one the id is the (cause, code) one, unchanged.
 */
export function significantEventIdOf(causeEventId: string, code: string, scopeKey?: string): string {
  return significantEventIdOfKey(`${causeEventId.toLowerCase()}|${code}${scopeKey === undefined ? '' : `|${scopeKey}`}`);
}

/** The id of the significant event `code` raised by `cause`, of any kind: from the cause's stable key (docs/significant-events.md, "Causes"). */
export function significantEventIdFor(code: string, cause: SignificantEventCause): string {
  return significantEventIdOfKey(causeKey(code, cause));
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
  /** ISO-8601 (a windowed cause's first event must be in its window). */
  readonly recordedAt?: string;
  /** The rest of the stored event, for detecting it again (absent: only the fields above are checked). */
  readonly event?: LedgerEvent;
  /** The stored event's data is not what its type's schema admits (`storedEventOf`): the monitor passes it over, so it raises nothing. */
  readonly malformed?: boolean;
  /** The shoe's dealer at the cause (its stream's last ShoeOpened or DealerChanged at or below it), or null. */
  readonly dealerId?: string | null;
  /** For a RoundVoided of cause SHOE_VOIDED: whether a shoe void of its stream lists it (`partOfShoeVoid`; absent: taken as part of one). */
  readonly shoeVoid?: boolean;
  /** For a BetResettled: the decision of the correction it carries out (the detector's context). */
  readonly correction?: { readonly actingManagerId: string; readonly approverId: string } | null;
  /** A `DealerChanged`: its stream version and the version of its shoe's first `RoundOpened` (null: none). */
  readonly dealerChange?: { readonly streamVersion: number; readonly firstRoundVersion: number | null };
  /** A `ConfigurationAttested`: its data and the ledger's previous attestation (null: it is the first). */
  readonly configuration?: { readonly data: ConfigurationAttestedData; readonly previous: AttestationOf | null };
  /** The cause's table (what a `STATISTICS.OUT_OF_BOUNDS` is computed again for). */
  readonly tableId?: string;
  /** The significant-event settings attested in force at the cause (absent: none attested, the configuration's defaults). */
  readonly inForce?: SettingsInForce;
}

/** The settings in force at a cause: its own, else the defaults. */
const inForceOf = (cause: CauseRecord): SettingsInForce => cause.inForce ?? settingsInForce([], cause.globalPosition);

/** Two string records with the same keys and values. */
function sameDetails(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

/** What is wrong with a raise of a kind its cause raises by itself, detected again from the stored cause (empty when it is what the cause gives). */
function detectedAgainProblems(d: Record<string, any>, cause: CauseRecord): string[] {
  if (!cause.event) return [];
  const details: Record<string, string> = d.details ?? {};
  const found = detectAgain({ code: d.code, details, event: cause.event, ctx: { correction: cause.correction ?? null, shoeVoid: cause.shoeVoid }, inForce: thresholdsOf(inForceOf(cause).settings) });
  if (found === null) return [];
  if ('problem' in found) return [found.problem];
  const again = found.draft;
  const out: string[] = [];
  if (!sameDetails(details, again.details)) out.push(`its details ${JSON.stringify(details)} are not what its cause gives ${JSON.stringify(again.details)}`);
  if ((d.roundId ?? null) !== (again.roundId ?? null)) out.push(`its round ${String(d.roundId ?? null)} is not its cause's ${String(again.roundId ?? null)}`);
  const tableId = cause.event.tableId === LEDGER_WIDE_TABLE_ID ? null : cause.event.tableId;
  const shoeId = cause.streamId.startsWith('shoe-') ? cause.streamId.slice('shoe-'.length) : null;
  if ((d.tableId ?? null) !== tableId || (d.shoeId ?? null) !== shoeId) out.push(`its table/shoe ${String(d.tableId ?? null)}/${String(d.shoeId ?? null)} are not its cause's ${String(tableId)}/${String(shoeId)}`);
  if (cause.dealerId !== undefined && (d.dealerId ?? null) !== cause.dealerId) out.push(`its dealer ${String(d.dealerId ?? null)} is not the shoe's dealer at its cause, ${String(cause.dealerId)}`);
  return out;
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
  if (!d.cause || typeof d.cause !== 'object') return [...out, 'it names no cause'];
  const c = d.cause as SignificantEventCause;
  out.push(...causeProblems(d.code, c, String(d.actor)));
  const isEvent = c.kind === undefined || c.kind === 'event';
  if (isEvent && !cause) return [...out, `its cause ${String((c as { eventId?: unknown }).eventId ?? '')} is no event of the ledger`];
  // a kind one cause raises once per scope (the fairness alert) adds the scope's key to its cause's
  const scopeKey = d.code === FAIRNESS_ALERT_CODE ? String(d.details?.scopeKey ?? '') : undefined;
  const expected = scopeKey === undefined ? significantEventIdFor(d.code, c) : significantEventIdOfKey(`${causeKey(d.code, c)}|${scopeKey}`);
  if (e.eventId !== expected) out.push(`its id is not the one its cause and code give (${expected})`);
  return isEvent ? [...out, ...eventCauseProblems(d, c as SignificantEventEventCause, cause!)] : out;
}

/** The problems of a raise's event cause against the stored event it names. */
function eventCauseProblems(raise: Record<string, any>, c: SignificantEventEventCause, cause: CauseRecord): string[] {
  const code = raise.code as SignificantEventCode;
  const actor = String(raise.actor);
  const out: string[] = [];
  if (cause.type !== c.eventType || cause.streamId !== c.streamId || cause.globalPosition !== c.globalPosition)
    out.push(`its cause is named as ${c.eventType} at ${c.globalPosition}, stored as ${cause.type} at ${cause.globalPosition}`);
  // the monitor passes over a malformed event (data its type's schema refuses): it raises nothing
  if (cause.malformed) return [...out, `its cause ${cause.type} at ${cause.globalPosition} is malformed (data its type's schema refuses): it raises nothing`];
  if (cause.actorId !== actor) out.push(`its actor ${actor} is not its cause's ${cause.actorId}`);
  if (!causeMayRaise(code, cause.type as LedgerEventType, cause.actorRole)) out.push(`a ${cause.type} of a ${cause.actorRole} cannot raise ${code}`);
  else {
    const inForce = inForceOf(cause);
    if (inForce.problem) out.push(inForce.problem);
    if (!c.window) out.push(...detectedAgainProblems(raise, cause));
    // a device's skew: computed again from its first cause's clocks, against the bound in force
    else if (WINDOWED_EVENT_CODES.has(code) && cause.event) {
      out.push(...clockSkewProblems(raise.details ?? {}, cause.event, thresholdsOf(inForce.settings)));
      if (c.window.seconds !== inForce.settings.floodWindowSeconds) out.push(`its window of ${c.window.seconds} s is not the flood window in force at its cause (${inForce.settings.floodWindowSeconds} s)`);
    }
    out.push(...conditionProblems(code, raise.details, cause));
  }
  if (c.window) {
    const at = Date.parse(cause.recordedAt ?? '');
    const start = Date.parse(c.window.start);
    if (c.window.subject !== `${cause.actorRole}:${cause.actorId}`) out.push(`its window's subject ${c.window.subject} is not its cause's ${cause.actorRole}:${cause.actorId}`);
    if (!(at >= start && at < start + c.window.seconds * 1000)) out.push(`its cause was recorded at ${String(cause.recordedAt)}, outside its window from ${c.window.start}`);
  }
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
 * `SignificantEventRaised` names a code of the catalogue with its severity, has the id its cause's
 * stable key and code give, heads its own stream, was written by the ledger, names a cause of a kind
 * its code's `raisedBy` admits (`causeProblems`: the refusal's error code and reason, the
 * projector's record, the divergence, a minute's storm; a well-formed window), and, for an event
 * cause, a stored event that can raise that code (in its window, of its subject, when windowed), on
 * the condition the stored events say (`DEALER.CHANGED_MID_SHOE`: a round of its shoe opened before
 * the change; `CONFIG.*`: its part changed since the ledger's previous configuration attestation),
 * with the details, round, table, shoe and dealer its cause gives (the detector's kinds, detected
 * again); every `SignificantEventAcknowledged` follows its raise in the same stream and was written
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

/** A stored cause as the check reads it: the event's columns, the shoe's dealer at it, and for a resettlement its correction's decision. */
type CauseRow = StoredEventRow & {
  topic: string | null;
  dealer_id: string | null;
  correction: { actingManagerId?: string; approverId?: string } | null;
};

/** The stored causes of ids `ids` (UUIDs), by event id, with what {@link detectedAgainProblems} reads. */
async function causeRecords(session: SqlSession, ids: readonly string[]): Promise<Map<string, CauseRecord>> {
  const rows: CauseRow[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.type, e.stream_id, e.stream_version, e.global_position::text AS global_position, e.table_id, e.schema_version, e.actor_id, e.actor_role,
            e.occurred_at, e.recorded_at, e.data, (SELECT o.topic FROM outbox o WHERE o.global_position = e.global_position) AS topic,
            (SELECT d.data ->> 'dealerId' FROM events d WHERE d.stream_id = e.stream_id AND d.stream_version <= e.stream_version AND d.type IN ('ShoeOpened', 'DealerChanged')
              ORDER BY d.stream_version DESC LIMIT 1) AS dealer_id,
            (SELECT c.data -> 'decision' FROM events c WHERE e.type = 'BetResettled' AND c.stream_id = e.stream_id AND c.stream_version < e.stream_version
                AND c.type = 'ResultCorrected' AND c.data ->> 'roundId' = e.data ->> 'roundId' ORDER BY c.stream_version DESC LIMIT 1) AS correction
       FROM events e WHERE e.event_id = ANY($1::uuid[])`,
    [ids],
  );
  const causes = new Map<string, CauseRecord>(
    rows.map((c) => {
      // a type this code cannot read is left to the other checks (its fields above are still compared)
      const event = storedEventOf(c);
      const correction = c.correction?.actingManagerId && c.correction.approverId ? { actingManagerId: c.correction.actingManagerId, approverId: c.correction.approverId } : null;
      return [
        c.event_id,
        {
          type: c.type,
          streamId: c.stream_id,
          globalPosition: c.global_position,
          actorId: c.actor_id,
          actorRole: c.actor_role,
          tableId: c.table_id,
          recordedAt: new Date(c.recorded_at).toISOString(),
          event,
          malformed: event === undefined,
          dealerId: c.dealer_id,
          correction,
        },
      ];
    }),
  );
  await addConditions(session, rows, causes);
  const shoeVoids = await partOfShoeVoid(
    session,
    rows.filter((r) => r.type === 'RoundVoided').map((r) => r.event_id),
  );
  for (const r of rows.filter((x) => x.type === 'RoundVoided')) causes.set(r.event_id, { ...causes.get(r.event_id)!, shoeVoid: shoeVoids.has(r.event_id) });
  const attested = await attestedSettings(session);
  const topics = new Map(rows.map((r) => [r.event_id, topicOrNull(r.topic)]));
  for (const [id, c] of causes) causes.set(id, { ...c, inForce: settingsInForce(attested, c.globalPosition, topics.get(id) ?? null) });
  return causes;
}

/**
 * Adds to each cause whose raises have a condition in the stored events what the check needs: a
 * `DealerChanged`'s version and its shoe's first `RoundOpened`; a `ConfigurationAttested`'s data and
 * the ledger's previous attestation (the last one below it in global order).
 */
async function addConditions(session: SqlSession, rows: readonly CauseRow[], causes: Map<string, CauseRecord>): Promise<void> {
  const dealerChanges = rows.filter((r) => r.type === 'DealerChanged');
  if (dealerChanges.length > 0) {
    const first = await firstRoundVersions(
      session,
      dealerChanges.map((r) => r.stream_id),
    );
    for (const r of dealerChanges) causes.set(r.event_id, { ...causes.get(r.event_id)!, dealerChange: { streamVersion: r.stream_version, firstRoundVersion: first.get(r.stream_id) ?? null } });
  }
  if (!rows.some((r) => r.type === 'ConfigurationAttested')) return;
  const attestations = await ledgerAttestations(session);
  for (const r of rows.filter((x) => x.type === 'ConfigurationAttested'))
    causes.set(r.event_id, { ...causes.get(r.event_id)!, configuration: { data: r.data as ConfigurationAttestedData, previous: attestationBefore(attestations, r.global_position) } });
}

/**
 * Step 7 of `verifyLedger` (`npm run -s verify`, `GET /audit/anchors/verify`): reads every significant
 * event of the ledger and the causes their raises name, in the session's snapshot, and reports each
 * problem of {@link significantEventProblems} as `SIGNIFICANT_EVENT_NOT_GENUINE` (source
 * `significant-events`); for every `STATISTICS.OUT_OF_BOUNDS`, the look at its cause (a shoe's close)
 * is computed again from the stored events ({@link outOfBoundsProblems}): a raise whose scope passes
 * its tests, or whose details are not what the events give, is reported the same way. Every event
 * of a significant event's stream that is not its raise at version 1 or its acknowledgement at
 * version 2 is reported as `SIGNIFICANT_STREAM_FOREIGN_EVENT` ({@link checkSignificantStreams}).
 * Their hash chain, anchoring and Kafka copy are checked with every other stream's (steps 2 and 3).
 * @returns how many significant events it checked
 */
export async function checkSignificantEvents(session: SqlSession, out: DivergenceList): Promise<number> {
  await checkSignificantStreams(session, out);
  const rows: { event_id: string; type: string; stream_id: string; stream_version: number; global_position: string; actor_id: string; actor_role: string; data: Record<string, any> }[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.type, e.stream_id, e.stream_version, e.global_position::text AS global_position, e.actor_id, e.actor_role, e.data
       FROM events e WHERE e.type IN ('SignificantEventRaised', 'SignificantEventAcknowledged') ORDER BY e.stream_id, e.stream_version`,
  );
  if (rows.length === 0) return 0;
  const causeIds = [...new Set(rows.filter((r) => r.type === 'SignificantEventRaised').map((r) => String(r.data.cause?.eventId ?? '')))].filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  const causes = await causeRecords(session, causeIds);
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
    // a day whose events cannot be folded (a malformed one stored) is this raise's problem, not verify's end
    const reasons = await outOfBoundsProblems(session, e, { ...cause, tableId: cause.tableId ?? '', recordedAt: cause.recordedAt ?? '' }, looks, inForceOf(cause)).catch((err: unknown) => [
      `the look at its cause cannot be computed again from the stored day: ${String((err as Error)?.message ?? err).slice(0, 200)}`,
    ]);
    for (const reason of reasons) report(e, reason);
  }
  return rows.length;
}

/**
 * Part of step 7 (docs/significant-events.md, "What the database refuses"): each event of a stream
 * `significant-<id>` other than a `SignificantEventRaised` at version 1 and a
 * `SignificantEventAcknowledged` at version 2 — an event that took a raise's place (the raise then
 * never happened) or an acknowledgement's (the raise counted acknowledged), written before
 * `ledger_append` refused them (migration 1799900000000) — reported as
 * `SIGNIFICANT_STREAM_FOREIGN_EVENT` (source `significant-events`). Reads the streams table (one row
 * per stream) and each significant stream's events through its own index, not the whole ledger.
 */
export async function checkSignificantStreams(session: SqlSession, out: DivergenceList): Promise<void> {
  const rows: { event_id: string; type: string; stream_id: string; stream_version: number; global_position: string; actor_id: string; actor_role: string }[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.type, e.stream_id, e.stream_version, e.global_position::text AS global_position, e.actor_id, e.actor_role
       FROM streams s JOIN events e ON e.stream_id = s.stream_id
      WHERE s.stream_id LIKE $1
        AND NOT ((e.stream_version = 1 AND e.type = 'SignificantEventRaised') OR (e.stream_version = 2 AND e.type = 'SignificantEventAcknowledged'))
      ORDER BY e.stream_id, e.stream_version`,
    [`${SIGNIFICANT_STREAM_PREFIX}%`],
  );
  for (const r of rows) {
    const place =
      r.stream_version === 1
        ? "its raise's place (version 1): the raise cannot be recorded"
        : r.stream_version === 2
          ? "its acknowledgement's place (version 2): the raise reads as acknowledged"
          : 'beyond its acknowledgement (version 2)';
    out.add({
      source: 'significant-events',
      kind: 'SIGNIFICANT_STREAM_FOREIGN_EVENT',
      streamId: r.stream_id,
      version: r.stream_version,
      eventId: r.event_id,
      globalPosition: r.global_position,
      reason: `${r.type} by ${r.actor_role} ${r.actor_id} in a significant event's stream, in ${place}; only its SignificantEventRaised at version 1 and its SignificantEventAcknowledged at version 2 belong there`,
    });
  }
}
