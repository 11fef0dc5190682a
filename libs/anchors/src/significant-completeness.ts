import { SIGNIFICANT_STREAM_PREFIX, significantStreamId, type AttestedSignificant, type LedgerEvent } from '@ledger/events';
import { gamingDay, type GamingDayConfig } from '@ledger/projections';
import {
  configurationDrafts,
  dealerChangeDraft,
  detectSignificantEvents,
  FAIRNESS_ALERT_CODE,
  thresholdsOf,
  WINDOWED_EVENT_CODES,
  windowStartOf,
  type AttestationOf,
  type SignificantEventCode,
  type SignificantEventDraft,
} from '@ledger/significant-events';
import { dayWindow, foldDay, lookAtShoeClose, parseConfidence, readDayEvents } from './fairness-of-events';
import { outOfBoundsDrafts } from './fairness-raise';
import type { CompletenessTally, DivergenceList, UnmonitoredRange } from './report';
import { significantEventIdOf } from './significant-check';
import { attestedSettings, settingsInForce, topicOrNull, type AttestedSettingsRow } from './significant-settings';
import { attestationBefore, firstRoundVersions, ledgerAttestations, partOfShoeVoid, storedEventOf, type StoredEventRow } from './significant-stored';
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
  /** The attestation's outbox row is gone: its ledger unknown, the span takes the causes of every ledger no attestation of a known topic covers. */
  readonly pruned: boolean;
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
 * The attestation after `attested[i]` that ends its span: the next of its ledger (topic), or, when its
 * outbox row was pruned (its ledger unknown; the outbox prunes oldest first, so in the one ledger of a
 * production database), the next of any.
 */
