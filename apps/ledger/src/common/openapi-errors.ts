import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { errorCodeEntries, errorResponseSchema, renderErrorTableMarkdown, type ErrorStatus } from '@ledger/errors';

/** The OpenAPI component every error response refers to. */
export const ERROR_RESPONSE_SCHEMA = 'ErrorResponse';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The statuses any route can answer with an error: a bad query (400), a fault (500), a database timeout (503). */
const ANY_ROUTE: readonly ErrorStatus[] = [400, 500, 503];
/** What a route behind the bearer token adds: no or a bad token (401), a role or table it may not use (403), a rate limit (429; `/health` and `/metrics` have none). */
const WITH_TOKEN: readonly ErrorStatus[] = [401, 403, 429];
/** What a route with a path parameter adds: an unknown table, shoe, round, bet, decision or event (404). */
const WITH_PATH_ID: readonly ErrorStatus[] = [404];
/** What a write (a body) adds: a conflict (409), a body too large (413) or unreadable (415), a refusal of the state or rules (422). */
const WITH_BODY: readonly ErrorStatus[] = [409, 413, 415, 422];

/** Whether an operation answers several media types by content negotiation (a success with more than one). */
const negotiated = (op: OperationObject): boolean => Object.entries(op.responses ?? {}).some(([s, r]) => s.startsWith('2') && Object.keys((r as ResponseObject).content ?? {}).length > 1);

/** Component name of the shared error response of `status` (`Error404`). */
const responseName = (status: number): string => `Error${status}`;

/**
 * The shared error responses (`components.responses.Error400` …): each refers to `ErrorResponse`
 * and carries one example per code of the error table that answers with its status (the code,
 * its message template and an example correlation id), so a client sees every refusal it may meet.
 */
function errorResponses(): Record<string, ResponseObject> {
  const byStatus = new Map<number, ReturnType<typeof errorCodeEntries>>();
  for (const e of errorCodeEntries()) {
    if (e.raisedBy.every((r) => r === 'projections' || r === 'cli' || r === 'config' || r === 'signer')) continue; // never an answer of the API
    byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e]);
  }
  const out: Record<string, ResponseObject> = {};
  for (const [status, entries] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[responseName(status)] = {
      description: `an error: ${entries.map((e) => `\`${e.code}\``).join(', ')} (see \`x-error-codes\`)`,
      content: {
        'application/json': {
          schema: { $ref: `#/components/schemas/${ERROR_RESPONSE_SCHEMA}` },
          examples: Object.fromEntries(entries.map((e) => [e.code, { summary: e.kind, value: { error: { code: e.code, message: e.message, details: {} }, correlationId: '0b7c9a2e-5d41-4b8e-9f3a-2c6d8e1f4a70' } }])),
        },
      },
    };
  }
  return out;
}

/**
 * `doc` with the error table in it (docs/architecture.md §4), all generated from `ERROR_TABLE`:
 * - `components.schemas.ErrorResponse`: the body `{ error: { code, message, details }, correlationId }`
 *   with `code` an enum of every code;
 * - `components.responses.Error<status>`: that body for each status of the table, with an
 *   example of each of its codes;
 * - `x-error-codes`: every code with its status, kind, message template and who raises it;
 * - the table in Markdown at the end of `info.description`;
 * - every operation lists each error status it can answer with (no `default`: a status the
 *   document does not list is a break of the contract the e2e tier checks): 400, 500, 503 on every
 *   route; 401, 403 and 429 behind the token; 404 with a path parameter; 406 where the success has several
 *   media types (content negotiation); 409, 413, 415, 422 on a write (POST), and
 *   409 on `GET /audit/anchors/verify` (a verification already running), 404 and 422 on
 *   `GET /exports/manifest` (an unknown receipt, receipts that make no bundle), 404 on
 *   `GET /statistics/fairness` (an unknown `tableId`). A status the operation
 *   already documents is kept.
 * The document is changed in place and returned.
 */
export function withErrorTable(doc: OpenAPIObject): OpenAPIObject {
  doc.components = doc.components ?? {};
  doc.components.schemas = { ...(doc.components.schemas ?? {}), [ERROR_RESPONSE_SCHEMA]: errorResponseSchema() };
  const shared = errorResponses();
  doc.components.responses = { ...(doc.components.responses ?? {}), ...shared };
  (doc as OpenAPIObject & { 'x-error-codes': unknown })['x-error-codes'] = errorCodeEntries();
  doc.info.description = `${doc.info.description ?? ''}\n\n## Errors\n\n${renderErrorTableMarkdown()}\n`.trimStart();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const m of METHODS) {
      const op = item[m] as OperationObject | undefined;
      if (!op) continue;
      const statuses = new Set<number>([...ANY_ROUTE, ...(op.security?.length ? WITH_TOKEN : []), ...(path.includes('{') ? WITH_PATH_ID : []), ...(m === 'post' ? WITH_BODY : [])]);
      // content negotiation (answerFormat): an Accept naming none of the success's media types is 406
      if (negotiated(op)) statuses.add(406);
      if (path === '/audit/anchors/verify') statuses.add(409);
      if (path === '/exports/manifest') for (const s of [404, 422]) statuses.add(s);
      if (path === '/statistics/fairness') statuses.add(404);
      // asOf (docs/reports.md §3): 409 ASOF.NOT_PROJECTED until the read model reaches the position
      if (op.parameters?.some((p) => 'name' in p && p.name === 'asOf')) statuses.add(409);
      const responses: Record<string, unknown> = { ...(op.responses ?? {}) };
      delete responses.default;
      for (const s of [...statuses].sort((a, b) => a - b)) {
        if (!responses[String(s)] && shared[responseName(s)]) responses[String(s)] = { $ref: `#/components/responses/${responseName(s)}` };
      }
      op.responses = responses as OperationObject['responses'];
    }
  }
  return doc;
}
