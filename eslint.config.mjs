// ESLint (`npm run lint`, run by `.ci/run`): one rule on purpose, type-aware
// `@typescript-eslint/no-deprecated`: nothing in the repository calls a deprecated API, ours or a
// package's; a deprecation is finished in the change that starts it (docs/architecture.md §1).
// test/lint.unit.spec.ts proves the rule bites, on test/fixtures/lint/.
// The other house rules live elsewhere: layers in `.dependency-cruiser.cjs`, sizes in
// `test/house-rules.unit.spec.ts`, types in `npm run typecheck`.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', 'dist/**', '.stack/**', 'coverage/**', 'test-results/**', 'playwright-report/**', 'apps/console/src/api/schema.d.ts', 'test/fixtures/lint/**'],
  },
  {
    files: ['{apps,libs,scripts,test,bench}/**/*.{ts,tsx}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        // each file is checked against the nearest tsconfig.json (the root one, apps/console's, test/browser's)
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    // the code's disable comments name rules of a fuller set this one does not turn on: not "unused"
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      '@typescript-eslint/no-deprecated': 'error',
    },
  },
);
