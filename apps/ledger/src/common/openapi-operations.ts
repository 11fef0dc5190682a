import type { OpenAPIObject } from '@nestjs/swagger';
import { ROLES_EXTENSION } from '../kernel/auth/roles.decorator';

/**
 * The names, tags, servers and response headers of the API's OpenAPI document (docs/api-versioning.md
 * §6), written by hand so that a generated client does not change when a class is renamed or a route
 * moves between files: a client calls `placeBets`, never `PlaceBetsController_place`.
 */

/** Every operation of the API by `METHOD /path`: its operationId (stable: renaming one is a breaking change, docs/api-versioning.md §2). */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /health': 'getHealth',
  'GET /health/live': 'getLiveness',
  'GET /health/ready': 'getReadiness',
  'GET /metrics': 'getMetrics',
  'GET /me': 'getMe',
  'POST /tables/{tableId}/shoes': 'openShoe',
  'POST /shoes/{shoeId}/commencement': 'drawCommencementCard',
  'POST /shoes/{shoeId}/burns': 'burnCard',
  'POST /shoes/{shoeId}/commencement/corrections': 'correctCommencement',
  'POST /shoes/{shoeId}/cut-card': 'drawCutCard',
  'POST /shoes/{shoeId}/dealer': 'changeDealer',
  'POST /shoes/{shoeId}/close': 'closeShoe',
  'POST /shoes/{shoeId}/void': 'voidShoe',
  'POST /shoes/{shoeId}/rounds': 'openRound',
  'GET /shoes/{shoeId}/rounds': 'listShoeRounds',
  'POST /shoes/{shoeId}/rounds/{roundId}/bets': 'placeBet',
  'POST /shoes/{shoeId}/rounds/{roundId}/bets/batch': 'placeBets',
  'POST /shoes/{shoeId}/rounds/{roundId}/close-betting': 'closeBetting',
  'POST /shoes/{shoeId}/rounds/{roundId}/cards': 'dealCard',
  'POST /shoes/{shoeId}/rounds/{roundId}/unneeded-cards': 'drawUnneededCard',
  'POST /shoes/{shoeId}/exposed-cards': 'exposeCard',
  'POST /shoes/{shoeId}/dropped-cards': 'dropCard',
  'POST /shoes/{shoeId}/rounds/{roundId}/void': 'voidRound',
  'POST /shoes/{shoeId}/rounds/{roundId}/result-corrections': 'correctResult',
  'GET /tables': 'listTables',
  'GET /shoes/{shoeId}/events': 'getShoeEvents',
  'GET /shoes/{shoeId}/chain': 'verifyShoeChain',
  'GET /tables/overview': 'getTablesOverview',
  'GET /shoes': 'listShoes',
  'GET /shoes/{shoeId}/rounds/{roundId}/recall': 'recallRound',
  'GET /audit/events': 'listAuditEvents',
  'GET /audit/decisions': 'listAuditDecisions',
  'GET /audit/access-log': 'listAccessLog',
  'GET /settlements': 'listSettlements',
  'GET /settlements/{betId}': 'getSettlement',
  'GET /reports/reconciliation': 'getReconciliation',
  'GET /shoes/{shoeId}/roads': 'getShoeRoads',
  'GET /shoes/{shoeId}/state': 'getShoeState',
  'GET /tables/{tableId}/chain': 'verifyTableChain',
  'GET /projections/status': 'getProjectionStatus',
  'GET /projections/applied/{eventId}': 'getEventApplied',
  'GET /audit/anchors/verify': 'verifyAnchors',
  'POST /decisions/{decisionId}/approve': 'approveDecision',
  'POST /decisions/{decisionId}/reject': 'rejectDecision',
  'GET /decisions': 'listDecisions',
  'GET /decisions/{decisionId}': 'getDecision',
  'GET /live/tables': 'streamLiveTables',
  'GET /asyncapi': 'getAsyncApi',
  'GET /statistics/staff': 'getStaffStatistics',
  'GET /statistics/fairness': 'getFairnessStatistics',
  'GET /exports/anchors': 'getExportAnchors',
  'GET /exports/manifest': 'signExportManifest',
  'GET /exports/{kind}': 'exportPeriod',
  'POST /reconciliation/wallet-files': 'uploadWalletFile',
  'GET /reconciliation/wallet-files': 'listWalletRuns',
  'GET /reconciliation/wallet-files/{runId}': 'getWalletRun',
  'GET /reconciliation/wallet-files/{runId}/items': 'listWalletRunItems',
  'POST /gaming-days/{day}/close': 'closeGamingDay',
  'GET /gaming-days/{day}/close': 'getGamingDayClose',
  'POST /gaming-days/{day}/close-requests/{requestId}/approve': 'approveEarlyClose',
  'GET /gaming-days/{day}/close-requests': 'listEarlyCloseRequests',
  'GET /gaming-days/closes': 'listGamingDayCloses',
  'GET /significant-events': 'listSignificantEvents',
  'GET /significant-events/live': 'streamSignificantEvents',
  'GET /significant-events/{significantEventId}': 'getSignificantEvent',
  'POST /significant-events/{significantEventId}/acknowledgements': 'acknowledgeSignificantEvent',
};

