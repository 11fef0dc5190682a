import { significantStreamId, type AttestedSignificant, type LedgerEvent } from '@ledger/events';
import type { GamingDayConfig } from '@ledger/projections';
import { configurationDrafts, dealerChangeDraft, detectSignificantEvents, FAIRNESS_ALERT_CODE, thresholdsOf, WINDOWED_EVENT_CODES, windowStartOf, type AttestationOf, type SignificantEventCode } from '@ledger/significant-events';
import { parseConfidence } from './fairness-of-events';
import { lookFromEvents, outOfBoundsDrafts } from './fairness-raise';
import type { DivergenceList } from './report';
import { significantEventIdOf } from './significant-check';
import { attestedSettings, settingsInForce, topicOrNull, type AttestedSettingsRow } from './significant-settings';
import { attestationBefore, firstRoundVersions, ledgerAttestations, storedEventOf, type StoredEventRow } from './significant-stored';
import type { SqlSession } from './sql';

/**
 * A stretch of the ledger, in global positions, in which the settings attested in force say the
 * significant-event monitor ran (`significant.monitor` true): from an attestation's position
 * (inclusive) to the ledger's next attestation stating settings (exclusive), or to the end.
 */
export interface MonitoredSpan {
  /** Decimal string: the attestation's global position. */
  readonly from: string;
  /** Decimal string: the next attestation's (exclusive), or null: to the end of the ledger. */
  readonly to: string | null;
  /** The ledger's topic (null: the database's only ledger), as {@link AttestedSettingsRow.topic}. */
  readonly topic: string | null;
  /** The `ConfigurationAttested` stating the settings. */
  readonly attestation: string;
  /** The settings in force in the span (the configuration's defaults for settings it would refuse). */
  readonly settings: AttestedSignificant;
  /**
   * The attestation at `to` says the monitor is off: it is owed its `CONFIG.*` raises under this
   * span's settings (the monitor that ran until it, or the next of its group, raises them), so an
   * attestation that switches the check off is itself looked for.
   */
  readonly owesItsEnd: boolean;
}

/**
 * The spans of the ledger in which the attested settings say the monitor ran (docs/significant-events.md,
 * "What verify checks", completeness): one per attestation with `significant` whose settings in force
 * ({@link settingsInForce}) state `monitor` true, up to the same ledger's next such attestation. Before
 * the first attestation stating settings nothing says a monitor ran: no span. Pure.
 * @param attested every attestation stating settings, in global order ({@link attestedSettings})
 */
export function monitoredSpans(attested: readonly AttestedSettingsRow[]): MonitoredSpan[] {
  const out: MonitoredSpan[] = [];
  attested.forEach((a, i) => {
    const inForce = settingsInForce([a], a.globalPosition, a.topic);
    if (!inForce.settings.monitor) return;
    const next = attested.slice(i + 1).find((b) => b.topic === a.topic);
    const owesItsEnd = next !== undefined && !settingsInForce([next], next.globalPosition, next.topic).settings.monitor;
    out.push({ from: a.globalPosition, to: next?.globalPosition ?? null, topic: a.topic, attestation: a.eventId, settings: inForce.settings, owesItsEnd });
  });
  return out;
}

/**
 * A raise the ledger must hold for a cause: the one of `code` with the id its cause gives
 * (`significantEventIdOf`), or, for a device's skewed fact (flood-bounded), a raise of `code` for the
 * device's window of the flood window in force (`subject` `table-device:<id>`, `start` aligned to the epoch).
 */
export type ExpectedRaise =
  { readonly kind: 'id'; readonly code: SignificantEventCode; readonly significantEventId: string } | { readonly kind: 'window'; readonly code: SignificantEventCode; readonly subject: string; readonly start: string };

/** What some causes are decided by beside themselves: a dealer change's shoe's first `RoundOpened` (version, null: none), a configuration attestation's previous one (null: the first). */
export interface CauseContext {
  readonly firstRoundVersion?: number | null;
  readonly previous?: AttestationOf | null;
}

/**
 * The raises the monitor owes a stored cause `e` under the settings in force at it (the monitor's own
 * decision, `significant-monitor.ts`): the detector's kinds (`detectSignificantEvents` with the
 * attested thresholds), a dealer change mid-shoe, the `CONFIG.*` kinds of what an attestation changed,
 * and a device's clock skew as its window's. A `ShoeClosed`'s fairness alerts need the stored day
 * ({@link checkSignificantCompleteness}). Pure.
 */
