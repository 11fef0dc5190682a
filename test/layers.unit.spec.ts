import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The layer rules of docs/architecture.md §1 are enforced by dependency-cruiser
 * (`.dependency-cruiser.cjs`, `npm run -s lint:layers`, run by `.ci/run`). These specs prove the
 * rules hold on the repository and that each rule really catches the import it forbids.
 */
const ROOT = path.resolve(__dirname, '..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const BIN = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(cwd: string, dirs: string[]): Violation[] {
  const r = spawnSync(process.execPath, [BIN, '-c', CONFIG, '--output-type', 'json', ...dirs], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (!r.stdout) throw new Error(`dependency-cruiser failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('layer rules (dependency-cruiser)', () => {
  it('Given the repository, When the rules run over every folder, Then there is no violation', () => {
    expect(cruise(ROOT, ['apps', 'libs', 'test', 'scripts', 'bench'])).toEqual([]);
  }, 120_000);

  describe('Given a tree with one forbidden import per rule', () => {
    let dir: string;
    let found: Violation[];
    const files: Record<string, string> = {
      'libs/rules/src/index.ts': "import { readFileSync } from 'node:fs';\nimport { E } from '@ledger/events';\nexport const r = [readFileSync, E];\n",
      'libs/events/src/index.ts': "import { Injectable } from '@nestjs/common';\nexport const E = Injectable;\n",
      'libs/shoe/src/index.ts': "import { Pool } from 'pg';\nimport { w } from '../../widgets/src/index';\nexport const s = [Pool, w];\n",
      'libs/significant-events/src/catalogue.ts': "import { readFileSync } from 'node:fs';\nexport const c = readFileSync;\n",
      'libs/fairness/src/monitor.ts': "import { readFileSync } from 'node:fs';\nimport { E } from '@ledger/events';\nexport const m = [readFileSync, E];\n",
      'libs/widgets/src/index.ts': "import { a } from '../../../apps/api/src/main';\nexport const w = a;\n",
      'libs/widgets/src/testing/fixture.ts': 'export const f = 1;\n',
      'libs/widgets/src/uses-it.ts': "import { f } from './testing/fixture';\nexport const u = f;\n",
      'apps/api/src/main.ts': "import { t } from '../../tool/src/main';\nexport const a = t;\n",
      'apps/tool/src/main.ts': 'export const t = 1;\n',
      // the projector engine and the read model (docs/architecture.md §7)
      'libs/projections/src/applier.ts': "import { ALL_PROJECTIONS } from '@ledger/read-model';\nexport const applier = ALL_PROJECTIONS;\n",
      'libs/projections/src/applier.unit.spec.ts': "import { ALL_PROJECTIONS } from '@ledger/read-model';\nexport const spec = ALL_PROJECTIONS;\n",
      'libs/cycle/src/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'libs/cycle/src/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
      // apps/ledger/src: features, the kernel and the wiring (docs/architecture.md §1)
      'apps/ledger/src/kernel/principal.ts': "import { recall } from '../recall/recall';\nexport const principal = () => recall;\n",
      'apps/ledger/src/kernel/paging.ts': 'export const paging = 1;\n',
      'apps/ledger/src/recall/recall.ts':
        "import { audit } from '../audit/audit';\nimport { paging } from '../kernel/paging';\nimport { wiring } from '../common/wiring';\nimport { helper } from './helper';\nexport const recall = [audit, paging, wiring, helper];\n",
      'apps/ledger/src/recall/helper.ts': 'export const helper = 1;\n',
      'apps/ledger/src/audit/audit.ts': "import { root } from '../app.module';\nexport const audit = root;\n",
      'apps/ledger/src/app.module.ts': 'export const root = 1;\n',
      'apps/ledger/src/common/wiring.ts': 'export const wiring = 1;\n',
      'apps/ledger/src/persistence/db.ts': "import { audit } from '../audit/audit';\nexport const db = audit;\n",
      // the read model's tables: imported inside libs/read-model only
      'libs/read-model/src/bets/tables.ts': "export const BET_TABLES = { bets: 'bets' } as const;\n",
      'libs/read-model/src/bets/queries.ts': "import { BET_TABLES } from './tables';\nexport const q = BET_TABLES;\n",
      'libs/read-model/src/index.ts': "export * from './bets/queries';\nexport const ALL_PROJECTIONS = [];\n",
      'apps/ledger/src/kernel/peek.ts': "import { BET_TABLES } from '../../../../libs/read-model/src/bets/tables';\nimport { q } from '@ledger/read-model';\nexport const peek = [BET_TABLES, q];\n",
      // CSV is written through the kernel's one function (docs/reports.md §8)
      'apps/ledger/src/kernel/csv.ts': "import { stringify } from 'csv-stringify/sync';\nexport const csvText = stringify;\n",
      'apps/ledger/src/exports/raw-csv.ts': "import { stringify } from 'csv-stringify/sync';\nimport { csvText } from '../kernel/csv';\nexport const raw = [stringify, csvText];\n",
      'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@ledger/*': ['libs/*/src'] } } }),
    };
    beforeAll(() => {
      // inside the repository so that node_modules resolves; .stack/ is git-ignored
      mkdirSync(path.join(ROOT, '.stack'), { recursive: true });
      dir = mkdtempSync(path.join(ROOT, '.stack', 'layer-fixture-'));
      for (const [f, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        writeFileSync(path.join(dir, f), text);
      }
      found = cruise(dir, ['apps', 'libs']);
    }, 120_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const has = (rule: string, from: string, to: RegExp) => found.some((v) => v.rule.name === rule && v.from === from && to.test(v.to));

    it('When the rules run, Then libs/rules importing Node I/O or another library is refused', () => {
      expect(has('rules-imports-only-itself', 'libs/rules/src/index.ts', /^(node:)?fs$/)).toBe(true);
      expect(has('rules-imports-only-itself', 'libs/rules/src/index.ts', /libs\/events/)).toBe(true);
    });
    it('When the rules run, Then a framework or database import in libs/events or libs/shoe, or Node I/O in libs/significant-events, is refused', () => {
      expect(has('domain-no-framework-or-io', 'libs/events/src/index.ts', /@nestjs\/common/)).toBe(true);
      expect(has('domain-no-framework-or-io', 'libs/shoe/src/index.ts', /(^|\/)pg(\/|$)/)).toBe(true);
      expect(has('domain-no-framework-or-io', 'libs/significant-events/src/catalogue.ts', /^(node:)?fs$/)).toBe(true);
    });
    it('When the rules run, Then libs/fairness importing Node I/O or a library other than @ledger/rules is refused', () => {
      expect(has('fairness-imports-rules-and-stdlib-only', 'libs/fairness/src/monitor.ts', /^(node:)?fs$/)).toBe(true);
      expect(has('fairness-imports-rules-and-stdlib-only', 'libs/fairness/src/monitor.ts', /libs\/events/)).toBe(true);
    });
    it('When the rules run, Then a relative import across libraries is refused', () => {
      expect(has('no-relative-import-across-libs', 'libs/shoe/src/index.ts', /^libs\/widgets\//)).toBe(true);
    });
    it('When the rules run, Then a library importing an app, and an app importing another app, are refused', () => {
      expect(has('no-lib-imports-an-app', 'libs/widgets/src/index.ts', /^apps\/api\//)).toBe(true);
      expect(has('no-app-imports-another-app', 'apps/api/src/main.ts', /^apps\/tool\//)).toBe(true);
    });
    it('When the rules run, Then production code importing a test fixture is refused', () => {
      expect(has('no-production-import-of-test-code', 'libs/widgets/src/uses-it.ts', /testing\/fixture/)).toBe(true);
    });
    it('When the rules run, Then a feature of apps/ledger importing another feature or a root file is refused; its own files, the kernel and the wiring are not', () => {
      expect(has('no-feature-imports-another-feature', 'apps/ledger/src/recall/recall.ts', /^apps\/ledger\/src\/audit\//)).toBe(true);
      expect(has('no-feature-imports-another-feature', 'apps/ledger/src/audit/audit.ts', /^apps\/ledger\/src\/app\.module\.ts$/)).toBe(true);
      expect(found.filter((v) => v.from === 'apps/ledger/src/recall/recall.ts' && !/\/audit\//.test(v.to))).toEqual([]);
    });
    it('When the rules run, Then the kernel of apps/ledger importing a feature is refused, and so is the wiring', () => {
      expect(has('kernel-imports-no-feature', 'apps/ledger/src/kernel/principal.ts', /^apps\/ledger\/src\/recall\//)).toBe(true);
      expect(has('wiring-imports-no-feature', 'apps/ledger/src/persistence/db.ts', /^apps\/ledger\/src\/audit\//)).toBe(true);
    });
    it('When the rules run, Then the projector engine importing the read model is refused; its specs may', () => {
      expect(has('engine-imports-no-read-model', 'libs/projections/src/applier.ts', /^libs\/read-model\//)).toBe(true);
      expect(found.filter((v) => v.from === 'libs/projections/src/applier.unit.spec.ts')).toEqual([]);
    });
    it("When the rules run, Then a read model's tables.ts imported outside libs/read-model is refused; inside it, and the library through its alias, are not", () => {
      expect(has('read-model-tables-private', 'apps/ledger/src/kernel/peek.ts', /^libs\/read-model\/src\/bets\/tables\.ts$/)).toBe(true);
      expect(found.filter((v) => v.rule.name === 'read-model-tables-private' && v.from !== 'apps/ledger/src/kernel/peek.ts')).toEqual([]);
      expect(found.filter((v) => v.from === 'apps/ledger/src/kernel/peek.ts' && !/tables\.ts$/.test(v.to))).toEqual([]);
    });
    it('When the rules run, Then csv-stringify imported outside the kernel of apps/ledger is refused; the kernel itself may', () => {
      expect(has('csv-only-through-the-kernel', 'apps/ledger/src/exports/raw-csv.ts', /node_modules\/csv-stringify\//)).toBe(true);
      expect(found.filter((v) => v.rule.name === 'csv-only-through-the-kernel' && v.from !== 'apps/ledger/src/exports/raw-csv.ts')).toEqual([]);
    });
    it('When the rules run, Then a cycle is refused', () => {
      expect(found.some((v) => v.rule.name === 'no-circular' && v.from.startsWith('libs/cycle/'))).toBe(true);
    });
  });
});