function nextOf(attested: readonly AttestedSettingsRow[], i: number): AttestedSettingsRow | undefined {
  const a = attested[i];
  return attested.slice(i + 1).find((b) => a.pruned === true || b.topic === a.topic);
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
    const next = nextOf(attested, i);
    const owesItsEnd = next !== undefined && !settingsInForce([next], next.globalPosition, next.topic).settings.monitor;
    out.push({ from: a.globalPosition, to: next?.globalPosition ?? null, topic: a.topic, pruned: a.pruned === true, attestation: a.eventId, settings: inForce.settings, owesItsEnd });
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

/** What some causes are decided by beside themselves: a dealer change's shoe's first `RoundOpened` (version, null: none), a configuration attestation's previous one (null: the first), a void's shoe void. */
export interface CauseContext {
  readonly firstRoundVersion?: number | null;
  readonly previous?: AttestationOf | null;
  /** A `RoundVoided` of cause `SHOE_VOIDED`: part of a shoe void of its stream (`partOfShoeVoid`); false: it owes `ROUND.VOIDED`. */
  readonly shoeVoid?: boolean;
}

/**
 * The raises the monitor owes a stored cause `e` under the settings in force at it (the monitor's own
 * decision, `significant-monitor.ts`): the detector's kinds (`detectSignificantEvents` with the
 * attested thresholds), a dealer change mid-shoe, the `CONFIG.*` kinds of what an attestation changed,
 * and a device's clock skew as its window's. A `ShoeClosed`'s fairness alerts need the stored day
 * ({@link checkSignificantCompleteness}). Pure.
 */
export function expectedRaises(e: LedgerEvent, settings: AttestedSignificant, ctx: CauseContext = {}): ExpectedRaise[] {
  const drafts = [...detectSignificantEvents(e, thresholdsOf(settings), { shoeVoid: ctx.shoeVoid })];
  if (e.type === 'DealerChanged') drafts.push(...[dealerChangeDraft(e, ctx.firstRoundVersion ?? null)].filter((d) => d !== null));
  if (e.type === 'ConfigurationAttested') drafts.push(...configurationDrafts(ctx.previous ?? null, e.data));
  return drafts.map((d) =>
    WINDOWED_EVENT_CODES.has(d.code)
      ? { kind: 'window', code: d.code, subject: `${e.actor.role}:${e.actor.id}`, start: windowStartOf(Date.parse(e.recordedAt), settings.floodWindowSeconds) }
      : { kind: 'id', code: d.code, significantEventId: significantEventIdOf(e.eventId, d.code) },
  );
}

/** Most unmonitored ranges listed. */
export const MAX_RANGES = 100;

/** The types whose every event the monitor looks at (the others: a large win, a device's skew, filtered in SQL). */
const CAUSE_TYPES = ['RoundVoided', 'ResultCorrected', 'ShoeVoided', 'CommencementCorrected', 'GamingDayClosed', 'CardExposed', 'CardDropped', 'UnneededCardDrawn', 'DealerChanged', 'ConfigurationAttested', 'ShoeClosed'];

/** A candidate cause as read: the stored event and its outbox topic. */
type CandidateRow = StoredEventRow & { readonly topic: string | null };

/**
 * The stored events of `span`'s positions that may owe a raise (and the attestation ending it when it
 * owes it), of every ledger: every event of a type the monitor looks at, a win reaching either
 * attested threshold (exact: `numeric`; an amount that is not a decimal string is a candidate too,
 * found malformed after), and a table device's fact whose `recordedAt − occurredAt` is beyond the
 * attested bound either way.
 */
async function candidates(session: SqlSession, span: MonitoredSpan): Promise<CandidateRow[]> {
  const t = thresholdsOf(span.settings);
  return session.query(
    `SELECT e.event_id::text AS event_id, e.type, e.stream_id, e.stream_version, e.global_position::text AS global_position, e.table_id, e.schema_version,
            e.actor_id, e.actor_role, e.occurred_at, e.recorded_at, e.data, o.topic
       FROM events e LEFT JOIN outbox o ON o.global_position = e.global_position
      WHERE e.global_position >= $1::bigint
        AND ($2::bigint IS NULL OR e.global_position < $2::bigint OR ($8::boolean AND e.global_position = $2::bigint AND e.type = 'ConfigurationAttested'))
        AND (e.type = ANY($3::text[])
          OR (e.type IN ('BetSettled', 'BetResettled') AND e.data ->> 'result' = 'WIN' AND CASE
                WHEN e.data ->> 'winnings' ~ '^[0-9]{1,30}$' AND e.data ->> 'stake' ~ '^[0-9]{1,30}$'
                THEN (e.data ->> 'winnings')::numeric >= $4::numeric OR (e.data ->> 'winnings')::numeric * $6::numeric >= $5::numeric * (e.data ->> 'stake')::numeric
                ELSE true END)
          OR (e.actor_role = 'table-device' AND abs(extract(epoch FROM e.recorded_at - e.occurred_at) * 1000) > $7::numeric))
      ORDER BY e.global_position`,
    [span.from, span.to, CAUSE_TYPES, t.winAmountMinor.toString(), t.winMultiple.numerator.toString(), t.winMultiple.denominator.toString(), t.clockSkewBoundMs, span.owesItsEnd],
  );
}

/** A shoe's close owed its fairness alerts, with what its look needs. */
interface CloseOwed {
  readonly e: LedgerEvent;
  readonly span: MonitoredSpan;
}

/**
 * The fairness alerts the closes owe (as the monitor's `FairnessAlerts`: one `STATISTICS.OUT_OF_BOUNDS`
 * per failing scope of the look at each close, from the stored day, with the attested confidence),
 * by close event id. Each table-day of a ledger is read once, up to its last close, and each close
 * looks at the events at or below it (of the shoes that opened a round in the day by then): the same
 * events `readDayEvents` reads at that close. Null for a close whose day cannot be folded (a malformed
 * event stored in it: the monitor raises nothing for it).
 */
async function fairnessRaises(session: SqlSession, closes: readonly CloseOwed[], dayRule: GamingDayConfig): Promise<Map<string, ExpectedRaise[] | null>> {
  const groups = new Map<string, { day: string; tableId: string; topic: string | null; closes: CloseOwed[] }>();
  for (const c of closes) {
    const day = gamingDay(c.e.recordedAt, dayRule);
    const key = `${c.e.tableId}|${day}|${c.span.topic ?? ''}`;
    const g = groups.get(key) ?? { day, tableId: c.e.tableId, topic: c.span.topic, closes: [] };
    g.closes.push(c);
    groups.set(key, g);
  }
  const out = new Map<string, ExpectedRaise[] | null>();
  for (const g of groups.values()) {
    const through = g.closes.reduce((m, c) => (BigInt(c.e.globalPosition) > m ? BigInt(c.e.globalPosition) : m), 0n);
    const rows = await readDayEvents(session, { tableId: g.tableId, ...dayWindow(g.day, dayRule), throughPosition: through, topic: g.topic });
    // a stream is read at a close once it opened a round in the day at or below it
    const firstRound = new Map<string, bigint>();
    for (const r of rows) if (r.type === 'RoundOpened' && r.inDay && !firstRound.has(r.streamId)) firstRound.set(r.streamId, r.globalPosition!);
    for (const { e, span } of g.closes) {
      const at = BigInt(e.globalPosition);
      const confidence = parseConfidence(span.settings.fairnessConfidence);
      let drafts: SignificantEventDraft[] | null;
      try {
        const look = lookAtShoeClose(foldDay(rows.filter((r) => r.globalPosition! <= at && (firstRound.get(r.streamId) ?? at + 1n) <= at)), { tableId: g.tableId, shoeId: e.streamId.slice('shoe-'.length), confidence });
        drafts = look ? outOfBoundsDrafts(look, { day: g.day, dayRule, confidence }) : [];
      } catch {
        drafts = null; // a day the monitor cannot fold either (a malformed event stored in it): it raises nothing
      }
      out.set(e.eventId, drafts?.map((d) => ({ kind: 'id', code: FAIRNESS_ALERT_CODE, significantEventId: significantEventIdOf(e.eventId, d.code, d.scopeKey) })) ?? null);
    }
  }
  return out;
}

/** The significant events raised, by id (version 1 of their stream, naming that stream's id), and the device windows raised (`subject|start`, by raises heading a significant stream). */
async function raisedOf(session: SqlSession, ids: readonly string[]): Promise<{ ids: Set<string>; windows: Set<string> }> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 5000) {
    const rows: { id: string; stream_id: string }[] = await session.query(
      `SELECT e.data ->> 'significantEventId' AS id, e.stream_id FROM events e WHERE e.stream_id = ANY($1::text[]) AND e.stream_version = 1 AND e.type = 'SignificantEventRaised'`,
      [ids.slice(i, i + 5000).map(significantStreamId)],
    );
    // a raise counts for the id of its own stream only (one claiming another id in its data covers neither)
    for (const r of rows) if (r.stream_id === significantStreamId(String(r.id))) found.add(r.id);
  }
  const windows: { subject: string; start: string }[] = await session.query(
    `SELECT e.data -> 'cause' -> 'window' ->> 'subject' AS subject, e.data -> 'cause' -> 'window' ->> 'start' AS start
       FROM events e WHERE e.type = 'SignificantEventRaised' AND e.data ->> 'code' = ANY($1::text[]) AND e.stream_version = 1 AND starts_with(e.stream_id, $2)`,
    [[...WINDOWED_EVENT_CODES], SIGNIFICANT_STREAM_PREFIX],
  );
  return { ids: found, windows: new Set(windows.map((w) => `${w.subject}|${w.start}`)) };
}

