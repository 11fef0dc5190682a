import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

/**
 * ESLint (`eslint.config.mjs`, `npm run lint`, run by `.ci/run`) turns on one rule, type-aware
 * `@typescript-eslint/no-deprecated`. This spec proves the rule bites: on a fixture that calls a
 * deprecated function of ours and one of the standard library (test/fixtures/lint/, which
 * `npm run lint` ignores), it reports both calls and nothing else. The repository itself is
 * linted by `npm run lint`, not here (over a minute of type-aware work).
 */
const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
const FIXTURE = 'test/fixtures/lint/deprecated-calls.ts';

interface LintResult {
  messages: { ruleId: string | null; line: number; message: string }[];
}

describe('ESLint: no-deprecated', () => {
  it('Given a fixture calling deprecated APIs, When linted with the repository config, Then each call is reported', () => {
    const r = spawnSync(process.execPath, [BIN, '--no-ignore', '--format', 'json', FIXTURE], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 << 20 });
    if (!r.stdout) throw new Error(`eslint failed: ${r.stderr}`);
    expect(r.status).toBe(1);
    const [result] = JSON.parse(r.stdout) as LintResult[];
    const lines = result.messages.map((m) => `${m.line}:${m.ruleId}:${m.message.split('.')[0]}`);
    expect(lines).toEqual(['16:@typescript-eslint/no-deprecated:`stale` is deprecated', '17:@typescript-eslint/no-deprecated:`sub` is deprecated']);
  }, 120_000);
});
