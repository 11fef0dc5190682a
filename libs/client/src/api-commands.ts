import type { Position } from '@ledger/rules';

/**
 * THE vocabulary of the ledger's HTTP API, as its clients speak it: one entry per write command,
 * with its kind, HTTP method, path template, token role, fields (and their value types) and
 * request body. The table-log line kinds (`libs/table-log`, TABLE_LOG_FORMAT.md), the simulator's
 * actions (`libs/simulator`) and the replayer's requests (`apps/replayer`) all come from here;
 * the server side of the same routes is `apps/ledger/src/shoe/*.controller.ts`.
 *
 * The management decisions (`voidRound`, `correctResult`, `voidShoe`, `correctCommencement`) are
 * four-eyes acts (docs/domain-rules.md §6): the command is the *request* of one pit manager (the
 * token's subject), answered 202 `PENDING_APPROVAL` with a `decisionId`; it takes effect only when
 * a different pit manager approves it with their own token (`approveDecision`, `decisions.ts`).
 * No body names an approver.
 *
 * Pure data and functions: no I/O (the senders are `LedgerClient` and the replayer).
 */

/** The token roles that write (an `auditor` only reads). */
export type ApiWriterRole = 'table-device' | 'betting-platform' | 'pit-manager';

/** One wager: `stake` in minor units of `currency`, as a decimal string (docs/domain-rules.md §4). */
export interface ApiBet {
  readonly betId: string;
  readonly accountId: string;
  /** A bet code of the table's variant (`PLAYER`, `BANKER`, `TIE`, `TIGER_PAIR`, …). */
  readonly betCode: string;
  /** Minor units (cents), decimal string of digits, e.g. `"2500"` = 25.00. */
  readonly stake: string;
  /** ISO 4217, the table's currency. */
  readonly currency: string;
}

/** The fields of a bet, in the order requests and lines carry them. */
export const API_BET_FIELDS = ['betId', 'accountId', 'betCode', 'stake', 'currency'] as const satisfies readonly (keyof ApiBet)[];

/**
 * The fields of each command besides the shoe (`shoeId`, on every command) and the optional
 * `occurredAt`. The order of this map is the documentation order of the kinds.
 */
export interface ApiCommandFields {
  openShoe: { readonly tableId: string; readonly dealerId: string };
  commencement: { readonly card: string };
  burn: { readonly card: string | null };
  openRound: { readonly roundId: string };
  closeBetting: { readonly roundId: string };
  deal: { readonly roundId: string; readonly position: Position; readonly card: string };
  unneeded: { readonly roundId: string; readonly card: string };
  expose: { readonly card: string; readonly phase?: 'SHUFFLE' };
  drop: { readonly card: string | null; readonly exposedBeforeLeavingView: boolean; readonly phase?: 'SHUFFLE' | 'SCOOPING' };
  cutCard: Record<never, never>;
  changeDealer: { readonly dealerId: string };
  closeShoe: Record<never, never>;
  bet: { readonly roundId: string } & ApiBet;
  bets: { readonly roundId: string; readonly bets: readonly ApiBet[] };
  voidRound: { readonly roundId: string; readonly reason: string };
  correctResult: { readonly roundId: string; readonly cards: readonly string[]; readonly reason: string };
  voidShoe: { readonly reason: string };
  correctCommencement: { readonly card: string; readonly reason: string };
}

/** The kind of a command (= the `kind` of a table-log line). */
export type ApiCommandKind = keyof ApiCommandFields;

/**
 * The commands that request a management decision (docs/domain-rules.md §6): sent by the
 * requesting pit manager, answered 202 `PENDING_APPROVAL`, in force once a second pit manager
 * approves them (`approveDecision`).
 */
export type ApiDecisionCommandKind = 'voidRound' | 'correctResult' | 'voidShoe' | 'correctCommencement';

