import type { SignificantCauseWindow, SignificantEventCause } from '@ledger/events';
import { SIGNIFICANT_EVENTS } from './catalogue';
import { SIGNIFICANT_EVENT_CODES, type SignificantEventCode } from './codes';

/** The code a record of the projector raises: a quarantined record, a projection incident (a halted partition). */
export const PROJECTOR_RECORD_CODES = { quarantine: 'RECORD.QUARANTINED', incident: 'PROJECTION.HALTED' } as const satisfies Record<string, SignificantEventCode>;

/** The `actor` of a raise whose cause is no one's act: the component that saw it. */
export const RAISER_ACTORS = { projector: 'projector', verifier: 'verifier', 'rate-limit-window': 'rate-limits' } as const;

/** The code a storm of 429s raises (the rate-limit monitor's). */
export const STORM_CODE = 'RATE.LIMIT_STORM' satisfies SignificantEventCode;

/** The codes a ledger event raises that are flood-bounded (one raise per device and window, with the count): a device's clock skew. */
export const WINDOWED_EVENT_CODES: ReadonlySet<SignificantEventCode> = new Set<SignificantEventCode>(['DEVICE.CLOCK_SKEW']);

/** The length of a rate-limit storm's window, in seconds: its threshold is per minute. */
export const STORM_WINDOW_SECONDS = 60;

/** The verifier's divergences about the signed checkpoints themselves (`ANCHOR.DIVERGED`). */
const ANCHOR_DIVERGENCES: ReadonlySet<string> = new Set([
  'ANCHOR_MALFORMED',
  'ANCHOR_KEY_UNKNOWN',
  'ANCHOR_SIGNATURE_INVALID',
  'ANCHOR_MERKLE_MISMATCH',
  'ANCHOR_CHAIN_BROKEN',
  'ANCHOR_FORK',
  'ANCHOR_COPIES_DIFFER',
  'ANCHORS_BEHIND',
]);

/** The verifier's divergences of PostgreSQL's events from a signed head, from themselves or from the Kafka copy (`CHAIN.DIVERGED`). */
const CHAIN_DIVERGENCES: ReadonlySet<string> = new Set([
  'HEAD_MISMATCH',
  'ANCHORED_VERSION_MISSING',
  'NOT_ANCHORED',
  'KAFKA_MISMATCH',
  'KAFKA_MISSING',
  'KAFKA_EXTRA',
  'KAFKA_DUPLICATE_CONFLICT',
  'STORED_CHAIN_BROKEN',
  'POSITION_UNACCOUNTED',
  'EVENT_IN_HOLE',
  'PROGRESS_AHEAD',
  'EVENT_BEYOND_SEQUENCE',
]);

/**
 * The code a divergence of the verifier raises (docs/significant-events.md, "Causes"): the
 * checkpoints' own (`ANCHOR_*`, `ANCHORS_BEHIND`) `ANCHOR.DIVERGED`; the events' against a head,
 * themselves or Kafka `CHAIN.DIVERGED`; any other (closes, evidence chains, significant events) none.
 */
export function verifierCodeFor(divergence: string): 'CHAIN.DIVERGED' | 'ANCHOR.DIVERGED' | null {
  return ANCHOR_DIVERGENCES.has(divergence) ? 'ANCHOR.DIVERGED' : CHAIN_DIVERGENCES.has(divergence) ? 'CHAIN.DIVERGED' : null;
}

/** The code a refusal with `errorCode` (and `details.reason`) raises, by the catalogue's `refusal` sources, or null. */
export function refusalCodeFor(errorCode: string, reason: string | undefined): SignificantEventCode | null {
  for (const code of SIGNIFICANT_EVENT_CODES) {
    for (const s of SIGNIFICANT_EVENTS[code].raisedBy) {
      if (s.kind === 'refusal' && s.errorCode === errorCode && (!('reasons' in s) || !s.reasons || (reason !== undefined && s.reasons.includes(reason)))) return code;
    }
  }
  return null;
}

/** The start of the window of `seconds` holding `atMs` (ms since the epoch), ISO-8601: windows are aligned to the epoch. */
export function windowStartOf(atMs: number, seconds: number): string {
  const len = seconds * 1000;
  return new Date(Math.floor(atMs / len) * len).toISOString();
}

/**
 * What is wrong with a flood window's split (docs/significant-events.md, "Floods are bounded"): the
 * raise of its first cause stands for that one alone (count 1, no `rest`); the raise of the rest is
 * marked `rest` (empty when well-formed).
 */
export function floodWindowProblems(w: SignificantCauseWindow | undefined): string[] {
  if (!w || typeof w !== 'object') return [];
  if (w.rest === undefined ? w.count === 1 : w.rest === true) return [];
  return [`its window's first cause is raised alone (count 1), the others by a raise marked rest: count ${String(w.count)}, rest ${String(w.rest)}`];
}

