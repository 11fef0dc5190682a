import type { LedgerEvent, LedgerEventType } from '@ledger/events';
import { parseRatio, significantEventCodesFor, significantEventSpec, type ExactRatio, type SignificantEventCode } from './codes';
import type { Severity } from './severity';

/**
 * The thresholds the detector reads (docs/significant-events.md; each one the configuration
 * variable the catalogue names): exact integers, never floats.
 */
export interface DetectionThresholds {
  /** `SIGNIFICANT_WIN_MULTIPLE`: winnings ÷ stake at or above it is a large win. */
  readonly winMultiple: ExactRatio;
  /** `SIGNIFICANT_WIN_AMOUNT_MINOR`: winnings at or above it (minor units) is a large win. */
  readonly winAmountMinor: bigint;
  /** `OCCURRED_AT_MAX_SKEW_MS`: a device's `occurredAt` further than this from `recordedAt` is a clock skew, in ms. */
  readonly clockSkewBoundMs: number;
}

/** The thresholds from the configuration variables' text (`'100/1'`, `'1000000'`, 5000). @throws Error on a malformed ratio or amount */
export function detectionThresholds(v: { readonly SIGNIFICANT_WIN_MULTIPLE: string; readonly SIGNIFICANT_WIN_AMOUNT_MINOR: string; readonly OCCURRED_AT_MAX_SKEW_MS: number }): DetectionThresholds {
  if (!/^[1-9]\d{0,17}$/.test(v.SIGNIFICANT_WIN_AMOUNT_MINOR)) throw new Error(`${v.SIGNIFICANT_WIN_AMOUNT_MINOR} is not a positive integer of minor units`);
  return { winMultiple: parseRatio(v.SIGNIFICANT_WIN_MULTIPLE), winAmountMinor: BigInt(v.SIGNIFICANT_WIN_AMOUNT_MINOR), clockSkewBoundMs: v.OCCURRED_AT_MAX_SKEW_MS };
}

/**
 * What the detector reads beside the event itself (docs/significant-events.md): for a
 * `BetResettled`, the four-eyes decision of the `ResultCorrected` it carries out (the latest of its
 * round before it in its stream; its two managers had a hand in the resettlement's large win). The
 * monitor and `npm run -s verify` look it up the same way.
 */
export interface DetectionContext {
  readonly correction?: { readonly actingManagerId: string; readonly approverId: string } | null;
  /**
   * For a `RoundVoided` of cause `SHOE_VOIDED`: whether its `causedBy` is a `ShoeVoided` before it in
   * its stream listing its round (then it is part of `SHOE.VOIDED_BY_DECISION`); false: a void
   * labelled so with no such shoe void, which raises `ROUND.VOIDED`. Absent: taken as part of it.
   */
  readonly shoeVoid?: boolean;
}

/** A large win's details name the thresholds it was raised under: `multiple` (`N/D`) and `amountMinor` (decimal). */
function thresholdDetails(t: DetectionThresholds): Record<string, string> {
  return { multiple: `${t.winMultiple.numerator}/${t.winMultiple.denominator}`, amountMinor: t.winAmountMinor.toString() };
}

/** What the detector found in one ledger event: a kind of the catalogue to raise, with its severity and a few facts. */
export interface SignificantEventDraft {
  readonly code: SignificantEventCode;
  readonly severity: Severity;
  /** The round the cause concerns, when it names one. */
  readonly roundId?: string;
  /** Small facts of the cause as strings (minor units, ms). */
  readonly details: Readonly<Record<string, string>>;
  /**
   * What the raise is about within its cause, for a kind one cause raises several times (a
   * `STATISTICS.OUT_OF_BOUNDS` per failing scope of a shoe's close: `shoe:<id>`, `dealer:<id>`,
   * `table:<id>`); part of the raise's id. Absent for every other kind.
   */
  readonly scopeKey?: string;
}

const draft = (code: SignificantEventCode, details: Record<string, string> = {}, roundId?: string | null): SignificantEventDraft => ({
  code,
  severity: significantEventSpec(code).severity,
  ...(roundId ? { roundId } : {}),
  details,
});

