import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** A forbidden import as reported by scripts/check-rules-purity.js. */
interface Violation {
  file: string;
  line: number;
  specifier: string;
  reason: string;
}
interface PurityModule {
  RULES_DIR: string;
  checkRulesPurity(dir?: string): { files: string[]; violations: Violation[] };
  findImportViolations(fileName: string, sourceText: string, rootDir?: string): Violation[];
}

// the script is plain CommonJS (run by `node` in CI), so it is required rather than imported
const purity = require('../scripts/check-rules-purity.js') as PurityModule;
const SCRIPT = path.resolve(__dirname, '..', 'scripts', 'check-rules-purity.js');

describe('rules library purity (libs/rules/src imports relative paths only)', () => {
  it('Given the repository, When the check runs over libs/rules/src, Then there is no violation', () => {
    const { files, violations } = purity.checkRulesPurity();
    expect(violations).toEqual([]);
    expect(files.map((f) => path.basename(f))).toEqual(expect.arrayContaining(['cards.ts', 'tableau.ts', 'paytables.ts', 'index.ts']));
    expect(files.some((f) => f.endsWith('.spec.ts'))).toBe(false);
    expect(purity.RULES_DIR).toBe(path.resolve(__dirname, '..', 'libs', 'rules', 'src'));
  });

  it.each([
    ["import * as fs from 'fs';", 'fs', 'node builtin'],
    ["import { join } from 'path';", 'path', 'node builtin'],
    ["import { readFile } from 'node:fs/promises';", 'node:fs/promises', 'node builtin'],
    ["const cp = require('child_process');", 'child_process', 'node builtin'],
    ["import { Injectable } from '@nestjs/common';", '@nestjs/common', 'forbidden package'],
    ["import type { Repository } from 'typeorm';", 'typeorm', 'forbidden package'],
    ["export { Kafka } from 'kafkajs';", 'kafkajs', 'forbidden package'],
    ["import 'pg';", 'pg', 'forbidden package'],
    ["const m = import('pg/lib/client');", 'pg/lib/client', 'forbidden package'],
    ["import x = require('crypto');", 'crypto', 'node builtin'],
    ["import Decimal from 'decimal.js';", 'decimal.js', 'package'],
    ['/// <reference types="node" />', 'node', 'type reference directive'],
  ])('Given a library file with %s, When checked, Then it is reported as %s (%s)', (source, specifier, reason) => {
    const v = purity.findImportViolations('/lib/src/x.ts', `// header\n${source}\n`, '/lib/src');
    expect(v).toEqual([{ file: '/lib/src/x.ts', line: 2, specifier, reason }]);
  });

  it('Given relative imports inside the library, comments and strings, When checked, Then nothing is reported', () => {
    const source = [
      "import { Card } from './cards';",
      "export * from './tableau';",
      "import { x } from '../src/money';",
      "// import fs from 'fs';",
      "/* import { Injectable } from '@nestjs/common'; */",
      "const s = \"require('child_process')\";",
    ].join('\n');
    expect(purity.findImportViolations('/lib/src/x.ts', source, '/lib/src')).toEqual([]);
  });

  it('Given a relative import that leaves the library, When checked, Then it is reported', () => {
    expect(purity.findImportViolations('/lib/src/x.ts', "import { db } from '../../infra/src/db';", '/lib/src')).toEqual([
      { file: '/lib/src/x.ts', line: 1, specifier: '../../infra/src/db', reason: 'relative path outside the rules library' },
    ]);
  });

  describe('over a directory and as a command', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'rules-purity-'));
      mkdirSync(path.join(dir, 'sub'));
      writeFileSync(path.join(dir, 'ok.ts'), "export * from './sub/b';\n");
      writeFileSync(path.join(dir, 'sub', 'b.ts'), "import { a } from '../ok';\nimport { readFileSync } from 'node:fs';\n");
      writeFileSync(path.join(dir, 'ok.unit.spec.ts'), "import * as fs from 'fs';\nimport { Test } from '@nestjs/testing';\n");
      writeFileSync(path.join(dir, 'x.data.spec.ts'), "import { spawn } from 'child_process';\n");
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('Given a tree with a bad file in a subfolder and impure specs, When checked, Then only the non-spec file is reported', () => {
      const { files, violations } = purity.checkRulesPurity(dir);
      expect(files.map((f) => path.relative(dir, f))).toEqual(['ok.ts', path.join('sub', 'b.ts')]);
      expect(violations).toEqual([{ file: path.join(dir, 'sub', 'b.ts'), line: 2, specifier: 'node:fs', reason: 'node builtin' }]);
    });

    it('Given that tree, When the script is run with node, Then it exits 1 naming the file and the import', () => {
      const r = spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`b.ts:2: imports 'node:fs' (node builtin)`);
    });

    it('Given the repository, When the script is run with node, Then it exits 0', () => {
      const r = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', cwd: path.resolve(__dirname, '..') });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('import relative paths only');
    });
  });
});