/** The document's tags, each with what it groups (every operation's tag must be one of them). */
export const TAGS: readonly { readonly name: string; readonly description: string }[] = [
  { name: 'table facts', description: 'What happens at the table, from the table device: shoes opened and closed, commencement, burns, cut card, rounds, cards dealt, exposed or dropped, dealer changes (docs/domain-rules.md).' },
  { name: 'bets', description: 'Bets from the betting platform, one or a batch a request, with idempotency keys (docs/domain-rules.md §4).' },
  { name: 'management', description: "A pit manager's compensating decisions: void a round or a shoe, correct a result or the commencement card — each waits for a second pit manager (four eyes)." },
  { name: 'decisions', description: 'The four-eyes decisions: list, read, approve, reject.' },
  { name: 'reads', description: "Read-only views every role may use: tables, a shoe's events and chain, projection progress, the caller, the AsyncAPI document." },
  {
    name: 'audit and reconciliation',
    description:
      'Back office and regulators: recall, audit trail, settlements, reconciliation (turnover, payouts, GGR, hold), roads, staff statistics, wallet matching, gaming-day closes, the live tables stream (docs/reports.md).',
  },
  { name: 'exports', description: "Regulators' exports of a period (events, settlements, decisions, rejections, access log), the anchors they verify against, and the signed bundle manifest (docs/reports.md §5)." },
  {
    name: 'significant events',
    description:
      'Significant events of the catalogue raised as ledger facts (voids, corrections, large wins, clock skew, early closes…): the searchable list, the live stream, and the acknowledgement by a second person (docs/significant-events.md).',
  },
  { name: 'Health', description: 'Liveness, readiness and the read side’s health (no token).' },
  { name: 'Metrics', description: 'Prometheus metrics (no token).' },
];

/** The servers a client may call: the API as the README's commands start it (PORT 3000). */
export const SERVERS = [{ url: 'http://127.0.0.1:3000', description: 'the ledger API as `npm start` and `npm run demo` run it (PORT); every route also under /v1' }];