/** The two managers of the four-eyes decision an event carries out (both had a hand in it: neither may acknowledge it), or none. */
function managers(decision: { readonly actingManagerId: string; readonly approverId: string } | null | undefined): Record<string, string> {
  return decision ? { actingManagerId: decision.actingManagerId, approverId: decision.approverId } : {};
}

/** The large-win draft of a settlement, or null (not a win, or under both thresholds). Exact bigint comparison. */
function largeWin(e: LedgerEvent<'BetSettled' | 'BetResettled'>, t: DetectionThresholds, ctx: DetectionContext): SignificantEventDraft | null {
  const d = e.data;
  if (d.result !== 'WIN') return null;
  const stake = BigInt(d.stake);
  const winnings = BigInt(d.winnings);
  // winnings / stake >= N / D  ⇔  winnings · D >= N · stake (stake > 0)
  const byMultiple = stake > 0n && winnings * t.winMultiple.denominator >= t.winMultiple.numerator * stake;
  const byAmount = winnings >= t.winAmountMinor;
  if (!byMultiple && !byAmount) return null;
  const by = byMultiple && byAmount ? 'multiple,amount' : byMultiple ? 'multiple' : 'amount';
  // a resettlement carries out a correction: its two managers had a hand in the win
  const decision = e.type === 'BetResettled' ? managers(ctx.correction) : {};
  return draft('WIN.LARGE', { betId: d.betId, accountId: d.accountId, currency: d.currency, stake: d.stake, winnings: d.winnings, by, ...thresholdDetails(t), ...decision }, d.roundId);
}

/** The clock-skew draft of a table device's fact: |recordedAt − occurredAt| above the bound, else null. */
function clockSkew(e: LedgerEvent, t: DetectionThresholds): SignificantEventDraft | null {
  if (e.actor.role !== 'table-device') return null;
  const skew = Date.parse(e.recordedAt) - Date.parse(e.occurredAt);
  if (!Number.isFinite(skew) || Math.abs(skew) <= t.clockSkewBoundMs) return null;
  const roundId = (e.data as { roundId?: unknown }).roundId;
  return draft('DEVICE.CLOCK_SKEW', { deviceId: e.actor.id, skewMs: String(skew), boundMs: String(t.clockSkewBoundMs) }, typeof roundId === 'string' ? roundId : null);
}

/** The draft a ledger event raises by its type alone (or its data's own flags), else null. */
function byType(e: LedgerEvent, t: DetectionThresholds, ctx: DetectionContext): SignificantEventDraft | null {
  switch (e.type) {
    case 'RoundVoided':
      // a round voided with its shoe is part of SHOE.VOIDED_BY_DECISION (when a shoe void of its stream says so: ctx)
      return e.data.cause === 'SHOE_VOIDED' && ctx.shoeVoid !== false ? null : draft('ROUND.VOIDED', { cause: e.data.cause, ...managers(e.data.decision) }, e.data.roundId);
    case 'ResultCorrected':
      return draft('RESULT.CORRECTED', { from: e.data.previousOutcome.winner, to: e.data.outcome.winner, ...managers(e.data.decision) }, e.data.roundId);
    case 'ShoeVoided':
      return draft('SHOE.VOIDED_BY_DECISION', { rounds: String(e.data.roundIds.length), ...managers(e.data.decision) });
    case 'CommencementCorrected':
      return draft('COMMENCEMENT.CORRECTED', { card: e.data.card, ...managers(e.data.decision) });
    case 'GamingDayClosed':
      return e.data.early ? draft('GAMING_DAY.CLOSED_EARLY', { gamingDay: e.data.gamingDay, tableIds: e.data.tableIds.join(','), requestedBy: e.data.early.requestedBy, approvedBy: e.data.early.approvedBy }) : null;
    case 'BetSettled':
    case 'BetResettled':
      return largeWin(e, t, ctx);
    case 'CardExposed':
      return draft('CARD.EXPOSED', { card: e.data.card, phase: e.data.phase }, e.data.roundId);
    case 'CardDropped':
      return draft('CARD.DROPPED', { phase: e.data.phase }, e.data.roundId);
    case 'UnneededCardDrawn':
      return draft('CARD.UNNEEDED', { card: e.data.card }, e.data.roundId);
    default:
      return null;
  }
}

