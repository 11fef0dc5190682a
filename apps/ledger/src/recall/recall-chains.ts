/**
 * The recall's pure helpers (`GET /shoes/:shoeId/rounds/:roundId/recall`, live and as of a
 * position): the four-eyes chains of the decisions that concern a round, and the evidence of an event.
 */

/** One management decision as recall shows it: who requested, who approved or rejected, why, when. */
export interface RecallDecision {
  decisionId: string;
  kind: string;
  status: 'PENDING_APPROVAL' | 'APPROVED' | 'REJECTED' | 'EXPIRED';
  requestedBy: string;
  requestedAt: string;
  reason: string;
  decidedBy: string | null;
  decidedAt: string | null;
  decisionReason: string | null;
  /** The requester's evidence (docs/reports.md §7), or null. */
  evidence: EvidenceView | null;
  /** The approving or rejecting manager's evidence, or null. */
  decisionEvidence: EvidenceView | null;
  /** eventIds of the steps, in order. */
  steps: string[];
}

/**
 * The four-eyes chains of the decisions among a round's audit rows (docs/domain-rules.md §6),
 * in request order. A pending decision is reported as such (its expiry is in `GET /decisions/{id}`).
 */
export function decisionChains(rows: ReadonlyArray<Record<string, any>>): RecallDecision[] {
  const out = new Map<string, RecallDecision>();
  for (const r of rows) {
    const d = r.data ?? {};
    if (r.type === 'DecisionRequested') {
      out.set(d.decisionId, {
        decisionId: d.decisionId,
        kind: d.proposal?.kind,
        status: 'PENDING_APPROVAL',
        requestedBy: d.requestedBy,
        requestedAt: r.recorded_at,
        reason: d.reason,
        decidedBy: null,
        decidedAt: null,
        decisionReason: null,
        evidence: evidenceView(d.evidence),
        decisionEvidence: null,
        steps: [r.event_id],
      });
      continue;
    }
    const v = out.get(d.decisionId);
    if (!v || !['DecisionApproved', 'DecisionRejected', 'DecisionExpired'].includes(r.type)) continue;
    v.steps.push(r.event_id);
    v.decidedAt = r.recorded_at;
    v.status = r.type === 'DecisionApproved' ? 'APPROVED' : r.type === 'DecisionRejected' ? 'REJECTED' : 'EXPIRED';
    v.decidedBy = d.approvedBy ?? d.rejectedBy ?? null;
    v.decisionReason = d.reason ?? null;
    v.decisionEvidence = evidenceView(d.evidence);
  }
  return [...out.values()];
}

/** Evidence as recall shows it (docs/reports.md §7): every field present, null when not given. */
export interface EvidenceView {
  cameraId: string | null;
  timecode: string | null;
  segmentRef: string | null;
}

/** The {@link EvidenceView} of an event's `evidence` value, or null when there is none. */
export function evidenceView(v: unknown): EvidenceView | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const s = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : null);
  return { cameraId: s('cameraId'), timecode: s('timecode'), segmentRef: s('segmentRef') };
}
