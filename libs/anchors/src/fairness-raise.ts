import canonicalize from 'canonicalize';
import { gamingDay, type GamingDayConfig } from '@ledger/projections';
import { FAIRNESS_ALERT_CODE, significantEventSpec, type SignificantEventDraft } from '@ledger/significant-events';
import { dayWindow, decimalText, expectedCountText, foldDay, ledgerTopicOf, lookAtShoeClose, parseConfidence, readDayEvents, type ShoeCloseLook } from './fairness-of-events';
import type { Confidence } from '@ledger/fairness';
import { settingsInForceAt, type SettingsInForce } from './significant-settings';
import type { SqlSession } from './sql';

/**
 * `STATISTICS.OUT_OF_BOUNDS` raised as a ledger fact at each shoe's close (docs/significant-events.md,
 * docs/fairness.md §6): the drafts the API's monitor appends for a `ShoeClosed`, and the check
 * `npm run -s verify` (step 7) makes of every such raise, both from the same stored events.
 */

/** A `ShoeClosed` as stored: what a look at it reads. */
export interface ShoeCloseCause {
  readonly streamId: string;
  readonly tableId: string;
  /** Decimal string. */
  readonly globalPosition: string;
  /** ISO-8601: the ledger's time of the close; its gaming day is the day looked at. */
  readonly recordedAt: string;
}

/** What a look needs beside its cause: the gaming-day rule, the confidence, the ledger's topic (null: the database's only ledger). */
export interface LookSettings {
  readonly dayRule: GamingDayConfig;
  readonly confidence: Confidence;
  readonly topic: string | null;
}

/** The gaming day of a shoe's close and the look at it, from the stored events at its position (null: no round of the shoe in the day). */
export async function lookFromEvents(session: SqlSession, cause: ShoeCloseCause, s: LookSettings): Promise<{ day: string; look: ShoeCloseLook | null }> {
  const day = gamingDay(cause.recordedAt, s.dayRule);
  const window = dayWindow(day, s.dayRule);
  const events = await readDayEvents(session, { tableId: cause.tableId, ...window, throughPosition: BigInt(cause.globalPosition), topic: s.topic });
  return { day, look: lookAtShoeClose(foldDay(events), { tableId: cause.tableId, shoeId: cause.streamId.slice('shoe-'.length), confidence: s.confidence }) };
}

/**
 * The `STATISTICS.OUT_OF_BOUNDS` drafts of a look: one per scope with a failed test (scope key set,
 * so each has its own id), whose details state the scope, the day and its rule, the confidence and
 * per-test level, the rounds, and per failed statistic its method, p-value (decimal string),
 * observed and expected counts (comma-separated, in the statistic's category order). Pure.
 */
export function outOfBoundsDrafts(look: ShoeCloseLook, ctx: { readonly day: string; readonly dayRule: GamingDayConfig; readonly confidence: Confidence }): SignificantEventDraft[] {
  const out: SignificantEventDraft[] = [];
  for (const s of look.scopes) {
    const failed = s.statistics.filter((r) => look.verdict.failures.some((f) => f.statistic === r.statistic && canonicalize(f.scope) === canonicalize(s.scope)));
    if (failed.length === 0) continue;
    const details: Record<string, string> = {
      scope: s.scope.kind,
      scopeKey: s.scopeKey,
      ...(s.scope.kind === 'dealer' ? { scopeDealerId: s.scope.dealerId } : {}),
      gamingDay: ctx.day,
      timeZone: ctx.dayRule.timeZone,
      cutoffHour: String(ctx.dayRule.cutoffHour),
      confidence: `${ctx.confidence.numerator}/${ctx.confidence.denominator}`,
      variant: look.variant,
      decks: String(look.decks),
      rounds: String(s.counts.rounds),
      alpha: decimalText(look.verdict.alpha),
      statistics: failed.map((r) => r.statistic).join(','),
    };
    for (const r of failed) {
      details[`${r.statistic}.method`] = r.test.method;
      details[`${r.statistic}.pValue`] = decimalText(r.test.pValue);
      details[`${r.statistic}.observed`] = r.categories.map((c) => String(c.observed)).join(',');
      details[`${r.statistic}.expected`] = r.categories.map((c) => expectedCountText(r.test.n, c.probability)).join(',');
    }
    out.push({ code: FAIRNESS_ALERT_CODE, severity: significantEventSpec(FAIRNESS_ALERT_CODE).severity, details, scopeKey: s.scopeKey });
  }
  return out;
}

