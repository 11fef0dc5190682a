/** The table simulator: seeded shoes as action scripts, and a runner that sends them through the HTTP API. */
export * from './seeded-random';
export * from './actions';
export * from './shoe-script';
export * from './ledger-client';
export * from './shoe-runner';
export * from './biased-shoe';
