import { decode, verify, type JwtPayload } from 'jsonwebtoken';
import type { VerificationKey } from './keys';

/** What every token must meet besides its signature (the API's `JWT_*` configuration). */
export interface TokenPolicy {
  /** Required `iss`. */
  readonly issuer: string;
  /** Required `aud` (a token's `aud` may be a list naming it). */
  readonly audience: string;
  /** Longest `exp - iat`, in seconds. */
  readonly maxLifetimeSeconds: number;
  /** Clock skew accepted on `exp`, `nbf` and `iat`, in seconds. */
  readonly clockToleranceSeconds: number;
}

/** The verified claims of a token: `iat` and `exp` are numbers; the rest is as the issuer wrote it. */
export type VerifiedClaims = JwtPayload & { readonly iat: number; readonly exp: number; readonly [claim: string]: unknown };

/** A token refused; `reason` says why (it goes into the 401's message). */
export class TokenRejectedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TokenRejectedError';
  }
}

/**
 * Verifies the ledger's bearer tokens (docs/architecture.md §10): the signature with the configured
 * key and only that key's algorithm (a token's `alg` never chooses: `none`, HS256 against an RSA key,
 * HS384/HS512 are refused), `iss` and `aud`, `exp` and `nbf` (with the clock tolerance), and a
 * bounded lifetime: `iat` and `exp` are required, `exp - iat` at most `maxLifetimeSeconds`, `iat`
 * not in the future. With several keys (a JWKS file) the token's `kid` picks one.
 */
export class TokenVerifier {
  /**
   * @param keys at least one; all with a `kid` (JWKS) or a single one without
   * @param policy issuer, audience, lifetime, clock tolerance
   * @param now the clock, in ms since the epoch @default Date.now
   */
  constructor(
    private readonly keys: readonly VerificationKey[],
    private readonly policy: TokenPolicy,
    private readonly now: () => number = Date.now,
  ) {
    if (keys.length === 0) throw new Error('TokenVerifier needs at least one key');
  }

  /**
   * @param token a compact JWS (`header.payload.signature`)
   * @returns its claims, verified
   * @throws TokenRejectedError with the reason
   */
  verify(token: string): VerifiedClaims {
    const decoded = decode(token, { complete: true });
    if (!decoded || typeof decoded.header !== 'object' || typeof decoded.payload !== 'object') throw new TokenRejectedError('malformed token');
    const { alg, kid } = decoded.header;
    const key = this.keyFor(kid);
    if (alg !== key.algorithm) throw new TokenRejectedError(`algorithm ${JSON.stringify(alg)} is not accepted (only ${key.algorithm})`);
    const nowSeconds = Math.floor(this.now() / 1000);
    let claims: JwtPayload | string;
    try {
      claims = verify(token, key.key, {
        algorithms: [key.algorithm],
        issuer: this.policy.issuer,
        audience: this.policy.audience,
        clockTolerance: this.policy.clockToleranceSeconds,
        clockTimestamp: nowSeconds,
      });
    } catch (e) {
      throw new TokenRejectedError((e as Error).message);
    }
    if (typeof claims !== 'object' || claims === null) throw new TokenRejectedError('the payload is not a JSON object');
    const { iat, exp } = claims;
    if (typeof iat !== 'number' || typeof exp !== 'number') throw new TokenRejectedError('a token must carry iat and exp');
    if (exp - iat > this.policy.maxLifetimeSeconds) {
      throw new TokenRejectedError(`token lifetime ${exp - iat} s (exp - iat) exceeds the maximum ${this.policy.maxLifetimeSeconds} s`);
    }
    if (iat > nowSeconds + this.policy.clockToleranceSeconds) throw new TokenRejectedError('token issued in the future (iat)');
    return claims as VerifiedClaims;
  }

  private keyFor(kid: string | undefined): VerificationKey {
    if (this.keys.length === 1 && this.keys[0].kid === null) return this.keys[0];
    const key = this.keys.find((k) => k.kid === kid);
    if (!key) throw new TokenRejectedError(kid === undefined ? 'the token names no key (kid)' : `unknown key id ${JSON.stringify(kid)}`);
    return key;
  }
}