/** A stored `STATISTICS.OUT_OF_BOUNDS` raise as the check reads it. */
export interface OutOfBoundsRaise {
  readonly data: Record<string, any>;
}

/**
 * The problems of a `STATISTICS.OUT_OF_BOUNDS` raise against the events (verify step 7): its cause is
 * a `ShoeClosed`; the confidence its details state is the one attested in force at its cause
 * (`inForce`, read from the session when not given: the last `ConfigurationAttested` with settings at
 * or below it, else the configuration's default), never one of the raise's choosing; the day its
 * details name is its cause's under the rule they name; and the look at that close computed again
 * from the stored events (with the confidence in force, the ledger the cause's) fails the scope the
 * raise names, with the very details, shoe, dealer and table it states.
 * @returns reasons, empty when genuine
 */
export async function outOfBoundsProblems(session: SqlSession, raise: OutOfBoundsRaise, cause: ShoeCloseCause & { readonly type: string }, cache: Map<string, unknown>, inForce?: SettingsInForce): Promise<string[]> {
  const d = raise.data;
  const details = (d.details ?? {}) as Record<string, string>;
  if (cause.type !== 'ShoeClosed') return [`a ${FAIRNESS_ALERT_CODE} is raised at a shoe's close, not by a ${cause.type}`];
  const topic = await ledgerTopicOf(session, cause.globalPosition);
  const attested = (inForce ?? (await settingsInForceAt(session, cause.globalPosition, topic))).settings.fairnessConfidence;
  let dayRule: GamingDayConfig;
  try {
    dayRule = { timeZone: String(details.timeZone), cutoffHour: Number(details.cutoffHour) };
    if (!Number.isInteger(dayRule.cutoffHour) || dayRule.cutoffHour < 0 || dayRule.cutoffHour > 23) throw new Error('cutoffHour');
    gamingDay(cause.recordedAt, dayRule);
  } catch {
    return ['its details do not state a gaming-day rule (timeZone, cutoffHour) to compute it again with'];
  }
  const confidence: Confidence = parseConfidence(attested);
  const out = details.confidence === attested ? [] : [`it states confidence ${String(details.confidence)}; the one in force at its cause is ${attested}`];
  const key = `${cause.globalPosition}|${attested}|${details.timeZone}|${details.cutoffHour}`;
  let drafts = cache.get(key) as { day: string; drafts: SignificantEventDraft[] } | undefined;
  if (!drafts) {
    const { day, look } = await lookFromEvents(session, cause, { dayRule, confidence, topic });
    drafts = { day, drafts: look ? outOfBoundsDrafts(look, { day, dayRule, confidence }) : [] };
    cache.set(key, drafts);
  }
  return [...out, ...outOfBoundsMismatch(d, drafts, cause)];
}

/**
 * What differs between a stored `STATISTICS.OUT_OF_BOUNDS` raise (`data`) and the look at its cause
 * computed again (`computed`: the cause's gaming day and the drafts the events give). Pure.
 * @returns reasons, empty when the raise is what the events give
 */
export function outOfBoundsMismatch(data: Record<string, any>, computed: { readonly day: string; readonly drafts: readonly SignificantEventDraft[] }, cause: Pick<ShoeCloseCause, 'streamId' | 'tableId'>): string[] {
  const details = (data.details ?? {}) as Record<string, string>;
  if (details.gamingDay !== computed.day) return [`it names gaming day ${String(details.gamingDay)}; its cause was recorded in ${computed.day}`];
  const draft = computed.drafts.find((x) => x.scopeKey === details.scopeKey);
  if (!draft) return [`the events give no failed test in scope ${String(details.scopeKey)} at its cause: the alert is not what the statistics say`];
  const out: string[] = [];
  if (canonicalize(draft.details) !== canonicalize(details)) out.push(`its details are not those the events give for scope ${draft.scopeKey} (${JSON.stringify(draft.details).slice(0, 300)})`);
  if (data.tableId !== cause.tableId || data.shoeId !== cause.streamId.slice('shoe-'.length)) out.push("its table or shoe is not its cause's");
  return out;
}