/** What a management decision does, as the API names it (`kind` of a decision in `GET /decisions`). */
export type ApiDecisionKind = 'VOID_ROUND' | 'CORRECT_RESULT' | 'VOID_SHOE' | 'CORRECT_COMMENCEMENT';

/** Fields every command has. */
export interface ApiCommandBase {
  /** The shoe (its ledger stream is `shoe-<shoeId>`). */
  readonly shoeId: string;
  /** When it happened at the table, ISO-8601 with a zone; absent = when the ledger receives it. */
  readonly occurredAt?: string;
}

/** One command of kind `K`. */
export type ApiCommandOf<K extends ApiCommandKind> = { readonly kind: K } & ApiCommandBase & ApiCommandFields[K];

/** Any command. */
export type ApiCommand = { [K in ApiCommandKind]: ApiCommandOf<K> }[ApiCommandKind];

/**
 * The value type of a field: what the table-log validator checks (TABLE_LOG_FORMAT.md "Value
 * types", the same rules as the API's request DTOs). `{ oneOf }` is an enumeration.
 */
export type ApiFieldType =
  | 'id'
  | 'card'
  | 'cardOrNull'
  | 'position'
  | 'boolean'
  | 'reason'
  | 'betCode'
  | 'stake'
  | 'currency'
  /** 1–10,000 {@link ApiBet}s. */
  | 'bets'
  /** A round's 4–6 cards in dealing order. */
  | 'cards'
  | { readonly oneOf: readonly string[] };

/** A field of a command. */
export interface ApiFieldSpec {
  readonly type: ApiFieldType;
  /** Absent fields are not sent. @default false */
  readonly optional?: boolean;
}

/** The definition of one command. */
export interface ApiCommandSpec<K extends ApiCommandKind> {
  readonly role: ApiWriterRole;
  /**
   * Set on the management decisions only: the decision the command requests. Its answer is a
   * pending decision (202 `{ decisionId, status: "PENDING_APPROVAL", expiresAt, … }`); nothing
   * changes until a second pit manager approves it.
   */
  readonly decision?: ApiDecisionKind;
  readonly method: 'POST';
  /** Path template: `{name}` is the command's field `name`, URI-encoded (`/shoes/{shoeId}/rounds/{roundId}/cards`). */
  readonly path: string;
  /** Every field but `shoeId`/`occurredAt`, in the order lines and bodies carry them (a compile-time complete list). */
  readonly fields: { readonly [F in keyof ApiCommandFields[K]]-?: ApiFieldSpec };
  /**
   * The JSON body, when it is not the default: `shoeId` if the path does not name it, then every
   * field the path does not name, in field order (absent optional fields left out).
   */
  readonly body?: (c: ApiCommandOf<K>) => Record<string, unknown>;
}

/** Every management decision names its kind; no other command does (checked at compile time). */
type DecisionMark<K extends ApiCommandKind> = K extends ApiDecisionCommandKind ? { readonly decision: ApiDecisionKind } : { readonly decision?: never };

const id: ApiFieldSpec = { type: 'id' };
const card: ApiFieldSpec = { type: 'card' };
const reason: ApiFieldSpec = { type: 'reason' };
const BET: { readonly [F in keyof ApiBet]-?: ApiFieldSpec } = { betId: id, accountId: id, betCode: { type: 'betCode' }, stake: { type: 'stake' }, currency: { type: 'currency' } };

/**
 * Every write command of the API, in documentation order (table facts, bets, decisions). Adding
 * a command here (and to {@link ApiCommandFields}) gives the table log a new kind, the replayer a
 * new request and the simulator a new action; forgetting a field does not compile.
 */
