import { ERROR_CODES, type ErrorCode } from './codes';
import { KIND_MEANING, KIND_STATUS, type ErrorKind } from './kinds';
import { ERROR_TABLE, type ErrorSource } from './table';

/** The markers between which docs/errors.md holds the generated error table. */
export const ERROR_TABLE_START = '<!-- error-table:start -->';
export const ERROR_TABLE_END = '<!-- error-table:end -->';

/** One code as the OpenAPI document's `x-error-codes` lists it. */
export interface ErrorCodeEntry {
  code: ErrorCode;
  status: number;
  kind: ErrorKind;
  message: string;
  raisedBy: ErrorSource[];
}

/** Every code of the table as a plain list (for `x-error-codes` and other machine readers). */
export function errorCodeEntries(): ErrorCodeEntry[] {
  return ERROR_CODES.map((code) => {
    const s = ERROR_TABLE[code];
    return { code, status: s.status, kind: s.kind, message: s.message, raisedBy: [...s.raisedBy] };
  });
}

const cell = (s: string): string => s.replace(/\|/g, '\\|');

/**
 * The error table as Markdown: the kinds with their status, then every code (in table order) with
 * its status, kind, message template and who raises it. Codes raised only off the HTTP path (the
 * read side, the CLI) are marked so.
 */
export function renderErrorTableMarkdown(): string {
  const kinds = (Object.keys(KIND_STATUS) as ErrorKind[]).map((k) => `| \`${k}\` | ${KIND_STATUS[k]} | ${cell(KIND_MEANING[k])} |`);
  const codes = ERROR_CODES.map((code) => {
    const s = ERROR_TABLE[code];
    const offHttp = s.raisedBy.every((r) => r === 'projections' || r === 'cli');
    return `| \`${code}\` | ${offHttp ? `(${s.status})` : s.status} | ${s.kind} | ${cell(s.message)} | ${s.raisedBy.join(', ')} |`;
  });
  return [
    'Generated from `libs/errors/src/table.ts` by `npx tsx scripts/gen-error-docs.ts`; do not edit by hand.',
    "`{name}` in a message is a field of the error's `details`. A status in parentheses is never an HTTP",
    'answer (the projector stops on it, or the CLI prints it for one input line).',
    '',
    '| kind | HTTP | meaning |',
    '|---|---|---|',
    ...kinds,
    '',
    '| code | HTTP | kind | message | raised by |',
    '|---|---|---|---|---|',
    ...codes,
  ].join('\n');
}

/**
 * `readme` with the text between {@link ERROR_TABLE_START} and {@link ERROR_TABLE_END} replaced by
 * {@link renderErrorTableMarkdown}.
 * @throws Error when the markers are missing, repeated or out of order
 */
export function spliceErrorTable(readme: string): string {
  const start = readme.indexOf(ERROR_TABLE_START);
  const end = readme.indexOf(ERROR_TABLE_END);
  if (start < 0 || end < start || readme.indexOf(ERROR_TABLE_START, start + 1) >= 0 || readme.indexOf(ERROR_TABLE_END, end + 1) >= 0) {
    throw new Error(`README needs exactly one ${ERROR_TABLE_START} … ${ERROR_TABLE_END} block`);
  }
  return `${readme.slice(0, start + ERROR_TABLE_START.length)}\n${renderErrorTableMarkdown()}\n${readme.slice(end)}`;
}

/** JSON Schema (OpenAPI 3) of every error response body: `{ error: { code, message, details }, correlationId }`. */
export function errorResponseSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: [...ERROR_CODES], description: 'stable machine-readable code; see `x-error-codes`' },
          message: { type: 'string', description: 'for people; its wording may change' },
          details: { type: 'object', additionalProperties: true, description: 'structured context (the offending bet id, card, limit, …)' },
        },
      },
      correlationId: { type: 'string', description: "the request's correlation id (also in the `X-Correlation-Id` header)" },
      requestId: {
        type: 'string',
        pattern: '^[A-Za-z0-9._:-]{1,128}$',
        description: "the id of this HTTP request (the caller's `X-Request-Id` or a new UUID; also in the `X-Request-Id` response header and in every log line of the request)",
      },
    },
  };
}
