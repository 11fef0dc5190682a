/**
 * The notations every edge of the ledger accepts for ids and cards (HTTP bodies, table logs, the
 * replayer), defined once so that the edges cannot drift apart. Plain regular expressions (no `g`
 * flag: `test` keeps no state between calls, so they are safe to share).
 */

/**
 * A ledger id (shoe, round, bet, account, dealer, manager, device): 1..64 characters of
 * `A-Z a-z 0-9 _ . : -`. Round and bet ids are ledger-wide references (docs/architecture.md §3).
 */
export const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Whether `v` is a string in {@link ID_PATTERN}. */
export function isLedgerId(v: unknown): v is string {
  return typeof v === 'string' && ID_PATTERN.test(v);
}

/**
 * Card notation (docs/domain-rules.md §1): rank `A 2-9 T J Q K` (or `10` for the ten) then suit
 * `S H D C`, case-insensitive: `9S`, `TH`, `10h`. Only the text; `parseCard` of `@ledger/rules`
 * turns it into the canonical `Card` (`10H` → `TH`).
 */
export const CARD_PATTERN = /^(10|[2-9TJQKA])[SHDC]$/i;

/** Whether `v` is a string in {@link CARD_PATTERN}. */
export function isCardText(v: unknown): v is string {
  return typeof v === 'string' && CARD_PATTERN.test(v);
}

/**
 * Evidence (docs/reports.md §7): the id of the camera whose video shows a table fact or a decision's
 * grounds, 1..64 characters of `A-Z a-z 0-9 _ . : / -` (a surveillance system's camera or channel id).
 */
export const CAMERA_ID_PATTERN = /^[A-Za-z0-9_.:/-]{1,64}$/;

/**
 * Evidence (docs/reports.md §7): a video timecode in SMPTE ST 12-1 notation `HH:MM:SS:FF`
 * (non-drop frame) or `HH:MM:SS;FF` (drop frame): hours 00..23, minutes and seconds 00..59,
 * frames 00..59 (up to 60 frames a second). The time within the recording the camera's system
 * stamps on its frames — not a wall-clock time (that is the event's `occurredAt`).
 */
export const TIMECODE_PATTERN = /^(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d[:;][0-5]\d$/;

/**
 * Evidence (docs/reports.md §7): a reference to a stored video segment (the surveillance system's
 * clip id, a `vms://…` or `https://…` URI), 1..256 printable ASCII characters without spaces.
 */
export const SEGMENT_REF_PATTERN = /^[\x21-\x7E]{1,256}$/;

/** The fields an {@link import('./envelope').Evidence} may hold, and nothing else. */
export const EVIDENCE_FIELDS = ['cameraId', 'timecode', 'segmentRef'] as const;

/**
 * Whether `v` is a well-formed evidence object (docs/reports.md §7): a plain object holding at
 * least one of `cameraId` ({@link CAMERA_ID_PATTERN}), `timecode` ({@link TIMECODE_PATTERN}),
 * `segmentRef` ({@link SEGMENT_REF_PATTERN}) and no other key.
 */
export function isEvidence(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 0 || keys.some((k) => !(EVIDENCE_FIELDS as readonly string[]).includes(k))) return false;
  const ok = (k: string, p: RegExp) => o[k] === undefined || (typeof o[k] === 'string' && p.test(o[k] as string));
  return ok('cameraId', CAMERA_ID_PATTERN) && ok('timecode', TIMECODE_PATTERN) && ok('segmentRef', SEGMENT_REF_PATTERN);
}
