/**
 * Jest projects = test tiers (see README "Tests"):
 *  - unit: pure logic, `*.unit.spec.ts`, no services;
 *  - int:  real PostgreSQL and Kafka, `*.int.spec.ts` (the stack is started by scripts/test.sh);
 *  - e2e:  through HTTP, `*.e2e.spec.ts` (the attack specs too); every answer is checked against
 *          docs/openapi.json (test/support/contract.setup.ts);
 *  - data: long checks over third-party data (the million hands), `*.data.spec.ts`.
 */
const base = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.json' }],
    // openapi-backend (the contract check, test/support/openapi-contract.ts) requires this ES-module-only package
    '^.+/@apidevtools/json-schema-ref-parser/.+\\.js$': ['ts-jest', { isolatedModules: true, tsconfig: { allowJs: true, module: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!@apidevtools/json-schema-ref-parser/)'],
  moduleNameMapper: {
    '^@ledger/rules$': '<rootDir>/libs/rules/src',
    '^@ledger/rules/(.*)$': '<rootDir>/libs/rules/src/$1',
    '^@ledger/(\\w[\\w-]*)$': '<rootDir>/libs/$1/src',
    '^@ledger/(\\w[\\w-]*)/(.*)$': '<rootDir>/libs/$1/src/$2',
  },
  rootDir: __dirname,
};
module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,test}/**/*.unit.spec.ts'] },
    { ...base, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,test}/**/*.int.spec.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs,test}/**/*.e2e.spec.ts'], setupFilesAfterEnv: ['<rootDir>/test/support/contract.setup.ts'] },
    { ...base, displayName: 'data', testMatch: ['<rootDir>/{apps,libs,test}/**/*.data.spec.ts'] },
  ],
};