export function expectedRaises(e: LedgerEvent, settings: AttestedSignificant, ctx: CauseContext = {}): ExpectedRaise[] {
  const drafts = [...detectSignificantEvents(e, thresholdsOf(settings))];
  if (e.type === 'DealerChanged') drafts.push(...[dealerChangeDraft(e, ctx.firstRoundVersion ?? null)].filter((d) => d !== null));
  if (e.type === 'ConfigurationAttested') drafts.push(...configurationDrafts(ctx.previous ?? null, e.data));
  return drafts.map((d) =>
    WINDOWED_EVENT_CODES.has(d.code)
      ? { kind: 'window', code: d.code, subject: `${e.actor.role}:${e.actor.id}`, start: windowStartOf(Date.parse(e.recordedAt), settings.floodWindowSeconds) }
      : { kind: 'id', code: d.code, significantEventId: significantEventIdOf(e.eventId, d.code) },
  );
}

/** What {@link checkSignificantCompleteness} counted (the report's `significantCauses`). */
export interface CompletenessTally {
  /** Raises owed by causes older than the grace period in a monitored span, each looked for. */
  readonly checked: number;
  /** Causes in a monitored span younger than the grace period (the monitor may not have raised them yet): not checked. */
  readonly pending: number;
  /** Decimal string: where the first monitored span starts, or null: no attestation says a monitor ran (completeness not checked). */
  readonly monitoredFrom: string | null;
}

/** The types whose every event the monitor looks at (the others: a large win, a device's skew, filtered in SQL). */
const CAUSE_TYPES = ['RoundVoided', 'ResultCorrected', 'ShoeVoided', 'CommencementCorrected', 'GamingDayClosed', 'CardExposed', 'CardDropped', 'UnneededCardDrawn', 'DealerChanged', 'ConfigurationAttested', 'ShoeClosed'];

/** A candidate cause as read: the stored event and its outbox topic. */
type CandidateRow = StoredEventRow & { readonly topic: string | null };

/**
 * The stored events of `span` that may owe a raise (and the attestation ending it when it owes it):
 * every event of a type the monitor looks at,
 * a win reaching either attested threshold (exact: `numeric`, a malformed amount is no candidate), and
 * a table device's fact whose `recordedAt − occurredAt` is beyond the attested bound either way.
 */
async function candidates(session: SqlSession, span: MonitoredSpan): Promise<CandidateRow[]> {
  const t = thresholdsOf(span.settings);
  const rows: CandidateRow[] = await session.query(
    `SELECT e.event_id::text AS event_id, e.type, e.stream_id, e.stream_version, e.global_position::text AS global_position, e.table_id, e.schema_version,
            e.actor_id, e.actor_role, e.occurred_at, e.recorded_at, e.data, o.topic
       FROM events e LEFT JOIN outbox o ON o.global_position = e.global_position
      WHERE e.global_position >= $1::bigint
        AND ($2::bigint IS NULL OR e.global_position < $2::bigint OR ($8::boolean AND e.global_position = $2::bigint AND e.type = 'ConfigurationAttested'))
        AND (e.type = ANY($3::text[])
          OR (e.type IN ('BetSettled', 'BetResettled') AND e.data ->> 'result' = 'WIN' AND CASE
                WHEN e.data ->> 'winnings' ~ '^[0-9]{1,30}$' AND e.data ->> 'stake' ~ '^[0-9]{1,30}$'
                THEN (e.data ->> 'winnings')::numeric >= $4::numeric OR (e.data ->> 'winnings')::numeric * $6::numeric >= $5::numeric * (e.data ->> 'stake')::numeric
                ELSE false END)
          OR (e.actor_role = 'table-device' AND abs(extract(epoch FROM e.recorded_at - e.occurred_at) * 1000) > $7::numeric))
      ORDER BY e.global_position`,
    [span.from, span.to, CAUSE_TYPES, t.winAmountMinor.toString(), t.winMultiple.numerator.toString(), t.winMultiple.denominator.toString(), t.clockSkewBoundMs, span.owesItsEnd],
  );
  return rows.filter((r) => topicOrNull(r.topic) === span.topic);
}

/** The raises a `ShoeClosed` owes: one `STATISTICS.OUT_OF_BOUNDS` per failing scope of the look at it, from the stored day (as the monitor's `FairnessAlerts`). */
async function fairnessRaises(session: SqlSession, e: LedgerEvent, c: { readonly span: MonitoredSpan; readonly dayRule: GamingDayConfig }): Promise<ExpectedRaise[]> {
  const confidence = parseConfidence(c.span.settings.fairnessConfidence);
  const { day, look } = await lookFromEvents(session, e, { dayRule: c.dayRule, confidence, topic: c.span.topic });
  if (!look) return [];
  return outOfBoundsDrafts(look, { day, dayRule: c.dayRule, confidence }).map((d) => ({ kind: 'id', code: FAIRNESS_ALERT_CODE, significantEventId: significantEventIdOf(e.eventId, d.code, d.scopeKey) }));
}

