import { exec, type Queryable } from './sql';

/**
 * What the API records in `integrity_incidents` (docs/reports.md §2) when it refuses to sign
 * because something a service login can write disagrees with what only the ledger could have made:
 * - `READ_MODEL_DIVERGED`: a close's entries disagree with the verified events;
 * - `EXPORT_RECEIPT_UNSEALED`: an export receipt without a seal that verifies (docs/reports.md §5).
 */
export type IntegrityIncidentKind = 'READ_MODEL_DIVERGED' | 'EXPORT_RECEIPT_UNSEALED';

/** One incident: its kind, the error code answered, what it is about, and the details (JSON). */
export interface IntegrityIncident {
  readonly kind: IntegrityIncidentKind;
  readonly code: string;
  /** What the incident is about, in words (`gaming-day 2026-01-05 T-1`, a receipt id). */
  readonly subject: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** Appends one incident (the table is append-only; the API's login may only insert and read). */
export async function recordIncident(q: Queryable, i: IntegrityIncident): Promise<void> {
  await exec(q, `INSERT INTO integrity_incidents (kind, code, subject, details) VALUES ($1, $2, $3, $4::jsonb)`, [i.kind, i.code, i.subject, JSON.stringify(i.details)]);
}
