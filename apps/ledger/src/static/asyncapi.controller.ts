import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { parse } from 'yaml';
import { Roles } from '../kernel/auth/roles.decorator';
import { ApiError } from '../kernel/api-error';
import { NoQuery } from '../kernel/query.dto';
import { findDirectory } from './static-paths';

/** The OpenAPI schema name of the document `GET /asyncapi` answers (free-form JSON; see bootstrap.ts). */
export const ASYNCAPI_SCHEMA = 'AsyncApiDocument';

/** A JSON pointer token (RFC 6901). */
const token = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * `node` with every `$ref` to a file of `dir` (`./schemas/x.json`) replaced by that file's content,
 * whose own local refs (`#/definitions/X`) are rewritten to point where it was inlined, so the
 * result is one self-contained document. A ref leaving `dir` or with a fragment is refused.
 * @param at the JSON pointer of `node` in the result
 * @throws Error on a file ref outside `dir`, with a fragment, or unreadable
 */
export function inlineFileRefs(node: unknown, dir: string, at = ''): unknown {
  if (Array.isArray(node)) return node.map((v, i) => inlineFileRefs(v, dir, `${at}/${i}`));
  if (!node || typeof node !== 'object') return node;
  const o = node as Record<string, unknown>;
  if (typeof o.$ref === 'string' && !o.$ref.startsWith('#')) {
    const [file, fragment] = o.$ref.split('#');
    if (fragment) throw new Error(`$ref ${o.$ref}: a fragment of a file is not supported`);
    const path = resolve(dir, file);
    if (!path.startsWith(resolve(dir) + sep)) throw new Error(`$ref ${o.$ref} leaves ${dir}`);
    const content = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    const { $ref: _ref, ...siblings } = o;
    const inlined = inlineFileRefs(rebase(content, at), dirname(path), at) as Record<string, unknown>;
    return { ...inlined, ...(inlineFileRefs(siblings, dir, at) as Record<string, unknown>) };
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, inlineFileRefs(v, dir, `${at}/${token(k)}`)]));
}

/** `node`'s local refs (`#/…`, relative to its own root) made relative to the document root, where it sits at `at`. */
function rebase(node: unknown, at: string): unknown {
  if (Array.isArray(node)) return node.map((v) => rebase(v, at));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `#${at}${v.slice(1)}` : rebase(v, at)]));
}

/**
 * `GET /asyncapi` (every role): the AsyncAPI document of the ledger's Kafka topics
 * (docs/asyncapi/asyncapi.yaml) as JSON, its file `$ref`s (`./schemas/*.json`) inlined
 * ({@link inlineFileRefs}) so a browser renderer (the console's Topics page) needs no other fetch.
 * Read once, on first use. Missing file: 404 `FILES.NOT_BUILT`.
 */
@ApiTags('reads')
@ApiBearerAuth()
@Roles('table-device', 'betting-platform', 'pit-manager', 'auditor')
@Controller('asyncapi')
export class AsyncApiController {
  private doc: Record<string, unknown> | null = null;

  @Get()
  @ApiOperation({ summary: 'The AsyncAPI document of the Kafka topics (docs/asyncapi/asyncapi.yaml) as JSON, its schema files inlined' })
  @ApiOkResponse({ schema: { $ref: `#/components/schemas/${ASYNCAPI_SCHEMA}` } })
  document(@Query() _q: NoQuery): Record<string, unknown> {
    if (!this.doc) {
      const dir = findDirectory(['docs/asyncapi'], 'asyncapi.yaml');
      if (!dir) throw ApiError.of('FILES.NOT_BUILT', { what: 'AsyncAPI document', hint: 'docs/asyncapi/asyncapi.yaml ships with the repository' });
      this.doc = inlineFileRefs(parse(readFileSync(join(dir, 'asyncapi.yaml'), 'utf8')), dir) as Record<string, unknown>;
    }
    return this.doc;
  }
}
