#!/usr/bin/env node
'use strict';
/**
 * Layer check: the rules library (`libs/rules/src`) is pure TypeScript — no framework, no I/O,
 * no database or broker client (libs/rules/src/index.ts; domain-rules.md is its only source).
 * Every non-spec `.ts` file under it may import relative paths inside the library only.
 *
 * Fails (exit 1) naming each file, line and import that is:
 *  - a Node builtin (`fs`, `path`, `child_process`, any `node:*`),
 *  - a framework or infrastructure package (`@nestjs/*`, `typeorm`, `kafkajs`, `pg`),
 *  - any other bare package specifier, or a `/// <reference types>` directive,
 *  - a relative path that leaves `libs/rules/src`.
 * Spec files (`*.spec.ts`) are exempt: tests may use anything.
 *
 * Usage: `node scripts/check-rules-purity.js [dir]` (default `libs/rules/src`); `npm run lint:layers`.
 * Also a module: `const { checkRulesPurity, findImportViolations } = require('./check-rules-purity.js')`.
 * Imports are found with TypeScript's own pre-processor (`ts.preProcessFile`), so comments and
 * strings never count, and `import`, `import type`, `export … from`, `require()`, `import()` and
 * `import x = require()` all do.
 */
const fs = require('node:fs');
const path = require('node:path');
const { builtinModules } = require('node:module');
const ts = require('typescript');

/** The directory checked by default: `<repo>/libs/rules/src`. */
const RULES_DIR = path.resolve(__dirname, '..', 'libs', 'rules', 'src');

/** Packages named explicitly as forbidden (matched on the package name, subpaths included). */
const FORBIDDEN_PACKAGES = ['@nestjs/', 'typeorm', 'kafkajs', 'pg'];

/** True for a `*.spec.ts` file (unit, data, int, e2e specs are exempt). */
function isSpecFile(file) {
  return /\.spec\.ts$/.test(file);
}

/** True for `./x`, `../x`, `.` and `..`. */
function isRelative(specifier) {
  return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
}

/** Why a non-relative specifier is forbidden: `node builtin`, `forbidden package` or `package`. */
function classify(specifier) {
  const bare = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  if (specifier.startsWith('node:') || builtinModules.includes(bare.split('/')[0]) || builtinModules.includes(bare)) return 'node builtin';
  const isForbidden = FORBIDDEN_PACKAGES.some((p) => (p.endsWith('/') ? specifier.startsWith(p) : specifier === p || specifier.startsWith(`${p}/`)));
  return isForbidden ? 'forbidden package' : 'package';
}

/**
 * The forbidden imports of one source text. Pure.
 * @param {string} fileName path used in the report and to resolve relative imports
 * @param {string} sourceText the file's TypeScript source
 * @param {string} [rootDir] the library root: relative imports must resolve inside it; when omitted,
 *   every relative import is allowed
 * @returns {{file: string, line: number, specifier: string, reason: string}[]}
 */
function findImportViolations(fileName, sourceText, rootDir) {
  const info = ts.preProcessFile(sourceText, true, true);
  const lineOf = (pos) => sourceText.slice(0, pos).split('\n').length;
  const out = [];
  for (const ref of info.importedFiles) {
    const specifier = ref.fileName;
    if (isRelative(specifier)) {
      if (rootDir) {
        const target = path.resolve(path.dirname(fileName), specifier);
        const rel = path.relative(path.resolve(rootDir), target);
        if (rel.startsWith('..') || path.isAbsolute(rel)) {
          out.push({ file: fileName, line: lineOf(ref.pos), specifier, reason: 'relative path outside the rules library' });
        }
      }
      continue;
    }
    out.push({ file: fileName, line: lineOf(ref.pos), specifier, reason: classify(specifier) });
  }
  for (const ref of info.typeReferenceDirectives) {
    out.push({ file: fileName, line: lineOf(ref.pos), specifier: ref.fileName, reason: 'type reference directive' });
  }
  return out;
}

/** Every `.ts` file under `dir` (recursively) that is not a spec, sorted. */
function listSourceFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSourceFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.ts') && !isSpecFile(entry.name)) out.push(full);
  }
  return out.sort();
}

/**
 * Checks every non-spec `.ts` file under `dir`.
 * @param {string} [dir] default {@link RULES_DIR}
 * @returns {{files: string[], violations: {file: string, line: number, specifier: string, reason: string}[]}}
 * @throws Error when `dir` does not exist
 */
function checkRulesPurity(dir = RULES_DIR) {
  const root = path.resolve(dir);
  const files = listSourceFiles(root);
  const violations = [];
  for (const file of files) violations.push(...findImportViolations(file, fs.readFileSync(file, 'utf8'), root));
  return { files, violations };
}

/** Human-readable report line of a violation, path relative to the working directory. */
function formatViolation(v) {
  return `${path.relative(process.cwd(), v.file) || v.file}:${v.line}: imports '${v.specifier}' (${v.reason})`;
}

function main(argv) {
  const dir = argv[2] ? path.resolve(argv[2]) : RULES_DIR;
  let result;
  try {
    result = checkRulesPurity(dir);
  } catch (e) {
    process.stderr.write(`check-rules-purity: ${e.message}\n`);
    return 2;
  }
  if (result.violations.length > 0) {
    process.stderr.write(`check-rules-purity: the rules library must import relative paths only (${result.violations.length} violation(s)):\n`);
    for (const v of result.violations) process.stderr.write(`  ${formatViolation(v)}\n`);
    return 1;
  }
  process.stdout.write(`check-rules-purity: ${result.files.length} file(s) under ${path.relative(process.cwd(), dir) || dir} import relative paths only\n`);
  return 0;
}

module.exports = { RULES_DIR, FORBIDDEN_PACKAGES, isSpecFile, isRelative, findImportViolations, listSourceFiles, checkRulesPurity, formatViolation };

if (require.main === module) process.exitCode = main(process.argv);
