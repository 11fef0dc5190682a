import { catalogueCounter } from '@ledger/metrics';

/** What the API verified: a stream's or a table's hash chain, or the ledger against its anchors. */
export type VerificationKind = 'chain' | 'anchor' | 'stream_anchor';

/**
 * Runs one verification and counts its result in `ledger_verifications_total{kind,result}`
 * (docs/architecture.md §8): `ok` when the report says `ok: true`, `mismatch` when it says
 * `ok: false` (a problem found: tamper evidence, docs/guarantees.md §8), `error` when `run` threw
 * (refused, timed out, database down). Never counts ids or payloads.
 * @param kind `chain` (GET /shoes/{id}/chain, GET /tables/{id}/chain) or `anchor` (GET /anchors/verify)
 * @param run the verification; its report must carry `ok: boolean`
 * @returns the report of `run`, unchanged
 * @throws whatever `run` throws (counted as `error` first)
 */
export async function countVerification<R extends { ok: boolean }>(kind: VerificationKind, run: () => Promise<R>): Promise<R> {
  const verifications = catalogueCounter('verifications');
  try {
    const report = await run();
    verifications.inc({ kind, result: report.ok ? 'ok' : 'mismatch' });
    return report;
  } catch (err) {
    verifications.inc({ kind, result: 'error' });
    throw err;
  }
}