/**
 * The significant events one ledger event raises (docs/significant-events.md), for the kinds of the
 * catalogue a ledger event raises by itself: `ROUND.VOIDED` (not a void of a voided shoe's round),
 * `RESULT.CORRECTED`, `SHOE.VOIDED_BY_DECISION`, `COMMENCEMENT.CORRECTED`, `GAMING_DAY.CLOSED_EARLY`
 * (a close carrying `early`), `WIN.LARGE` (a settlement or resettlement won at or above either
 * threshold, exact integers; its details state both thresholds, `multiple` and `amountMinor`, and for
 * a resettlement the managers of the correction it carries out, from `ctx`), `CARD.EXPOSED`, `CARD.DROPPED`, `CARD.UNNEEDED`, and
 * `DEVICE.CLOCK_SKEW` (a table device's fact whose `occurredAt` is further than
 * `OCCURRED_AT_MAX_SKEW_MS` from the ledger's `recordedAt`, either way). `DEALER.CHANGED_MID_SHOE`
 * needs the shoe's stream ({@link dealerChangeDraft}) and the `CONFIG.*` kinds the previous
 * attestation (`configurationDrafts`): not detected here. The significant events' own types raise nothing.
 * The details of a kind carried out by a four-eyes decision name its two managers (`actingManagerId`,
 * `approverId`; an early close: `requestedBy`, `approvedBy`): the people whose act raised it.
 * Pure: no clock, no I/O.
 * @returns zero, one or two drafts (a fact of a skewed device may also be a card kind)
 */
export function detectSignificantEvents(e: LedgerEvent, t: DetectionThresholds, ctx: DetectionContext = {}): SignificantEventDraft[] {
  if (e.type === 'SignificantEventRaised' || e.type === 'SignificantEventAcknowledged') return [];
  return [byType(e, t, ctx), clockSkew(e, t)].filter((d): d is SignificantEventDraft => d !== null);
}

/**
 * The types whose significant events need more than the event itself (docs/significant-events.md):
 * a `DealerChanged` (was a round of its shoe opened before it? {@link dealerChangeDraft}) and a
 * `ConfigurationAttested` (what did the previous attestation say? `configurationDrafts`). The
 * monitor reads that context from the event store for them.
 */
export const CONTEXT_CAUSE_TYPES: readonly LedgerEventType[] = ['DealerChanged', 'ConfigurationAttested'];

/** Whether a dealer change at stream version `changeVersion` is mid-shoe: its shoe's first `RoundOpened` (`firstRoundVersion`, null: none) came before it. */
export function isMidShoe(changeVersion: number, firstRoundVersion: number | null): boolean {
  return firstRoundVersion !== null && firstRoundVersion < changeVersion;
}

/**
 * The `DEALER.CHANGED_MID_SHOE` draft of a dealer change: only when its shoe had opened a round
 * before it (`firstRoundVersion`, the stream version of the shoe's first `RoundOpened`, is below the
 * change's); a change before the first round is the ordinary start of a shoe (null). Pure.
 * @param firstRoundVersion the version of the shoe stream's first `RoundOpened`, or null when it has none
 */
export function dealerChangeDraft(e: LedgerEvent<'DealerChanged'>, firstRoundVersion: number | null): SignificantEventDraft | null {
  if (!isMidShoe(e.streamVersion, firstRoundVersion)) return null;
  return draft('DEALER.CHANGED_MID_SHOE', { previousDealerId: e.data.previousDealerId, dealerId: e.data.dealerId });
}

/**
 * The people whose act raised a significant event (none of them may acknowledge it: the four eyes of
 * docs/domain-rules.md §6): the cause event's actor (`actor` of the raise) and, for a kind carried out
 * by a four-eyes decision or an early close, its two managers (named in `details`).
 */
export function raisersOf(raise: { readonly actor: string; readonly details: Readonly<Record<string, string>> }): Set<string> {
  const d = raise.details;
  return new Set([raise.actor, d.actingManagerId, d.approverId, d.requestedBy, d.approvedBy].filter((v): v is string => typeof v === 'string'));
}

