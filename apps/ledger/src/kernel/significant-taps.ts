import type { ErrorCode } from '@ledger/errors';

/** A refusal as the significant-event raiser sees it (docs/significant-events.md, "Causes"): what the exception filter knows, nothing slow. */
export interface RefusalSeen {
  readonly code: ErrorCode;
  readonly status: number;
  /** `details.reason`, when a string. */
  readonly reason: string | undefined;
  readonly requestId: string | null;
  /** The caller with a valid token, or null. */
  readonly actor: { readonly id: string; readonly role: string } | null;
  readonly tableId: string | null;
  /** The path's shoe, when it names one (its table is then looked up in the background when `tableId` is null). */
  readonly shoeId: string | null;
  /** The ledger's clock, ms since the epoch. */
  readonly atMs: number;
}

/** A divergence found by `GET /audit/anchors/verify`, as the raiser reads it. */
export interface DivergenceSeen {
  readonly source: string;
  readonly kind: string;
  readonly streamId: string | null;
  readonly version: number | null;
  readonly eventId: string | null;
  readonly anchorSeq: number | null;
  readonly reason: string;
}

/** Who listens: the significant-event raiser while it runs (null: nobody). */
export interface SignificantTaps {
  refusal(r: RefusalSeen): void;
  divergences(found: readonly DivergenceSeen[]): void;
}

let taps: SignificantTaps | null = null;

/** Points the taps at the raiser (`SIGNIFICANT_MONITOR`), or null. */
export function setSignificantTaps(t: SignificantTaps | null): void {
  taps = t;
}

/**
 * Hands a refusal to the raiser: synchronous and constant time (the raiser only counts it in a
 * bounded window; it raises in the background), and never throws — a refusal is never slower or
 * failed by raising.
 */
export function tapRefusal(r: RefusalSeen): void {
  try {
    taps?.refusal(r);
  } catch {
    // the refusal is answered whatever the raiser does
  }
}

/** Hands a verification's divergences to the raiser (queued; never throws). */
export function tapDivergences(found: readonly DivergenceSeen[]): void {
  try {
    if (found.length > 0) taps?.divergences(found);
  } catch {
    // the report is answered whatever the raiser does
  }
}