/** What is wrong with a cause's window (empty when well-formed: a positive length, a start aligned to it, a subject, a positive count). */
export function windowProblems(w: SignificantCauseWindow | undefined): string[] {
  if (!w || typeof w !== 'object') return ['its cause has no window'];
  const out: string[] = [];
  const start = Date.parse(String(w.start));
  if (!Number.isSafeInteger(w.seconds) || w.seconds < 1) out.push(`its window's length ${String(w.seconds)} is not a positive number of seconds`);
  else if (!Number.isFinite(start) || new Date(start).toISOString() !== w.start || start % (w.seconds * 1000) !== 0) out.push(`its window's start ${String(w.start)} is not aligned to ${w.seconds} s`);
  if (typeof w.subject !== 'string' || w.subject.length === 0) out.push("its window's subject is missing");
  if (!Number.isSafeInteger(w.count) || w.count < 1) out.push(`its window's count ${String(w.count)} is not a positive integer`);
  return out;
}

/**
 * The stable key of a cause of `code` (docs/significant-events.md, "Causes"): the raise's id is
 * derived from it, so the same cause raises once. An event cause without a window keeps the key of
 * the raises before the tagged causes (`<event id>|<code>`); a windowed cause (refusals, a device's
 * skewed facts, a storm) is keyed by (code, subject, window); a projector's record by its key; a
 * divergence by its kind, source and place.
 */
export function causeKey(code: string, cause: SignificantEventCause): string {
  switch (cause.kind) {
    case undefined:
    case 'event':
      return cause.window ? windowKey(code, cause.window) : `${String(cause.eventId).toLowerCase()}|${code}`;
    case 'refusal':
    case 'rate-limit-window':
      return windowKey(code, cause.window);
    case 'projector':
      return `${code}|projector|${cause.record}|${cause.consumerGroup}|${cause.key}`;
    case 'verifier':
      return `${code}|verifier|${cause.divergence}|${cause.source}|${cause.where}`;
    default:
      return `${code}|unknown|${JSON.stringify(cause)}`;
  }
}

function windowKey(code: string, w: SignificantCauseWindow | undefined): string {
  return `${code}|window|${String(w?.subject)}|${String(w?.start)}|${String(w?.seconds)}${w?.rest === true ? '|rest' : ''}`;
}

/** Whether the catalogue's `raisedBy` of `code` has a source of kind `kind` (and, for a monitor, that monitor). */
function admits(code: SignificantEventCode, kind: string, monitor?: string): boolean {
  return SIGNIFICANT_EVENTS[code].raisedBy.some((s) => s.kind === kind && (monitor === undefined || (s.kind === 'monitor' && s.monitor === monitor)));
}

/**
 * What the catalogue says against a raise of `code` with `cause`, the stored cause event aside
 * (docs/significant-events.md, "What verify checks"): the code's `raisedBy` admits the cause's kind
 * (and its error code and reason, its record, its divergence); the cause's window is well-formed
 * where one is needed (refusals, storms, a windowed device's skew); the raise's `actor` is the
 * refusal's actor or the raiser's name. Empty when admitted. Pure.
 */
export function causeProblems(code: SignificantEventCode, cause: SignificantEventCause, actor: string): string[] {
  const kind = cause.kind ?? 'event';
  switch (cause.kind) {
    case undefined:
    case 'event':
      return cause.window ? [...(WINDOWED_EVENT_CODES.has(code) ? [] : [`${code} is not raised by a window of events`]), ...windowProblems(cause.window), ...floodWindowProblems(cause.window)] : [];
    case 'refusal': {
      const out = refusalCodeFor(cause.errorCode, cause.reason) === code ? [] : [`a refusal ${cause.errorCode}${cause.reason ? ` (${cause.reason})` : ''} cannot raise ${code}`];
      if (actor !== cause.actorId || cause.window?.subject !== `${cause.actorRole}:${cause.actorId}`)
        out.push(`its actor ${actor} and window subject ${String(cause.window?.subject)} are not the refusal's ${cause.actorRole}:${cause.actorId}`);
      return [...out, ...windowProblems(cause.window), ...floodWindowProblems(cause.window)];
    }
    case 'projector':
      return [
        ...(admits(code, 'projector') && PROJECTOR_RECORD_CODES[cause.record] === code ? [] : [`a projector's ${String(cause.record)} record cannot raise ${code}`]),
        ...(actor === RAISER_ACTORS.projector ? [] : [`its actor ${actor} is not the projector`]),
      ];
    case 'verifier':
      return [
        ...(admits(code, 'verifier') && verifierCodeFor(cause.divergence) === code ? [] : [`a divergence ${cause.divergence} cannot raise ${code}`]),
        ...(actor === RAISER_ACTORS.verifier ? [] : [`its actor ${actor} is not the verifier`]),
      ];
    case 'rate-limit-window': {
      const out = admits(code, 'monitor', 'rate-limits') ? [] : [`a window of 429 refusals cannot raise ${code}`];
      if (cause.window?.seconds !== STORM_WINDOW_SECONDS || cause.window?.subject !== '*') out.push(`its window is not a minute over every caller`);
      if (!Number.isSafeInteger(cause.threshold) || cause.threshold < 1 || !(cause.window?.count >= cause.threshold)) out.push(`its count ${String(cause.window?.count)} does not reach its threshold ${String(cause.threshold)}`);
      if (actor !== RAISER_ACTORS['rate-limit-window']) out.push(`its actor ${actor} is not the rate-limit monitor`);
      return [...out, ...windowProblems(cause.window)];
    }
    default:
      return [`its cause is of an unknown kind ${String(kind)}`];
  }
}
