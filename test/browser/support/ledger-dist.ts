/**
 * The project's own libraries as the browser tier uses them: loaded from the build (`dist/`, made
 * by `npm run -s build`, which the tier needs anyway for the services it starts), not from the
 * TypeScript sources. Playwright compiles the specs with Babel, which cannot compile the
 * decorated configuration schemas of `libs/config` that `@ledger/tokens` and `@ledger/simulator`
 * import; the built JavaScript is the same code. The types are the sources' (`typeof import`).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { register } from 'tsconfig-paths';

/** The checkout this file lives in. */
export const REPO_ROOT = resolve(__dirname, '../../..');
/** The build of the checkout (`npm run -s build`). */
export const DIST = resolve(REPO_ROOT, 'dist');

let registered = false;

/**
 * `require`s `dist/libs/<lib>/src` with the `@ledger/*` aliases mapped into `dist/` (as the
 * services run: `TS_NODE_BASEURL=./dist node -r tsconfig-paths/register`).
 * @throws Error naming `npm run -s build` when the library is not built
 */
function fromDist<T>(lib: string): T {
  const dir = resolve(DIST, 'libs', lib, 'src');
  if (!existsSync(resolve(dir, 'index.js'))) throw new Error(`${dir}/index.js is missing: run \`npm run -s build\` before the browser tier`);
  if (!registered) {
    register({ baseUrl: DIST, paths: { '@ledger/*': ['libs/*/src'] } });
    registered = true;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the built library, loaded at run time
  return require(dir) as T;
}

/** `@ledger/tokens` (mintToken, hs256Key, jwtSecret, DEV_JWT_SECRET) from the build. */
export const tokensLib = () => fromDist<typeof import('@ledger/tokens')>('tokens');
/** `@ledger/simulator` (LedgerClient, generateShoeScript, the shoe runner) from the build. */
export const simulatorLib = () => fromDist<typeof import('@ledger/simulator')>('simulator');
/** `@ledger/client` (the API's commands and routes) from the build. */
export const clientLib = () => fromDist<typeof import('@ledger/client')>('client');
/** `@ledger/infra` (topics, ensureTopics) from the build. */
export const infraLib = () => fromDist<typeof import('@ledger/infra')>('infra');
/** `@ledger/config` (databaseUrlForRole) from the build. */
export const configLib = () => fromDist<typeof import('@ledger/config')>('config');
/** `@ledger/kafka` (createKafka) from the build. */
export const kafkaLib = () => fromDist<typeof import('@ledger/kafka')>('kafka');