/** One cause and what it owes. */
interface Owed {
  readonly row: CandidateRow;
  readonly span: MonitoredSpan;
  raises: readonly ExpectedRaise[];
}

/** The causes of the monitored spans, what each owes, and the counts of those not looked at. */
async function owedBy(
  session: SqlSession,
  attested: readonly AttestedSettingsRow[],
  spans: readonly MonitoredSpan[],
  o: CompletenessOptions,
): Promise<{ owed: Owed[]; pending: number; malformed: number; unattested: Set<string> }> {
  const attestedTopics = new Set(spans.filter((s) => !s.pruned).map((s) => s.topic));
  // a ledger (topic) an attestation with its outbox row still there covers at a position
  const knownAt = (topic: string | null, position: string) => attested.some((a) => !a.pruned && a.topic === topic && BigInt(a.globalPosition) <= BigInt(position));
  const attestations = await ledgerAttestations(session);
  const [earliest, latest] = [o.now.getTime() - o.graceMs, o.now.getTime() + o.graceMs];
  const out = { owed: [] as Owed[], pending: 0, malformed: 0, unattested: new Set<string>() };
  const closes: CloseOwed[] = [];
  for (const span of spans) {
    const rows = (await candidates(session, span)).filter((r) => {
      const topic = topicOrNull(r.topic);
      if (span.pruned ? !knownAt(topic, r.global_position) : topic === span.topic) return true;
      if (!attestedTopics.has(topic)) out.unattested.add(r.event_id);
      return false;
    });
    const firsts = await firstRoundVersions(
      session,
      rows.filter((r) => r.type === 'DealerChanged').map((r) => r.stream_id),
    );
    const shoeVoids = await partOfShoeVoid(
      session,
      rows.filter((r) => r.type === 'RoundVoided' && r.data?.cause === 'SHOE_VOIDED').map((r) => r.event_id),
    );
    for (const row of rows) {
      // recorded within the grace period of now, either way (a device's or a forger's clock ahead): not yet
      const at = new Date(row.recorded_at).getTime();
      if (at > earliest && at <= latest) {
        out.pending++;
        continue;
      }
      const e = storedEventOf(row);
      if (!e) {
        out.malformed++;
        continue;
      }
      if (e.type === 'ShoeClosed') {
        if (o.dayRule) closes.push({ e, span });
        out.owed.push({ row, span, raises: [] });
        continue;
      }
      const ctx = { firstRoundVersion: firsts.get(row.stream_id) ?? null, previous: attestationBefore(attestations, row.global_position), shoeVoid: shoeVoids.has(row.event_id) };
      const raises = expectedRaises(e, span.settings, ctx);
      if (raises.length > 0) out.owed.push({ row, span, raises });
    }
  }
  if (o.dayRule && closes.length > 0) {
    const fair = await fairnessRaises(session, closes, o.dayRule);
    for (const x of out.owed) {
      if (x.row.type !== 'ShoeClosed') continue;
      const raises = fair.get(x.row.event_id);
      if (raises === null) out.malformed++;
      x.raises = raises ?? [];
    }
  }
  return out;
}

