import { Controller, Get, Inject, Optional, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { Public } from '../kernel/auth/public.decorator';
import { ApiError } from '../kernel/api-error';
import { findDirectory } from './static-paths';
import { CONSOLE_CSP } from '../common/http-hygiene';

export { CONSOLE_CSP };

/** Injection token of the function that finds the built console's directory (tests give their own). */
export const CONSOLE_DIR = Symbol('CONSOLE_DIR');

/** `dist/console` from the compiled main, or `<repo>/dist/console` from the sources (see {@link findDirectory}). */
export function defaultConsoleDir(): string | null {
  return findDirectory(['console', 'dist/console'], 'index.html');
}

/** `Cache-Control` of a content-hashed build asset (`/console/assets/<name>-<hash>.<ext>`): never changes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A path segment the console never has: empty, `.`/`..`, hidden, or holding a separator or NUL. */
function badSegment(s: string): boolean {
  return s === '' || s.startsWith('.') || /[\\/\0]/.test(s) || s.length > 255;
}

/**
 * Serves the built console (apps/console → `dist/console`, `npm run -s build`) at `/console`
 * (docs: README "The console"), same origin as the API so the API's bearer roles apply
 * to each of its calls. The files hold no data: the routes are `@Public()` (no token), yet every
 * request still counts in the per-address budget (edge middleware, docs/architecture.md §10).
 *
 * - `dist/console` is found from the compiled main (`dist/apps/ledger/src/static` → `dist/console`)
 *   or, when the API runs from its sources (jest, tsx), at `<repo>/dist/console`;
 * - an existing file is sent; any other path under `/console` answers `index.html` (single-page
 *   app: a deep link such as `/console/shoes/S-1/rounds/R-1` works on reload), except under
 *   `/console/assets/`, where a missing file is 404 `ROUTE.NOT_FOUND`;
 * - no path traversal: a segment `..`, `.`, hidden, or with a separator is 404 `ROUTE.NOT_FOUND`,
 *   and the resolved path must stay inside `dist/console`;
 * - `index.html` (and other unhashed files) `Cache-Control: no-cache`; hashed assets immutable;
 *   every answer carries {@link CONSOLE_CSP} and `X-Content-Type-Options: nosniff`;
 * - not built: 404 `FILES.NOT_BUILT` (JSON) naming the command that builds it.
 * Not in the OpenAPI document: these are files, not API routes.
 */
@ApiExcludeController()
@Public()
@Controller('console')
export class ConsoleStaticController {
  private root: string | null = null;

  constructor(@Optional() @Inject(CONSOLE_DIR) private readonly locate: () => string | null = defaultConsoleDir) {}

  /** The console's directory, looked up until found (a build made after the API started is found). */
  private dir(): string {
    if (!this.root) this.root = this.locate();
    if (!this.root) throw ApiError.of('FILES.NOT_BUILT', { what: 'console', hint: 'build it with npm run -s build (dist/console)' });
    return this.root;
  }

  @Get()
  index(@Res() res: Response): void {
    this.send(res, []);
  }

  @Get('*path')
  file(@Req() req: Request, @Res() res: Response): void {
    // the wildcard's decoded segments, read from the request (not through the pipes, which refuse a list)
    const path = (req.params as Record<string, unknown>).path;
    this.send(res, Array.isArray(path) ? path.map(String) : String(path ?? '').split('/'));
  }

  private send(res: Response, segments: readonly string[]): void {
    const root = this.dir();
    const parts = segments.filter((s, i) => !(s === '' && i === segments.length - 1)); // a trailing slash
    if (parts.some(badSegment)) throw new ApiError('ROUTE.NOT_FOUND', 'no such file of the console');
    const target = resolve(root, ...parts);
    if (target !== root && !target.startsWith(root + sep)) throw new ApiError('ROUTE.NOT_FOUND', 'no such file of the console');
    let file: string | null = null;
    try {
      if (statSync(target).isFile()) file = target;
    } catch {
      file = null;
    }
    if (!file && parts[0] === 'assets') throw new ApiError('ROUTE.NOT_FOUND', 'no such file of the console');
    const path = file ?? join(root, 'index.html');
    const hashed = file !== null && parts[0] === 'assets';
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', hashed ? IMMUTABLE : 'no-cache');
    res.sendFile(path, { dotfiles: 'deny', cacheControl: false, lastModified: !hashed, etag: true }, (err) => {
      if (err && !res.headersSent) res.status(404).json({ error: { code: 'ROUTE.NOT_FOUND', message: 'no such file of the console', details: {} } });
    });
  }
}