/** The significant events raised, by id (version 1 of their stream), and the device windows raised (`subject|start`). */
async function raisedOf(session: SqlSession, ids: readonly string[]): Promise<{ ids: Set<string>; windows: Set<string> }> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 5000) {
    const rows: { id: string }[] = await session.query(`SELECT e.data ->> 'significantEventId' AS id FROM events e WHERE e.stream_id = ANY($1::text[]) AND e.stream_version = 1 AND e.type = 'SignificantEventRaised'`, [
      ids.slice(i, i + 5000).map(significantStreamId),
    ]);
    for (const r of rows) found.add(r.id);
  }
  const windows: { subject: string; start: string }[] = await session.query(
    `SELECT e.data -> 'cause' -> 'window' ->> 'subject' AS subject, e.data -> 'cause' -> 'window' ->> 'start' AS start
       FROM events e WHERE e.type = 'SignificantEventRaised' AND e.data ->> 'code' = ANY($1::text[])`,
    [[...WINDOWED_EVENT_CODES]],
  );
  return { ids: found, windows: new Set(windows.map((w) => `${w.subject}|${w.start}`)) };
}

/** One cause and what it owes. */
interface Owed {
  readonly row: CandidateRow;
  readonly span: MonitoredSpan;
  readonly raises: readonly ExpectedRaise[];
}

/**
 * Part of step 7 of `verifyLedger` (docs/significant-events.md, "What verify checks", completeness):
 * for every stored cause in a span where the attested settings say the monitor ran
 * ({@link monitoredSpans}), recorded before `now − graceMs` (the monitor's lag), the raises the monitor
 * owes it under the settings in force ({@link expectedRaises}; with `dayRule`, a shoe's close's
 * fairness alerts too) must be in the ledger: a raise of the id its cause and code give, or for a
 * device's skew a raise of its window. Each one missing is reported as `SIGNIFICANT_EVENT_MISSING`
 * (source `significant-events`, at its cause): a raise suppressed, lost or never made.
 * @returns the tally ({@link CompletenessTally})
 */
export async function checkSignificantCompleteness(session: SqlSession, out: DivergenceList, o: { readonly now: Date; readonly graceMs: number; readonly dayRule?: GamingDayConfig | null }): Promise<CompletenessTally> {
  const spans = monitoredSpans(await attestedSettings(session));
  if (spans.length === 0) return { checked: 0, pending: 0, monitoredFrom: null };
  const cutoff = o.now.getTime() - o.graceMs;
  let pending = 0;
  const owed: Owed[] = [];
  const attestations = await ledgerAttestations(session);
  for (const span of spans) {
    const rows = (await candidates(session, span)).filter((r) => (new Date(r.recorded_at).getTime() <= cutoff ? true : (pending++, false)));
    const firsts = await firstRoundVersions(
      session,
      rows.filter((r) => r.type === 'DealerChanged').map((r) => r.stream_id),
    );
    for (const row of rows) {
      const e = storedEventOf(row);
      if (!e) continue; // a malformed event raises nothing (the projector quarantines it)
      const raises =
        e.type === 'ShoeClosed'
          ? o.dayRule
            ? await fairnessRaises(session, e, { span, dayRule: o.dayRule })
            : []
          : expectedRaises(e, span.settings, { firstRoundVersion: firsts.get(row.stream_id) ?? null, previous: attestationBefore(attestations, row.global_position) });
      if (raises.length > 0) owed.push({ row, span, raises });
    }
  }
  const raised = await raisedOf(
    session,
    owed.flatMap((x) => x.raises.flatMap((r) => (r.kind === 'id' ? [r.significantEventId] : []))),
  );
  let checked = 0;
  for (const { row, span, raises } of owed) {
    for (const r of raises) {
      checked++;
      if (r.kind === 'id' ? raised.ids.has(r.significantEventId) : raised.windows.has(`${r.subject}|${r.start}`)) continue;
      const what = r.kind === 'id' ? `${r.code} (significant-${r.significantEventId})` : `${r.code} for ${r.subject}'s window from ${r.start}`;
      out.add({
        source: 'significant-events',
        kind: 'SIGNIFICANT_EVENT_MISSING',
        streamId: row.stream_id,
        version: row.stream_version,
        eventId: row.event_id,
        globalPosition: row.global_position,
        reason: `${row.type} raises ${what} under the settings attested in force at it (ConfigurationAttested ${span.attestation}: monitor on), but the ledger holds no such raise; recorded ${new Date(row.recorded_at).toISOString()}, beyond the grace period`,
      });
    }
  }
  return { checked, pending, monitoredFrom: spans[0].from };
}
