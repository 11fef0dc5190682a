import type { OpenAPIObject } from '@nestjs/swagger';
import { errorCodeEntries, errorResponseSchema, renderErrorTableMarkdown } from '@ledger/errors';

/** The OpenAPI component every error response refers to. */
export const ERROR_RESPONSE_SCHEMA = 'ErrorResponse';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * `doc` with the error table in it (docs/architecture.md §4), all generated from `ERROR_TABLE`:
 * - `components.schemas.ErrorResponse`: the body `{ error: { code, message, details }, correlationId }`
 *   with `code` an enum of every code;
 * - `x-error-codes`: every code with its status, kind, message template and who raises it;
 * - the table in Markdown at the end of `info.description`;
 * - every operation's `default` response (unless it names one) refers to `ErrorResponse`.
 * The document is changed in place and returned.
 */
export function withErrorTable(doc: OpenAPIObject): OpenAPIObject {
  doc.components = doc.components ?? {};
  doc.components.schemas = { ...(doc.components.schemas ?? {}), [ERROR_RESPONSE_SCHEMA]: errorResponseSchema() };
  (doc as OpenAPIObject & { 'x-error-codes': unknown })['x-error-codes'] = errorCodeEntries();
  doc.info.description = `${doc.info.description ?? ''}\n\n## Errors\n\n${renderErrorTableMarkdown()}\n`.trimStart();
  const ref = { $ref: `#/components/schemas/${ERROR_RESPONSE_SCHEMA}` };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      op.responses = op.responses ?? {};
      if (!op.responses.default) {
        op.responses.default = { description: 'an error: its `code` and HTTP status are in `x-error-codes`', content: { 'application/json': { schema: ref } } };
      }
    }
  }
  return doc;
}