export const API_COMMANDS: { readonly [K in ApiCommandKind]: ApiCommandSpec<K> & DecisionMark<K> } = {
  openShoe: { role: 'table-device', method: 'POST', path: '/tables/{tableId}/shoes', fields: { tableId: id, dealerId: id } },
  commencement: { role: 'table-device', method: 'POST', path: '/shoes/{shoeId}/commencement', fields: { card } },
  burn: { role: 'table-device', method: 'POST', path: '/shoes/{shoeId}/burns', fields: { card: { type: 'cardOrNull' } } },
  openRound: { role: 'table-device', method: 'POST', path: '/shoes/{shoeId}/rounds', fields: { roundId: id } },
  closeBetting: { role: 'table-device', method: 'POST', path: '/shoes/{shoeId}/rounds/{roundId}/close-betting', fields: { roundId: id } },
  deal: { role: 'table-device', method: 'POST', path: '/shoes/{shoeId}/rounds/{roundId}/cards', fields: { roundId: id, position: { type: 'position' }, card } },
  unneeded: { role: 'table-device', method: 'POST', path: '/shoes/{shoeId}/rounds/{roundId}/unneeded-cards', fields: { roundId: id, card } },
  expose: { role: 'table-device', method: 'POST', path: '/shoes/{shoeId}/exposed-cards', fields: { card, phase: { type: { oneOf: ['SHUFFLE'] }, optional: true } } },
  drop: {
    role: 'table-device',
    method: 'POST',
    path: '/shoes/{shoeId}/dropped-cards',
    fields: { card: { type: 'cardOrNull' }, exposedBeforeLeavingView: { type: 'boolean' }, phase: { type: { oneOf: ['SHUFFLE', 'SCOOPING'] }, optional: true } },
  },
  cutCard: { role: 'table-device', method: 'POST', path: '/shoes/{shoeId}/cut-card', fields: {} },
  changeDealer: { role: 'table-device', method: 'POST', path: '/shoes/{shoeId}/dealer', fields: { dealerId: id } },
  closeShoe: { role: 'table-device', method: 'POST', path: '/shoes/{shoeId}/close', fields: {} },
  bet: {
    role: 'betting-platform',
    method: 'POST',
    path: '/shoes/{shoeId}/rounds/{roundId}/bets',
    fields: { roundId: id, ...BET },
    body: (c) => ({ bet: pickBet(c) }),
  },
  bets: { role: 'betting-platform', method: 'POST', path: '/shoes/{shoeId}/rounds/{roundId}/bets/batch', fields: { roundId: id, bets: { type: 'bets' } } },
  voidRound: { role: 'pit-manager', method: 'POST', path: '/shoes/{shoeId}/rounds/{roundId}/void', fields: { roundId: id, reason }, decision: 'VOID_ROUND' },
  correctResult: {
    role: 'pit-manager',
    method: 'POST',
    path: '/shoes/{shoeId}/rounds/{roundId}/result-corrections',
    fields: { roundId: id, cards: { type: 'cards' }, reason },
    decision: 'CORRECT_RESULT',
  },
  voidShoe: { role: 'pit-manager', method: 'POST', path: '/shoes/{shoeId}/void', fields: { reason }, decision: 'VOID_SHOE' },
  correctCommencement: { role: 'pit-manager', method: 'POST', path: '/shoes/{shoeId}/commencement/corrections', fields: { card, reason }, decision: 'CORRECT_COMMENCEMENT' },
};

/** Every command kind, in documentation order. */
export const API_COMMAND_KINDS = Object.keys(API_COMMANDS) as readonly ApiCommandKind[];

/** The kinds sent as `role`, in documentation order. */
export function commandKindsOf(role: ApiWriterRole): readonly ApiCommandKind[] {
  return API_COMMAND_KINDS.filter((k) => API_COMMANDS[k].role === role);
}

/**
 * Whether a command requests a management decision (docs/domain-rules.md §6): answered 202
 * `PENDING_APPROVAL`, in force only once a second pit manager approves it.
 */
export function isDecisionCommandKind(kind: ApiCommandKind): kind is ApiDecisionCommandKind {
  return API_COMMANDS[kind].decision !== undefined;
}

