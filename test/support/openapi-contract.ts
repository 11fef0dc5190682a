import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import addFormats from 'ajv-formats';
import OpenAPIBackend, { type Document, type Operation } from 'openapi-backend';

/**
 * The API's OpenAPI document as a contract (docs/architecture.md §4): every answer the e2e and
 * attack specs receive from the ledger is checked against docs/openapi.json (the committed file;
 * test/e2e/openapi-file.e2e.spec.ts checks it equals what `/docs-json` serves) with
 * openapi-backend. test/support/contract.setup.ts wraps `fetch` with {@link ResponseContract.check}
 * for every spec of the e2e project and fails a spec whose answers break the document.
 */

/** A response as the contract sees it: status, `content-type` header, body text (`null`: not read, e.g. a stream). */
export interface SeenResponse {
  readonly method: string;
  /** Path and query, e.g. `/shoes?limit=5`. */
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: string | null;
}

/** The outcome of one check: `kind` = what the check covered, `problems` empty when the answer fits. */
export interface ContractVerdict {
  readonly kind: 'json' | 'csv' | 'sse' | 'text' | 'error-unrouted' | 'outside';
  readonly problems: string[];
}

/**
 * Paths the ledger serves outside the API document, each checked for what it is: the document
 * itself and Swagger UI (`/docs…`), and the console's static files (`/console…`).
 */
// the console's files, Swagger UI, and the topics' JSON Schemas (GET /schemas/..., public files described by the AsyncAPI document, test/e2e/schemas.e2e.spec.ts)
const OUTSIDE_DOCUMENT = [/^\/docs(?:[-/].*)?$/, /^\/console(?:\/.*)?$/, /^\/schemas(?:\/.*)?$/, /^\/$/];

/**
 * The document's schemas made strict for the check: an object schema with declared `properties` and
 * no `additionalProperties` admits no other field (a field the API answers and the document does
 * not name is a violation). Nothing else is changed: the document is OpenAPI 3.1 (JSON Schema
 * 2020-12), whose "or null" (`type: [t, "null"]`, `oneOf: [$ref, {type: "null"}]`) the validator
 * reads as written. Returns a deep copy.
 */
function strict(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(strict);
  if (!s || typeof s !== 'object') return s;
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s as Record<string, unknown>)) {
    o[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([p, x]) => [p, strict(x)])) : strict(v);
  }
  if (o.properties && o.additionalProperties === undefined) o.additionalProperties = false;
  return o;
}

/** The committed document (docs/openapi.json). */
export function committedDocument(): Document {
  return JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8')) as Document;
}

/**
 * Checks answers against an OpenAPI document. For an answer of an operation of the document:
 * its status must be one the operation lists (no `default` fallback), its content type one that
 * status lists; a JSON body is validated against the status's schema (openapi-backend's
 * `validateResponse`, objects strict); a CSV body must be text with a header line; an SSE stream
 * (`text/event-stream`) is checked by status and type only (its body is never read: it does not
 * end); other text (metrics) must be non-empty. An answer on no route of the document (an
 * unknown path or method) must be a documented error body (`ErrorResponse`) with a 4xx status.
 */
export class ResponseContract {
  private readonly api: OpenAPIBackend;
  /** The operation of each method and path seen (`null`: none), as matching costs ~2 ms. */
  private readonly routes = new Map<string, Operation | null>();
  /** Count of answers checked, by kind. */
  readonly counts: Record<ContractVerdict['kind'], number> = { json: 0, csv: 0, sse: 0, text: 0, 'error-unrouted': 0, outside: 0 };

  private constructor(private readonly doc: Document) {
    this.api = new OpenAPIBackend({
      definition: strict(doc) as Document,
      strict: false,
      quick: true,
      validate: true,
      ajvOpts: { strict: false, allErrors: true },
      // formats (date-time, date, uuid, …) are checked, not ignored
      customizeAjv: (ajv) => {
        addFormats(ajv as unknown as Parameters<typeof addFormats>[0]);
        return ajv;
      },
    });
  }

  /** A contract over `doc` (default: the committed docs/openapi.json), ready to check. */
  static async create(doc: Document = committedDocument()): Promise<ResponseContract> {
    const c = new ResponseContract(doc);
    await c.api.init();
    return c;
  }

