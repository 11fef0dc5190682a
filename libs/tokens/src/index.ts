/** Bearer tokens of the ledger API: signing keys and minting (docs/security.md). */
export * from './jwt-secret';