/** The management decision kinds, in documentation order. */
export const API_DECISION_COMMAND_KINDS = API_COMMAND_KINDS.filter(isDecisionCommandKind) as readonly ApiDecisionCommandKind[];

/** Whether `kind` is a command of the API (own keys only). */
export function isApiCommandKind(kind: unknown): kind is ApiCommandKind {
  return typeof kind === 'string' && Object.hasOwn(API_COMMANDS, kind);
}

/** The fields of a kind, in order, with their specs. */
export function commandFields(kind: ApiCommandKind): readonly [string, ApiFieldSpec][] {
  return Object.entries(API_COMMANDS[kind].fields as Record<string, ApiFieldSpec>);
}

/** An HTTP write of the API: method, path (filled, encoded), token role and JSON body. */
export interface ApiHttpRequest {
  readonly method: 'POST';
  readonly role: ApiWriterRole;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/** The HTTP request of a command. */
export interface ApiRequest extends ApiHttpRequest {
  readonly kind: ApiCommandKind;
}

function pickBet(b: ApiBet): ApiBet {
  return { betId: b.betId, accountId: b.accountId, betCode: b.betCode, stake: b.stake, currency: b.currency };
}

/** A field's value as lines and bodies carry it: bets reduced to their five fields, lists copied. */
function valueOf(spec: ApiFieldSpec, v: unknown): unknown {
  if (spec.type === 'bets') return (v as readonly ApiBet[]).map(pickBet);
  if (spec.type === 'cards') return [...(v as readonly string[])];
  return v;
}

const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * A path template filled with `values` (each `{name}` replaced by `values[name]`, URI-encoded).
 * @returns the path and the names it used
 */
export function fillPath(template: string, values: Readonly<Record<string, unknown>>): { path: string; named: ReadonlySet<string> } {
  const named = new Set<string>();
  const path = template.replace(PLACEHOLDER, (_, name: string) => {
    named.add(name);
    return encodeURIComponent(String(values[name]));
  });
  return { path, named };
}

/**
 * The command with exactly its fields, in order: `kind`, `shoeId`, each field (absent optional
 * ones left out; bets reduced to their five fields), then `occurredAt` when given. Anything else
 * on the object (an `actor`, an extra property of a bet) is dropped.
 */
export function normalizeCommand<C extends ApiCommand>(c: C): C {
  const out: Record<string, unknown> = { kind: c.kind, shoeId: c.shoeId };
  const v = c as unknown as Record<string, unknown>;
  for (const [field, spec] of commandFields(c.kind)) if (v[field] !== undefined) out[field] = valueOf(spec, v[field]);
  if (c.occurredAt !== undefined) out.occurredAt = c.occurredAt;
  return out as C;
}

/**
 * The HTTP request that records a command: the route of its kind with the path filled in
 * (URI-encoded), its role, and its body (see {@link ApiCommandSpec.body}) with `occurredAt` last
 * when given. Nothing else is added (the API refuses unknown body fields). For a management
 * decision this is the request only: the approval is a second request by another pit manager
 * (`approvalRequestOf` with the answer's `decisionId`).
 */
export function apiRequestOf(c: ApiCommand): ApiRequest {
  const spec = API_COMMANDS[c.kind] as ApiCommandSpec<ApiCommandKind>;
  const v = c as unknown as Record<string, unknown>;
  const { path, named: inPath } = fillPath(spec.path, v);
  let body: Record<string, unknown>;
  if (spec.body) body = spec.body(c as never);
  else {
    body = {};
    if (!inPath.has('shoeId')) body.shoeId = c.shoeId;
    for (const [field, f] of commandFields(c.kind)) if (!inPath.has(field) && v[field] !== undefined) body[field] = valueOf(f, v[field]);
  }
  if (c.occurredAt !== undefined) body.occurredAt = c.occurredAt;
  return { kind: c.kind, method: spec.method, role: spec.role, path, body };
}
