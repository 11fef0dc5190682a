import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The README is the front door (docs/index.md holds the rest): short enough to read, with the two
 * commands and each user's top tasks as commands a newcomer can run without opening another file
 * (back office: reconcile, close a day, match a wallet; regulator: recall, verify, export and verify
 * the bundle; analytics: consume a topic), and every document reachable from the index.
 */
const ROOT = join(__dirname, '../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('the README as the front door', () => {
  it('is at most 25 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(25 * 1024);
  });

  it('has the two commands and a runnable command for each top task', () => {
    const tasks: Record<string, RegExp> = {
      'the main job': /^npm run demo\b/m,
      'the tests': /^npm test\b/m,
      'a token': /LEDGER_ENV=development npm run -s token -- --role/,
      reconcile: /curl [^\n]*\/reports\/reconciliation/,
      'close a day': /curl -s -X POST [^\n]*\/gaming-days\/[^\n]*\/close/,
      'approve an early close': /close-requests\/<requestId>\/approve/,
      // a file that exists after the demo: the copy of its run's file it leaves (never an older run's)
      'match a wallet': /WALLET=\.stack\/demo\/wallet-latest\.csv[^\n]*\n+curl -s -X POST [^\n]*--data-binary @"\$WALLET"/,
      recall: /curl [^\n]*\/rounds\/<roundId>\/recall/,
      verify: /^npm run -s verify$/m,
      export: /npm run -s export -- --from \S+ --to \S+ --out/,
      // the demo's operator key, where the demo leaves it
      'verify the bundle': /node examples\/verify-export\/verify\.mjs \S+ --key \.stack\/anchors\/anchor-public\.pem/,
      // no hard-coded date in a command: the demo deals today
      'dates of the demo': /export DAY=\$\(date -u/,
      'consume a topic': /node examples\/outcome-consumer\/consume\.mjs/,
    };
    const missing = Object.entries(tasks)
      .filter(([, re]) => !re.test(readme))
      .map(([t]) => t);
    expect(missing).toEqual([]);
    // a command with a fixed date fails on any other day (a closed day, an empty reconciliation)
    expect(readme.match(/^(?:curl|LEDGER_TOKEN|node|npm)[^\n]*\b20\d\d-\d\d-\d\d/gm)).toBeNull();
  });

  it('links every document of docs/ from docs/index.md, and the index from the README', () => {
    expect(readme).toContain('](docs/index.md)');
    const index = readFileSync(join(ROOT, 'docs/index.md'), 'utf8');
    const unlisted = readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md') && f !== 'index.md')
      .filter((f) => !index.includes(`](${f})`));
    expect(unlisted).toEqual([]);
  });
});