/** The response headers the API sets, as OpenAPI header components. */
export const RESPONSE_HEADERS: Readonly<Record<string, { description: string; schema: Record<string, unknown> }>> = {
  'X-Request-Id': { description: "the request's id: the caller's X-Request-Id when it is 1..128 of [A-Za-z0-9._:-], else a new UUID (docs/api-versioning.md §4)", schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } },
  'API-Version': { description: 'the API version that answered (docs/api-versioning.md §1)', schema: { type: 'string', enum: ['1'] } },
  'Retry-After': { description: 'seconds to wait before trying again (429 rate limits and budgets, 503 DATABASE.TIMEOUT and LIMITS.UNAVAILABLE)', schema: { type: 'integer', minimum: 0 } },
  'Ledger-Report-Header': { description: "the report's header (ReportHeader) as ASCII JSON, where the body cannot carry it (CSV; docs/reports.md §1)", schema: { type: 'string' } },
  'Ledger-Export-Count': { description: 'the rows the export holds (decimal)', schema: { type: 'string', pattern: '^\\d+$' } },
  'Ledger-Export-Positions': { description: 'the global positions the export covers, as ASCII JSON `{first, periodLast, through}`', schema: { type: 'string' } },
  'X-Report-Signature': { description: "a close's Ed25519 signature (base64) of the bytes answered (`format=raw`, docs/reports.md §2)", schema: { type: 'string' } },
  'X-Report-Key-Id': { description: 'the id of the key that signed the close (`ed25519:` + 16 hex)', schema: { type: 'string' } },
  'X-Report-Sha256': { description: 'SHA-256 (64 hex) of the signed bytes answered', schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
  'Ledger-Export-Receipt': { description: "the export's receipt id (UUID), recorded after the last byte; GET /exports/manifest signs a bundle from it", schema: { type: 'string', format: 'uuid' } },
  'X-Correlation-Id': {
    description: "the request's correlation id, carried into every event it causes: the caller's X-Correlation-Id when it is at most 128 characters, else a new UUID",
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
  'X-RateLimit-Limit-caller': {
    description: "the caller's request budget per window (its role's `RATE_LIMIT_*`; docs/architecture.md §10); only when the request carried a valid bearer token to a route that needs one",
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining-caller': { description: "the requests left of the caller's budget in this window; only with a valid bearer token", schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset-caller': { description: "seconds until the caller's window ends and its budget is whole again; only with a valid bearer token", schema: { type: 'integer', minimum: 0 } },
  'Retry-After-caller': { description: "on a 429 of the caller's budget (`details.scope` `caller`): seconds until the caller's block ends", schema: { type: 'integer', minimum: 0 } },
  'Content-Disposition': { description: 'a download (CSV, an export): `attachment; filename="<name>"`; not on a JSON answer', schema: { type: 'string', pattern: '^attachment; filename="[^"]+"$' } },
};

/** Headers on every answer of every operation. */
const ALWAYS = ['X-Request-Id', 'API-Version', 'X-Correlation-Id'];
/** The caller budget's headers (`@nestjs/throttler`, throttler `caller`): on the answers of an operation that needs a token, once the guard counted the request. */
const RATE_LIMIT = ['X-RateLimit-Limit-caller', 'X-RateLimit-Remaining-caller', 'X-RateLimit-Reset-caller'];
/** Headers of a 429 or 503 answer, by status. */
const REFUSAL: Readonly<Record<string, readonly string[]>> = { '429': ['Retry-After', 'Retry-After-caller'], '503': ['Retry-After'] };
/** The extra headers of an operation's successful answer, by `METHOD /path`. */
const SUCCESS_HEADERS: Readonly<Record<string, readonly string[]>> = {
  'GET /reports/reconciliation': ['Ledger-Report-Header', 'Content-Disposition'],
  'GET /statistics/staff': ['Ledger-Report-Header', 'Content-Disposition'],
  'GET /reconciliation/wallet-files/{runId}/items': ['Ledger-Report-Header', 'Content-Disposition'],
  'GET /gaming-days/{day}/close': ['X-Report-Signature', 'X-Report-Key-Id', 'X-Report-Sha256', 'Content-Disposition'],
  'GET /exports/{kind}': ['Ledger-Report-Header', 'Ledger-Export-Count', 'Ledger-Export-Positions', 'Ledger-Export-Receipt', 'Content-Disposition'],
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
type Json = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Every `METHOD /path` of the document with its operation. */
function operations(doc: OpenAPIObject): [string, Json][] {
  const out: [string, Json][] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const m of METHODS) {
      const op = (item as Record<string, unknown>)[m] as Json | undefined;
      if (op) out.push([`${m.toUpperCase()} ${path}`, op]);
    }
  }
  return out;
}

/** `Allowed roles: …` (from `x-roles`) or `No token.`, after the summary. */
function describe(op: Json): string {
  const roles = op[ROLES_EXTENSION] as string[] | undefined;
  const who = roles?.length ? `Roles: ${roles.map((r) => `\`${r}\``).join(', ')}.` : 'No token needed.';
  const summary = typeof op.summary === 'string' ? op.summary.trim() : '';
  return summary ? `${summary.replace(/[.;]?$/, '.')} ${who}` : who;
}

/**
 * `doc` with the names above (docs/api-versioning.md §6): every operation's hand-written
 * `operationId` ({@link OPERATION_IDS}), a `description` (its summary and who may call it), its tag
 * among the document's {@link TAGS}; the {@link SERVERS}; the {@link RESPONSE_HEADERS} as components,
 * `X-Request-Id`, `API-Version` and `X-Correlation-Id` on every answer, the caller budget's
 * `X-RateLimit-*-caller` on every answer of an operation that needs a token (and on the shared error
 * answers), `Retry-After` on 429 and 503, the report, export and download headers on the answers
 * that set them. Changed in place and returned.
 * @throws Error naming an operation without a hand-written id, an id for no operation, or a tag not declared
 */
export function withOperationNames(doc: OpenAPIObject): OpenAPIObject {
  const ops = operations(doc);
  const problems: string[] = [];
  for (const [key, op] of ops) {
    const id = OPERATION_IDS[key];
    if (!id) problems.push(`${key} has no operationId in OPERATION_IDS`);
    else op.operationId = id;
    op.description = describe(op);
    for (const t of (op.tags as string[] | undefined) ?? []) if (!TAGS.some((d) => d.name === t)) problems.push(`${key}: tag ${t} is not declared in TAGS`);
    withHeaders(key, op, ((op[ROLES_EXTENSION] as string[] | undefined) ?? []).length > 0);
  }
  for (const key of Object.keys(OPERATION_IDS)) if (!ops.some(([k]) => k === key)) problems.push(`OPERATION_IDS names ${key}, which is no operation`);
  if (problems.length) throw new Error(`the OpenAPI document's operations: ${problems.join('; ')}`);
  doc.tags = TAGS.map((t) => ({ ...t }));
  doc.servers = SERVERS.map((s) => ({ ...s }));
  doc.components = { ...doc.components, headers: Object.fromEntries(Object.entries(RESPONSE_HEADERS).map(([n, h]) => [n, { ...h }])) };
  for (const [name, r] of Object.entries(doc.components.responses ?? {})) {
    const status = name.replace(/^Error/, '');
    (r as unknown as Json).headers = Object.fromEntries([...ALWAYS, ...RATE_LIMIT, ...(REFUSAL[status] ?? [])].map((h) => [h, ref(h)]));
  }
  return doc;
}

/** The headers of one operation's own (inline) answers; the shared error answers get theirs in {@link withOperationNames}. */
function withHeaders(key: string, op: Json, limited: boolean): void {
  for (const [status, r] of Object.entries((op.responses as Record<string, Json> | undefined) ?? {})) {
    if ('$ref' in r) continue;
    const names = [...ALWAYS, ...(limited ? RATE_LIMIT : []), ...(status.startsWith('2') ? (SUCCESS_HEADERS[key] ?? []) : []), ...(REFUSAL[status] ?? [])];
    r.headers = { ...((r.headers as Json | undefined) ?? {}), ...Object.fromEntries(names.map((h) => [h, ref(h)])) };
  }
}
