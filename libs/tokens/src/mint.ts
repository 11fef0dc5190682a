import { sign } from 'jsonwebtoken';
import { DEFAULT_TOKEN_AUDIENCE, DEFAULT_TOKEN_ISSUER } from '@ledger/config';
import type { SigningKey } from './keys';

/** Who a token is for. */
export interface TokenSubject {
  /** The actor id: device id, platform id, manager id, auditor id. */
  readonly sub: string;
  /** `table-device`, `betting-platform`, `pit-manager` or `auditor`. */
  readonly role: string;
  /**
   * The table ids the caller may report for or bet on (`tables` claim): required for a table
   * device; absent on other roles = every table.
   */
  readonly tables?: readonly string[];
}

/** Claims the minted token carries besides the subject. */
export interface MintOptions {
  /** `iss`. @default 'baccarat-ledger' */
  readonly issuer?: string;
  /** `aud`. @default 'baccarat-ledger-api' */
  readonly audience?: string;
  /** `exp - iat`, in seconds (the API refuses more than its `JWT_MAX_LIFETIME_SECONDS`). @default 28800 (8 h) */
  readonly ttlSeconds?: number;
}

/**
 * Signs a bearer token of the ledger API (docs/architecture.md §10): `sub`, `role`, `tables` (when
 * given), `iss`, `aud`, `iat`, `exp`, and the key's `kid` header when it has one.
 * @returns the compact JWS
 */
export function mintToken(subject: TokenSubject, key: SigningKey, options: MintOptions = {}): string {
  const payload: Record<string, unknown> = { role: subject.role };
  if (subject.tables !== undefined) payload.tables = [...subject.tables];
  return sign(payload, key.key, {
    algorithm: key.algorithm,
    subject: subject.sub,
    issuer: options.issuer ?? DEFAULT_TOKEN_ISSUER,
    audience: options.audience ?? DEFAULT_TOKEN_AUDIENCE,
    expiresIn: options.ttlSeconds ?? 8 * 3600,
    ...(key.kid ? { keyid: key.kid } : {}),
  });
}
