import { createHash, sign, type KeyObject } from 'node:crypto';
import { canonicalJson } from '@ledger/event-store';

/**
 * What the report signer signs (docs/anchors.md, "The report signer"): the two kinds of document the
 * ledger signs with its report key, and nothing else. A signing request names its kind and carries
 * the body; the signer checks that the body has the shape of that kind (the fields, and the values
 * that say what it is), then signs the canonical JSON (RFC 8785, UTF-8) of the body, the same bytes
 * the API stores and auditors verify:
 *
 * - `gaming-day-close`: the frozen report of a gaming-day close (docs/reports.md §2, `CloseReportBody`);
 * - `export-manifest`: the signed part of an export bundle's manifest (docs/reports.md §5,
 *   `ManifestBody`), whose `keyId` must be the signer's own key;
 * - `export-receipt`: the seal of one export the API sent (docs/reports.md §5, "The bundle",
 *   `ReceiptSealBody`): who asked, what was sent (kind, period, positions, rows, bytes, SHA-256).
 *
 * Pure functions, no I/O: the server (`server.ts`) and the API's local signing share them.
 */

/** The kinds of document the signer signs. */
export const SIGNING_KINDS = ['gaming-day-close', 'export-manifest', 'export-receipt'] as const;

/** A kind of signed document (see {@link SIGNING_KINDS}). */
export type SigningKind = (typeof SIGNING_KINDS)[number];

/** A well-formed signing request: its kind and the body to sign. */
export interface SigningRequest {
  readonly kind: SigningKind;
  readonly body: Readonly<Record<string, unknown>>;
}

/** What the signer answers for a request it signed. */
export interface SigningAnswer {
  /** The id of the key that signed (`ed25519:` + 16 hex). */
  readonly keyId: string;
  /** Ed25519 signature of the body's canonical bytes, base64. */
  readonly signature: string;
  /** Lower-case hex SHA-256 of the bytes signed. */
  readonly sha256: string;
}

/** A signing request the signer refuses: its code (libs/errors) and the problem, in words. */
export class SigningRefusal extends Error {
  /**
   * @param code the error code the signer answers with
   * @param problem what is wrong, for the caller and the log
   */
  constructor(
    readonly code: 'SIGNER.MALFORMED_REQUEST' | 'SIGNER.UNAUTHORIZED' | 'SIGNER.TOO_LARGE',
    readonly problem: string,
  ) {
    super(problem);
    this.name = 'SigningRefusal';
  }
}

/** The fields of a gaming-day close's report body, exactly (layout 1; layout 2 adds `clockSkew`, layout 3 `fairness`). */
const CLOSE_FIELDS = ['adjustments', 'early', 'gamingDay', 'gamingDayRule', 'header', 'rows', 'tableIds', 'throughPosition', 'totals', 'trigger'];
/** The fields of an export manifest's signed body, exactly. */
const MANIFEST_FIELDS = ['anchors', 'files', 'format', 'header', 'keyId', 'ledgerId', 'period', 'positions', 'signedAt'];
/** The fields of an export receipt's seal body, exactly. */
const RECEIPT_FIELDS = ['actorId', 'bytes', 'format', 'header', 'id', 'kind', 'period', 'positions', 'receipt', 'rows', 'sha256'];
/** What an export receipt's seal body says it is (`receipt`). */
export const RECEIPT_SEAL_FORMAT = 'baccarat-ledger-export-receipt/1';
/** The manifest formats the ledger writes (`baccarat-ledger-export/<n>`). */
const MANIFEST_FORMAT = /^baccarat-ledger-export\/\d{1,3}$/;

/** The canonical bytes of a body (RFC 8785 JSON Canonicalization Scheme, UTF-8): what is signed. */
export function signedBytes(body: unknown): Buffer {
  return Buffer.from(canonicalJson(body), 'utf8');
}

