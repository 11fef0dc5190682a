/**
 * Bearer tokens of the ledger API (docs/architecture.md §10): the development secret, the signing
 * and verification keys (HS256 secret, RS256 PEM or JWKS), the verifier with its policy (pinned
 * algorithm, `iss`, `aud`, bounded lifetime) and minting.
 */
export * from './jwt-secret';
export * from './keys';
export * from './verify';
export * from './mint';
export { DEFAULT_TOKEN_AUDIENCE, DEFAULT_TOKEN_ISSUER, DEFAULT_MAX_TOKEN_LIFETIME_SECONDS, DEFAULT_CLOCK_TOLERANCE_SECONDS, MIN_HS256_SECRET_BYTES } from '@ledger/config';
