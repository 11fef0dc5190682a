/**
 * Layer rules of the house (docs/architecture.md §1), enforced by dependency-cruiser in `.ci/run`
 * (`npm run -s lint:layers`). A violation fails the build.
 */
const TEST_FILE = '(\\.spec\\.ts$|/testing/|^test/|\\.fixture\\.ts$|-fixtures?\\.)';
module.exports = {
  forbidden: [
    {
      name: 'rules-imports-only-itself',
      comment: 'libs/rules is the pure rules of baccarat: it imports nothing but its own files.',
      severity: 'error',
      from: { path: '^libs/rules/src/', pathNot: '\\.spec\\.ts$' },
      to: { pathNot: '^libs/rules/src/' },
    },
    {
      name: 'domain-no-framework-or-io',
      comment: 'libs/events, libs/shoe, libs/errors and libs/significant-events are pure: no package at all (framework, database, Kafka) and no Node module (I/O, clock, randomness). Specs may use test tools.',
      severity: 'error',
      from: { path: '^libs/(events|shoe|errors|significant-events)/src/', pathNot: '\\.spec\\.ts$' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown', 'core'] },
    },
    {
      name: 'fairness-imports-rules-and-stdlib-only',
      comment:
        'libs/fairness (the fairness statistics, docs/fairness.md) is pure: it imports the rules of baccarat (@ledger/rules) and the @stdlib ' +
        'special functions its tests need, nothing else (no framework, database or Node module). Specs may use test tools.',
      severity: 'error',
      from: { path: '^libs/fairness/src/', pathNot: '\\.spec\\.ts$' },
      to: { pathNot: '^(libs/(fairness|rules)/src/|node_modules/@stdlib/)' },
    },
    {
      name: 'no-app-imports-another-app',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'no-lib-imports-an-app',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-relative-import-across-libs',
      comment: 'a library reaches another one by its alias (@ledger/<name>), never by a relative path',
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/', pathNot: '^libs/$1/', dependencyTypesNot: ['aliased'] },
    },
    {
      name: 'engine-imports-no-read-model',
      comment:
        'The projector engine (libs/projections: runner, applier, checkpoints, quarantine, incidents, rebuild, resume) knows no read model: ' +
        'it is handed the projections, their migrations and side effects by its callers, from @ledger/read-model (docs/architecture.md §7). ' +
        'Its specs may import the read model to run it.',
      severity: 'error',
      from: { path: '^libs/projections/src/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^libs/read-model/' },
    },
    {
      name: 'no-production-import-of-test-code',
      severity: 'error',
      from: { path: '^(apps|libs)/', pathNot: TEST_FILE },
      to: { path: TEST_FILE },
    },
    {
      name: 'kafkajs-only-in-the-kafka-adapter',
      comment:
        'The Kafka port (docs/architecture.md §6): only its adapter, libs/kafka/src/kafkajs/, imports the kafkajs client; ' +
        'everything else uses @ledger/kafka. Test support (libs/kafka/src/testing/, test/support/) may use kafkajs specifics.',
      severity: 'error',
      from: { pathNot: '^(libs/kafka/src/(kafkajs|testing)/|test/support/)' },
      to: { path: '(^|/)node_modules/kafkajs/' },
    },
    {
      name: 'csv-only-through-the-kernel',
      comment:
        'Every CSV the API writes is made safe for spreadsheets by one function (docs/reports.md §8): only apps/ledger/src/kernel/csv.ts ' +
        'imports csv-stringify; the others write through its csvText, csvStream or csvAnswer. Tests may use it to build files.',
      severity: 'error',
      from: { path: '^(apps|libs|scripts)/', pathNot: `^apps/ledger/src/kernel/csv[.]ts$|${TEST_FILE}` },
      to: { path: '(^|/)node_modules/csv-stringify/' },
    },
    {
      name: 'no-feature-imports-another-feature',
      comment:
        'apps/ledger/src is a folder per use case (docs/architecture.md §1): a feature (every top-level folder but kernel/, common/ ' +
        'and persistence/) imports its own files, the kernel, the HTTP and database wiring, and libraries; never another feature ' +
        'nor a root file (app.module.ts wires the features). A piece two features need goes to the kernel.',
      severity: 'error',
      from: { path: '^apps/ledger/src/([^/]+)/', pathNot: '^apps/ledger/src/(kernel|common|persistence)/' },
      to: { path: '^apps/ledger/src/', pathNot: '^apps/ledger/src/($1|kernel|common|persistence)/' },
    },
    {
      name: 'kernel-imports-no-feature',
      comment: 'apps/ledger/src/kernel/ (principal, errors, paging, period DTOs, report header, tables, as-of, closes, injection tokens) ' + 'imports only itself and libraries: no feature, no wiring, no root file.',
      severity: 'error',
      from: { path: '^apps/ledger/src/kernel/' },
      to: { path: '^apps/ledger/src/', pathNot: '^apps/ledger/src/kernel/' },
    },
    {
      name: 'wiring-imports-no-feature',
      comment: 'the HTTP wiring (apps/ledger/src/common/) and the database wiring (persistence/) import the kernel, each other and libraries: no feature, no root file.',
      severity: 'error',
      from: { path: '^apps/ledger/src/(common|persistence)/' },
      to: { path: '^apps/ledger/src/', pathNot: '^apps/ledger/src/(kernel|common|persistence)/' },
    },
    {
      name: 'read-model-tables-private',
      comment:
        "The read model owns its tables (docs/architecture.md §7): a read model's table names and row types (libs/read-model/src/<model>/tables.ts) " +
        'are imported only inside libs/read-model; everything else reads through the ReadModel (test/read-model-owner.unit.spec.ts checks the SQL text).',
      severity: 'error',
      from: { pathNot: '^libs/read-model/' },
      to: { path: '^libs/read-model/src/[^/]+/tables[.]ts$' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    { name: 'no-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|\\.stack)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