/** Signs a body's canonical bytes with `privateKey` (Ed25519). */
export function signBody(body: unknown, privateKey: KeyObject, keyId: string): SigningAnswer {
  const bytes = signedBytes(body);
  return { keyId, signature: sign(null, bytes, privateKey).toString('base64'), sha256: createHash('sha256').update(bytes).digest('hex') };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function refuse(problem: string): never {
  throw new SigningRefusal('SIGNER.MALFORMED_REQUEST', problem);
}

function exactFields(o: Record<string, unknown>, fields: readonly string[], what: string): void {
  const keys = Object.keys(o).sort();
  const missing = fields.filter((f) => !(f in o));
  const extra = keys.filter((k) => !fields.includes(k));
  if (missing.length > 0 || extra.length > 0) {
    refuse(`${what}: ${[missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unexpected ${extra.join(', ')}` : ''].filter(Boolean).join('; ')}`);
  }
}

function header(v: unknown, report: string): void {
  if (!isObject(v) || v.report !== report || !Number.isInteger(v.reportVersion) || !isObject(v.period)) refuse(`the body's header is not that of a ${report} report`);
}

function checkClose(b: Record<string, unknown>): void {
  // layout 2 on: the day's largest device clock skew per table; layout 3 on: the day's fairness verdict per table (docs/reports.md §2)
  const layout = isObject(b.header) && typeof b.header.reportVersion === 'number' ? b.header.reportVersion : 1;
  exactFields(b, [...CLOSE_FIELDS, ...(layout >= 2 ? ['clockSkew'] : []), ...(layout >= 3 ? ['fairness'] : [])], 'a gaming-day close report');
  header(b.header, 'gaming-day-close');
  if (layout >= 2 && (!Array.isArray(b.clockSkew) || !b.clockSkew.every(isObject))) refuse('clockSkew must be a list of objects');
  if (layout >= 3 && (!Array.isArray(b.fairness) || !b.fairness.every(isObject))) refuse('fairness must be a list of objects');
  if (typeof b.gamingDay !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(b.gamingDay)) refuse('gamingDay must be YYYY-MM-DD');
  if (!Array.isArray(b.tableIds) || b.tableIds.length === 0 || !b.tableIds.every((t) => typeof t === 'string' && t.length > 0 && t.length <= 64)) refuse('tableIds must be a non-empty list of table ids');
  if (typeof b.throughPosition !== 'string' || !/^\d{1,19}$/.test(b.throughPosition)) refuse('throughPosition must be a global position (decimal string)');
  if (b.trigger !== 'MANAGER' && b.trigger !== 'AUTOMATIC') refuse('trigger must be MANAGER or AUTOMATIC');
  if (b.early !== null && !isObject(b.early)) refuse('early must be null or an early-close approval');
  if (!isObject(b.gamingDayRule)) refuse('gamingDayRule must be an object');
  for (const list of ['rows', 'totals', 'adjustments'] as const) if (!Array.isArray(b[list]) || !(b[list] as unknown[]).every(isObject)) refuse(`${list} must be a list of objects`);
}

function checkManifest(b: Record<string, unknown>, keyId: string): void {
  exactFields(b, MANIFEST_FIELDS, 'an export manifest');
  if (typeof b.format !== 'string' || !MANIFEST_FORMAT.test(b.format)) refuse('format must be baccarat-ledger-export/<n>');
  header(b.header, 'export.bundle');
  if (b.keyId !== keyId) refuse(`keyId must be the signer's key, ${keyId}`);
  if (typeof b.ledgerId !== 'string' || b.ledgerId.length === 0) refuse('ledgerId must be a non-empty string');
  if (!isObject(b.period) || typeof b.period.from !== 'string' || typeof b.period.to !== 'string') refuse('period must be { from, to }');
  if (!isObject(b.positions)) refuse('positions must be an object');
  if (!Array.isArray(b.files) || b.files.length === 0 || !b.files.every(isObject)) refuse('files must be a non-empty list of files');
  if (!Array.isArray(b.anchors) || !b.anchors.every(isObject)) refuse('anchors must be a list of checkpoints');
  if (typeof b.signedAt !== 'string' || Number.isNaN(Date.parse(b.signedAt))) refuse('signedAt must be an ISO-8601 time');
}

function checkReceipt(b: Record<string, unknown>): void {
  exactFields(b, RECEIPT_FIELDS, 'an export receipt');
  if (b.receipt !== RECEIPT_SEAL_FORMAT) refuse(`receipt must be ${RECEIPT_SEAL_FORMAT}`);
  if (typeof b.id !== 'string' || !/^[0-9a-f-]{36}$/.test(b.id)) refuse('id must be a UUID');
  if (typeof b.actorId !== 'string' || b.actorId.length === 0) refuse('actorId must be a non-empty string');
  if (typeof b.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(b.sha256)) refuse('sha256 must be 64 lower-case hex');
  for (const n of ['rows', 'bytes'] as const) if (!Number.isSafeInteger(b[n]) || (b[n] as number) < 0) refuse(`${n} must be a non-negative integer`);
  if (!isObject(b.period) || typeof b.period.from !== 'string' || typeof b.period.to !== 'string') refuse('period must be { from, to }');
  if (!isObject(b.positions) || !isObject(b.header)) refuse('positions and header must be objects');
}

/**
 * A signing request, checked: `{ kind, body }` and nothing else, a known kind, a body of that kind's
 * shape ({@link SIGNING_KINDS}).
 * @param keyId the signer's key id (an export manifest must name it)
 * @throws SigningRefusal `SIGNER.MALFORMED_REQUEST` naming the problem
 */
export function checkSigningRequest(value: unknown, keyId: string): SigningRequest {
  if (!isObject(value)) refuse('the request must be a JSON object { kind, body }');
  exactFields(value, ['body', 'kind'], 'a signing request');
  const kind = value.kind;
  if (!SIGNING_KINDS.includes(kind as SigningKind)) refuse(`kind must be one of ${SIGNING_KINDS.join(', ')}`);
  if (!isObject(value.body)) refuse('body must be a JSON object');
  if (kind === 'gaming-day-close') checkClose(value.body);
  else if (kind === 'export-receipt') checkReceipt(value.body);
  else checkManifest(value.body, keyId);
  return { kind: kind as SigningKind, body: value.body };
}

/** What the signer's log says a signed document is (its day and tables, its bundle's ledger and period, or its receipt and who asked). */
export function signingSubject(r: SigningRequest): Record<string, unknown> {
  const b = r.body;
  if (r.kind === 'gaming-day-close') return { gamingDay: b.gamingDay, tableIds: b.tableIds, throughPosition: b.throughPosition, trigger: b.trigger };
  if (r.kind === 'export-receipt') return { receiptId: b.id, actorId: b.actorId, kind: b.kind, period: b.period };
  return { ledgerId: b.ledgerId, period: b.period, files: (b.files as unknown[]).length };
}