  /** The verdict on one answer (see the class). */
  check(r: SeenResponse): ContractVerdict {
    const u = new URL(r.url, 'http://ledger.invalid');
    // every route is also served under /v1 (docs/api-versioning.md): the same operation of the document
    if (u.pathname === '/v1' || u.pathname.startsWith('/v1/')) u.pathname = u.pathname.slice(3) || '/';
    const where = `${r.method} ${u.pathname}${u.search} → ${r.status} ${r.contentType || '(no content-type)'}`;
    const problems: string[] = [];
    const key = `${r.method} ${u.pathname}`;
    let op = this.routes.get(key);
    if (op === undefined) {
      op = this.api.matchOperation({ method: r.method.toLowerCase(), path: u.pathname, headers: {} }) ?? null;
      if (this.routes.size < 10_000) this.routes.set(key, op);
    }
    if (!op) {
      if (OUTSIDE_DOCUMENT.some((re) => re.test(u.pathname)) && r.method === 'GET') {
        return this.count({ kind: 'outside', problems: r.status >= 500 ? [`${where}: a server error`] : [] });
      }
      if (r.status < 400 || r.status >= 500) problems.push(`${where}: no operation of the document for this path and method, yet not a 4xx`);
      problems.push(...this.validateError(r, where));
      return this.count({ kind: 'error-unrouted', problems });
    }
    const responses = (op.responses ?? {}) as Record<string, { content?: Record<string, { schema?: unknown }> }>;
    const declared = responses[String(r.status)] ?? responses[`${Math.floor(r.status / 100)}XX`];
    if (!declared) {
      return this.count({ kind: 'json', problems: [`${where}: status ${r.status} is not documented for ${op.operationId} (documented: ${Object.keys(responses).join(', ')})`] });
    }
    const type = r.contentType.split(';')[0].trim().toLowerCase();
    const types = Object.keys(declared.content ?? {});
    if (types.length === 0) {
      if (r.body) problems.push(`${where}: the document declares no body for ${r.status}, the answer has one`);
      return this.count({ kind: 'json', problems });
    }
    if (!types.includes(type)) {
      return this.count({ kind: 'json', problems: [`${where}: content type ${type || '(none)'} is not documented for ${op.operationId} ${r.status} (documented: ${types.join(', ')})`] });
    }
    if (type === 'application/json') {
      if (!declared.content![type].schema) problems.push(`${where}: no schema documented for ${op.operationId} ${r.status}`);
      problems.push(...this.validateJson(op, r, where));
      return this.count({ kind: 'json', problems });
    }
    if (type.endsWith('+json')) {
      // a JSON media type of its own (a close's signed bytes): JSON with a documented schema
      if (!declared.content![type].schema) problems.push(`${where}: no schema documented for ${op.operationId} ${r.status} ${type}`);
      if (r.body !== null) {
        const parsed = this.parse(r, where);
        if (!parsed.ok) problems.push(parsed.problem);
      }
      return this.count({ kind: 'json', problems });
    }
    if (type === 'text/csv') {
      if (r.body === null || r.body.split('\n')[0].trim() === '') problems.push(`${where}: a CSV answer without a header line`);
      return this.count({ kind: 'csv', problems });
    }
    if (type === 'text/event-stream') return this.count({ kind: 'sse', problems });
    if (r.body !== null && r.body.length === 0) problems.push(`${where}: an empty ${type} body`);
    return this.count({ kind: 'text', problems });
  }

  private count(v: ContractVerdict): ContractVerdict {
    this.counts[v.kind] += 1;
    return v;
  }

  private parse(r: SeenResponse, where: string): { ok: true; value: unknown } | { ok: false; problem: string } {
    try {
      return { ok: true, value: JSON.parse(r.body ?? '') };
    } catch {
      return { ok: false, problem: `${where}: the body is not JSON: ${(r.body ?? '').slice(0, 120)}` };
    }
  }

  private validateJson(op: Operation, r: SeenResponse, where: string): string[] {
    const parsed = this.parse(r, where);
    if (!parsed.ok) return [parsed.problem];
    const result = this.api.validateResponse(parsed.value, op, r.status);
    return (result.errors ?? []).slice(0, 40).map((e) => `${where}: ${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)} — body ${(r.body ?? '').slice(0, 300)}`);
  }

  /** An answer on no route: must be `ErrorResponse` (validated with the schema of the document's components). */
  private validateError(r: SeenResponse, where: string): string[] {
    if (!r.contentType.toLowerCase().startsWith('application/json')) return [`${where}: an error answer that is not JSON`];
    const parsed = this.parse(r, where);
    if (!parsed.ok) return [parsed.problem];
    const ops = this.api.getOperations();
    // any operation's documented 404 is the one error schema (ErrorResponse)
    const withNotFound = ops.find((o) => (o.responses as Record<string, unknown> | undefined)?.['404']);
    if (!withNotFound) return [`${where}: no operation documents a 404 to check an unrouted answer against`];
    const result = this.api.validateResponse(parsed.value, withNotFound, 404);
    return (result.errors ?? []).slice(0, 10).map((e) => `${where}: ${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