/** What {@link checkSignificantCompleteness} is told. */
export interface CompletenessOptions {
  /** Verify's clock. */
  readonly now: Date;
  /** The grace period, ms: a cause recorded within it of `now` is pending. */
  readonly graceMs: number;
  /** The gaming-day rule (`GAMING_DAY_TZ`, `GAMING_DAY_CUTOFF_HOUR`): a shoe's close owes its fairness alerts; null: not looked for. */
  readonly dayRule?: GamingDayConfig | null;
}

/** The ranges after the first monitored span where an attestation said the monitor was off. */
function unmonitoredRanges(attested: readonly AttestedSettingsRow[], monitoredFrom: bigint): UnmonitoredRange[] {
  const out: UnmonitoredRange[] = [];
  attested.forEach((a, i) => {
    if (BigInt(a.globalPosition) < monitoredFrom || settingsInForce([a], a.globalPosition, a.topic).settings.monitor) return;
    const next = nextOf(attested, i);
    out.push({ from: a.globalPosition, to: next?.globalPosition ?? null, topic: a.topic });
  });
  return out.slice(0, MAX_RANGES);
}

/**
 * Part of step 7 of `verifyLedger` (docs/significant-events.md, "What verify checks", completeness):
 * for every stored cause in a span where the attested settings say the monitor ran
 * ({@link monitoredSpans}; with the attestation ending one that says the monitor is off), recorded
 * more than `graceMs` from `now` (the monitor's lag), the raises the monitor owes it under the
 * settings in force ({@link expectedRaises}; with `dayRule`, a shoe's close's fairness alerts too)
 * must be in the ledger: a raise heading the stream of the id its cause and code give, or for a
 * device's skew a raise of its window. Each one missing is reported as `SIGNIFICANT_EVENT_MISSING`
 * (source `significant-events`, at its cause): a raise suppressed, lost or never made. A malformed
 * cause (data its schema refuses) raises nothing and is counted, as are the causes of a ledger no
 * attestation covers.
 * @returns the tally ({@link CompletenessTally})
 */
export async function checkSignificantCompleteness(session: SqlSession, out: DivergenceList, o: CompletenessOptions): Promise<CompletenessTally> {
  const attested = await attestedSettings(session);
  const spans = monitoredSpans(attested);
  const fairness = Boolean(o.dayRule);
  if (spans.length === 0) return { checked: 0, pending: 0, monitoredFrom: null, unmonitored: [], malformed: 0, unattestedLedger: 0, fairness };
  const found = await owedBy(session, attested, spans, o);
  const raised = await raisedOf(
    session,
    found.owed.flatMap((x) => x.raises.flatMap((r) => (r.kind === 'id' ? [r.significantEventId] : []))),
  );
  let checked = 0;
  for (const { row, span, raises } of found.owed) {
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
  const monitoredFrom = spans.reduce((m, s) => (BigInt(s.from) < m ? BigInt(s.from) : m), BigInt(spans[0].from));
  return {
    checked,
    pending: found.pending,
    monitoredFrom: monitoredFrom.toString(),
    unmonitored: unmonitoredRanges(attested, monitoredFrom),
    malformed: found.malformed,
    unattestedLedger: found.unattested.size,
    fairness,
  };
}
