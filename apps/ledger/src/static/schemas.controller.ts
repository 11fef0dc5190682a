import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMA_ID_BASE, schemaServedPath } from '@ledger/read-model';
import { Public } from '../kernel/auth/public.decorator';
import { ApiError } from '../kernel/api-error';
import { findDirectory } from './static-paths';

/** `Content-Type` of a served schema (the JSON Schema media type; our files are draft-07), docs/architecture.md §6. */
export const SCHEMA_CONTENT_TYPE = 'application/schema+json';

/** `Cache-Control` of a schema and of the index: a versioned schema file never changes within a release. */
export const SCHEMA_CACHE_CONTROL = 'public, max-age=3600';

/** One served schema: its `$id`, the path it is served at, its bytes and their strong ETag. */
export interface ServedSchema {
  /** `urn:baccarat-ledger:schemas:<file>` */
  readonly id: string;
  /** `/schemas/<file>` */
  readonly path: string;
  readonly body: Buffer;
  /** `"sha256-<base64url>"` of {@link body} */
  readonly etag: string;
}

/**
 * The JSON Schemas of `docs/asyncapi/schemas/` keyed by file name, each checked to carry the `$id`
 * its file name gives (`SCHEMA_ID_BASE + file`, docs/architecture.md §6).
 * @throws Error when a file's `$id` is not the one its name gives (a broken release)
 */
export function loadServedSchemas(dir: string): Map<string, ServedSchema> {
  const out = new Map<string, ServedSchema>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.schema.json'))
    .sort()) {
    const body = readFileSync(join(dir, file));
    const id = (JSON.parse(body.toString('utf8')) as { $id?: unknown }).$id;
    const path = typeof id === 'string' ? schemaServedPath(id) : null;
    if (id !== `${SCHEMA_ID_BASE}${file}` || path !== `/schemas/${file}`) throw new Error(`${file}: $id ${String(id)} is not ${SCHEMA_ID_BASE}${file}`);
    out.set(file, { id, path, body, etag: `"sha256-${createHash('sha256').update(body).digest('base64url')}"` });
  }
  return out;
}

/**
 * `GET /schemas` and `GET /schemas/<file>` (public, no token; still counted in the per-address
 * budget like the console's files, docs/architecture.md §10): the JSON Schemas of the Kafka topics
 * (docs/asyncapi/schemas/) so a consumer can resolve every `$id` and `ce_dataschema`
 * (`urn:baccarat-ledger:schemas:<file>` is served at `/schemas/<file>`, docs/architecture.md §6).
 *
 * - `GET /schemas`: `{ schemas: [{ id, path }] }` (application/json), every served schema;
 * - `GET /schemas/<file>`: the file's bytes as stored, `Content-Type: application/schema+json`,
 *   `Cache-Control: public, max-age=3600`, a strong `ETag` (an `If-None-Match` naming it: 304);
 * - a file that is not one of them: 404 `ROUTE.NOT_FOUND`; the directory missing: 404 `FILES.NOT_BUILT`.
 * Not in the OpenAPI document: these are files, not API routes (like `/console`).
 */
@ApiExcludeController()
@Public()
@Controller('schemas')
export class SchemasController {
  private schemas: Map<string, ServedSchema> | null = null;

  /** The served schemas, read once on first use. */
  private all(): Map<string, ServedSchema> {
    if (!this.schemas) {
      const dir = findDirectory(['docs/asyncapi/schemas'], 'ledger-event.v1.schema.json');
      if (!dir) throw ApiError.of('FILES.NOT_BUILT', { what: 'JSON Schemas', hint: 'docs/asyncapi/schemas ships with the repository' });
      this.schemas = loadServedSchemas(dir);
    }
    return this.schemas;
  }

  @Get()
  index(@Res() res: Response): void {
    res.setHeader('Cache-Control', SCHEMA_CACHE_CONTROL);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.json({ schemas: [...this.all().values()].map((s) => ({ id: s.id, path: s.path })) });
  }

  @Get(':file')
  file(@Param('file') file: string, @Req() req: Request, @Res() res: Response): void {
    const s = this.all().get(file);
    if (!s) throw new ApiError('ROUTE.NOT_FOUND', 'no such schema');
    res.setHeader('Cache-Control', SCHEMA_CACHE_CONTROL);
    res.setHeader('ETag', s.etag);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.headers['if-none-match']?.split(',').some((t) => t.trim() === s.etag)) {
      res.status(304).end();
      return;
    }
    res.status(200).type(SCHEMA_CONTENT_TYPE).send(s.body);
  }
}
