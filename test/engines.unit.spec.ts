/**
 * `engines.node` of package.json is what the locked packages need: its lowest version satisfies
 * the `engines.node` of every package in package-lock.json (devDependencies too: `npm ci` installs
 * them), and the lock's root says the same; and the Node that runs the tests (this machine's, CI's)
 * is one it admits. Before: `>=20` while the lock held two packages that need Node 22
 * (`@apidevtools/json-schema-ref-parser` >=22.19.0 through openapi-backend 5.21, `@axe-core/playwright`
 * 4.14 >=22.12.0); both are now pinned to releases that run on Node 20 (openapi-backend 5.20.0,
 * @axe-core/playwright 4.13.0), so `engines` is `>=20.19.5` (isomorphic-dompurify's floor).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `semver` (npm's own range reader, in the lock as a dependency of several tools; it ships no types): the two functions used here. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { minVersion, satisfies } = require('semver') as { minVersion(range: string): { version: string } | null; satisfies(version: string, range: string): boolean };

const ROOT = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: unknown }> };

describe('engines.node', () => {
  it("is the lock root's too", () => {
    expect(lock.packages[''].engines).toEqual({ node: pkg.engines.node });
  });

  it('admits the Node that runs the tests', () => {
    expect({ node: process.version, admitted: satisfies(process.version, pkg.engines.node) }).toEqual({ node: process.version, admitted: true });
  });

  it('admits no Node version a locked package refuses: its lowest version satisfies every engines.node of the lock', () => {
    const lowest = minVersion(pkg.engines.node)!.version;
    const refusing = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && typeof (p.engines as { node?: unknown } | undefined)?.node === 'string')
      .map(([path, p]) => [path.replace(/^.*node_modules\//, ''), (p.engines as { node: string }).node])
      .filter(([, range]) => !satisfies(lowest, range));
    expect(refusing).toEqual([]);
  });
});
