import { fillPath, type ApiFieldSpec, type ApiHttpRequest } from './api-commands';

/**
 * The second pair of eyes, as the API's clients speak it (docs/domain-rules.md §6): a management
 * command (`voidRound`, `correctResult`, `voidShoe`, `correctCommencement`, see `api-commands.ts`)
 * is the *request* of one pit manager, answered 202 with a pending decision; a *different* pit
 * manager then approves or rejects it with their own token. The approver is the token's subject,
 * never a body field. Read routes: `GET /decisions?status=…`, `GET /decisions/{decisionId}`.
 *
 * Pure data and functions: no I/O.
 */

/** Lifecycle of a decision: pending until approved, rejected or expired (the last three are final). */
export type ApiDecisionStatus = 'PENDING_APPROVAL' | 'APPROVED' | 'REJECTED' | 'EXPIRED';

/** Every decision status, in lifecycle order (the values of `GET /decisions?status=`). */
export const API_DECISION_STATUSES: readonly ApiDecisionStatus[] = ['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'EXPIRED'];

/** The fields of the acts a second pit manager does on a pending decision. */
export interface ApiDecisionActFields {
  /** Approve: the compensating events are recorded (201 `APPROVED`). `reason`: an optional remark. */
  approveDecision: { readonly decisionId: string; readonly reason?: string };
  /** Reject, with a reason: nothing changes (201 `REJECTED`). */
  rejectDecision: { readonly decisionId: string; readonly reason: string };
}

/** The kind of an act on a decision. */
export type ApiDecisionActKind = keyof ApiDecisionActFields;

/** One act of kind `K`. */
export type ApiDecisionActOf<K extends ApiDecisionActKind> = { readonly kind: K } & ApiDecisionActFields[K];

/** Any act on a decision. */
export type ApiDecisionAct = { [K in ApiDecisionActKind]: ApiDecisionActOf<K> }[ApiDecisionActKind];

/** The definition of one act: route, role (always a pit manager), fields, and the status it leads to. */
export interface ApiDecisionActSpec<K extends ApiDecisionActKind> {
  readonly role: 'pit-manager';
  readonly method: 'POST';
  /** Path template; `{decisionId}` is the act's field, URI-encoded. */
  readonly path: string;
  /** Every field, in body order (`decisionId` is in the path, not the body). */
  readonly fields: { readonly [F in keyof ApiDecisionActFields[K]]-?: ApiFieldSpec };
  /** The decision's status once the act is answered (201). */
  readonly leadsTo: ApiDecisionStatus;
}

/** The acts on a pending decision: approval and rejection, each by a pit manager other than the requester. */
export const API_DECISION_ACTS: { readonly [K in ApiDecisionActKind]: ApiDecisionActSpec<K> } = {
  approveDecision: {
    role: 'pit-manager',
    method: 'POST',
    path: '/decisions/{decisionId}/approve',
    fields: { decisionId: { type: 'id' }, reason: { type: 'reason', optional: true } },
    leadsTo: 'APPROVED',
  },
  rejectDecision: { role: 'pit-manager', method: 'POST', path: '/decisions/{decisionId}/reject', fields: { decisionId: { type: 'id' }, reason: { type: 'reason' } }, leadsTo: 'REJECTED' },
};

/** Every act kind, in documentation order. */
export const API_DECISION_ACT_KINDS = Object.keys(API_DECISION_ACTS) as readonly ApiDecisionActKind[];

/** The HTTP request of an act on a decision. */
export interface ApiDecisionActRequest extends ApiHttpRequest {
  readonly kind: ApiDecisionActKind;
  readonly role: 'pit-manager';
}

/**
 * The HTTP request of an act: its route with the decision id filled in (URI-encoded) and a body
 * of the fields the path does not name (absent optional ones left out). Nothing else is sent: the
 * approver is the subject of the token the request is sent with.
 */
export function decisionActRequestOf(a: ApiDecisionAct): ApiDecisionActRequest {
  const spec = API_DECISION_ACTS[a.kind] as ApiDecisionActSpec<ApiDecisionActKind>;
  const v = a as unknown as Record<string, unknown>;
  const { path, named } = fillPath(spec.path, v);
  const body: Record<string, unknown> = {};
  for (const field of Object.keys(spec.fields)) if (!named.has(field) && v[field] !== undefined) body[field] = v[field];
  return { kind: a.kind, method: spec.method, role: spec.role, path, body };
}

/** `POST /decisions/{decisionId}/approve`, with an optional remark of the approver (3–500 characters). */
export function approvalRequestOf(decisionId: string, reason?: string): ApiDecisionActRequest {
  return decisionActRequestOf({ kind: 'approveDecision', decisionId, reason });
}

/** One event as a write's answer names it. */
export interface ApiAnsweredEvent {
  readonly eventId: string;
  readonly type: string;
  readonly streamVersion: number;
  /** Decimal string. */
  readonly globalPosition?: string;
  readonly data?: Record<string, unknown>;
}

/**
 * The answer of a management request (202 `PENDING_APPROVAL`, its only event `DecisionRequested`)
 * or of an approval or rejection (201 `APPROVED`: `DecisionApproved` then the compensating events;
 * 201 `REJECTED`: `DecisionRejected`).
 */
export interface ApiDecisionAnswer {
  readonly decisionId: string;
  readonly status: ApiDecisionStatus;
  /** ISO-8601 ledger time after which a pending request can no longer be approved (requests only). */
  readonly expiresAt?: string;
  readonly shoeId?: string;
  readonly tableId?: string;
  readonly streamVersion?: number;
  readonly events?: readonly ApiAnsweredEvent[];
}

/**
 * The pending decision a write's answer names, or null when the answer is no pending decision
 * (a table fact's answer, an approval's, or a ledger that decides management commands at once).
 */
export function pendingDecisionOf(answer: unknown): { readonly decisionId: string; readonly expiresAt: string | null } | null {
  if (typeof answer !== 'object' || answer === null) return null;
  const a = answer as Partial<Record<keyof ApiDecisionAnswer, unknown>>;
  if (a.status !== 'PENDING_APPROVAL' || typeof a.decisionId !== 'string' || a.decisionId === '') return null;
  return { decisionId: a.decisionId, expiresAt: typeof a.expiresAt === 'string' ? a.expiresAt : null };
}

/** Filters of `GET /decisions` (pit-manager and auditor roles). */
export interface ApiDecisionQuery {
  readonly status?: ApiDecisionStatus;
  readonly shoeId?: string;
  readonly tableId?: string;
  /** Only the decisions this pit manager requested. */
  readonly requestedBy?: string;
}

/** The path of `GET /decisions` with the given filters (URI-encoded, in this order: status, shoeId, tableId, requestedBy). */
export function decisionsPathOf(q: ApiDecisionQuery = {}): string {
  const params = (['status', 'shoeId', 'tableId', 'requestedBy'] as const).filter((k) => q[k] !== undefined).map((k) => `${k}=${encodeURIComponent(String(q[k]))}`);
  return params.length ? `/decisions?${params.join('&')}` : '/decisions';
}

/** The path of `GET /decisions/{decisionId}`: one decision with its request, affected bets and steps. */
export function decisionPathOf(decisionId: string): string {
  return `/decisions/${encodeURIComponent(decisionId)}`;
}