/**
 * Whether a ledger event of type `eventType`, caused by an actor of role `role`, can raise `code`
 * (what `npm run -s verify` asks of a raise's cause): a kind its type raises, or a clock skew of a
 * table device's fact.
 */
export function causeMayRaise(code: SignificantEventCode, eventType: LedgerEventType, role: string): boolean {
  return significantEventCodesFor(eventType).includes(code) || (code === 'DEVICE.CLOCK_SKEW' && role === 'table-device');
}

/**
 * The kinds a single ledger event raises by itself, per cause (no window): the ones
 * `npm run -s verify` detects again from the stored cause ({@link detectAgain}).
 */
export const SELF_RAISED_CODES: ReadonlySet<SignificantEventCode> = new Set<SignificantEventCode>([
  'ROUND.VOIDED',
  'RESULT.CORRECTED',
  'SHOE.VOIDED_BY_DECISION',
  'COMMENCEMENT.CORRECTED',
  'GAMING_DAY.CLOSED_EARLY',
  'WIN.LARGE',
  'CARD.EXPOSED',
  'CARD.DROPPED',
  'CARD.UNNEEDED',
]);

/**
 * What `npm run -s verify` finds when it detects a stored cause `event` again for a raise of `code`
 * with `details` (docs/significant-events.md, "What verify checks"): the draft the cause gives under
 * the thresholds `inForce` (the ones attested in force at the cause, never the ones the raise states;
 * `ctx` as the monitor reads it), or why there is none; null for a kind not in
 * {@link SELF_RAISED_CODES}. A large win stating other thresholds (`multiple`, `amountMinor`) than
 * the ones in force is a problem of its own. Pure.
 */
export function detectAgain(q: {
  readonly code: string;
  readonly details: Readonly<Record<string, string>>;
  readonly event: LedgerEvent;
  readonly ctx: DetectionContext;
  readonly inForce: DetectionThresholds;
}): { draft: SignificantEventDraft } | { problem: string } | null {
  if (!SELF_RAISED_CODES.has(q.code as SignificantEventCode)) return null;
  const large = q.code === 'WIN.LARGE';
  if (large) {
    const t = thresholdDetails(q.inForce);
    if (q.details.multiple !== t.multiple || q.details.amountMinor !== t.amountMinor)
      return { problem: `it states thresholds multiple ${String(q.details.multiple)}, amountMinor ${String(q.details.amountMinor)}; the ones in force at its cause are ${t.multiple}, ${t.amountMinor}` };
  }
  const draft = detectSignificantEvents(q.event, q.inForce, q.ctx).find((x) => x.code === q.code);
  return draft ? { draft } : { problem: `its cause ${q.event.type} does not raise ${q.code}${large ? ' under the thresholds in force at it' : ''}` };
}

/**
 * The problems of a device's `DEVICE.CLOCK_SKEW` raise against its stored first cause (verify step 7):
 * the skew computed again from the cause's `recordedAt` − `occurredAt` must be beyond the bound in
 * force at it (`inForce.clockSkewBoundMs`, attested), of a table device, and equal to the `skewMs`,
 * `boundMs` and `deviceId` the raise states. Pure.
 * @returns reasons, empty when it is what the cause gives
 */
export function clockSkewProblems(details: Readonly<Record<string, string>>, event: LedgerEvent, inForce: DetectionThresholds): string[] {
  const skew = Date.parse(event.recordedAt) - Date.parse(event.occurredAt);
  const d = clockSkew(event, inForce);
  if (!d) return [`its cause's skew (recordedAt − occurredAt) is ${skew} ms, within the bound in force at it (${inForce.clockSkewBoundMs} ms)`];
  const out: string[] = [];
  for (const k of ['deviceId', 'skewMs', 'boundMs'] as const) if (details[k] !== d.details[k]) out.push(`its ${k} ${String(details[k])} is not its cause's ${d.details[k]}`);
  return out;
}

/**
 * The code of the fairness alert (docs/fairness.md §7): raised at a shoe's close, once per failing
 * scope, by the API's monitor from the stored events (`libs/anchors/src/fairness-raise.ts`), not by
 * {@link detectSignificantEvents}.
 */
export const FAIRNESS_ALERT_CODE = 'STATISTICS.OUT_OF_BOUNDS' satisfies SignificantEventCode;
