import { ExclusiveWith, FileVar, IntVar, RequiredUnless, SecretVar, TextVar } from '../env-var';
import type { EnvClass } from './common';

/**
 * The bearer-token parts of the configuration (docs/architecture.md §10): the policy every token
 * must meet, the API's verification keys, and the keys `npm run token` signs with.
 */

/** `iss` of the ledger's tokens. */
export const DEFAULT_TOKEN_ISSUER = 'baccarat-ledger';
/** `aud` of the ledger's tokens. */
export const DEFAULT_TOKEN_AUDIENCE = 'baccarat-ledger-api';
/** Longest accepted `exp - iat`, in seconds (12 h: one shift). */
export const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 12 * 3600;
/** Clock skew accepted on `exp`, `nbf` and `iat`, in seconds. */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;
/** Shortest HS256 secret accepted, in bytes (the hash's output size, RFC 7518 §3.2). */
export const MIN_HS256_SECRET_BYTES = 32;

const PRINTABLE = /^[\x21-\x7e]{1,200}$/;
const PRINTABLE_FORM = 'printable ASCII without spaces (1..200)';
const KEY_FILE_VARS = ['JWT_PUBLIC_KEY_FILE', 'JWT_JWKS_FILE', 'JWT_PRIVATE_KEY_FILE'];

/** `JWT_ISSUER`, `JWT_AUDIENCE`, `JWT_MAX_LIFETIME_SECONDS`: what every token must carry. */
export function WithTokenPolicy<B extends EnvClass>(Base: B) {
  class TokenPolicyEnv extends Base {
    /**
     * `iss` every token must carry (`npm run token` and the simulator write it).
     * @default baccarat-ledger
     */
    @TextVar(PRINTABLE, PRINTABLE_FORM)
    JWT_ISSUER: string = DEFAULT_TOKEN_ISSUER;

    /**
     * `aud` every token must carry.
     * @default baccarat-ledger-api
     */
    @TextVar(PRINTABLE, PRINTABLE_FORM)
    JWT_AUDIENCE: string = DEFAULT_TOKEN_AUDIENCE;

    /**
     * Longest lifetime of a token, `exp - iat` in seconds: a longer one, or one without `exp` or `iat`, is refused.
     * @default 43200
     */
    @IntVar(60, 30 * 86_400, 's')
    JWT_MAX_LIFETIME_SECONDS: number = DEFAULT_MAX_TOKEN_LIFETIME_SECONDS;
  }
  return TokenPolicyEnv;
}

/** `JWT_SECRET`: the HS256 key, required outside development mode unless a key file is set. */
export function WithSigningSecret<B extends EnvClass>(Base: B) {
  class SigningSecretEnv extends Base {
    /**
     * HS256 key of the bearer tokens, at least 32 bytes (`openssl rand -base64 48`). Required outside
     * development mode unless a key file is set; never the development secret there. In development
     * mode, when unset, the public development secret is used and a warning logged.
     */
    @SecretVar(MIN_HS256_SECRET_BYTES, `a secret of at least ${MIN_HS256_SECRET_BYTES} bytes`, { optional: true })
    @RequiredUnless(
      (env) => env.LEDGER_ENV === 'development' || KEY_FILE_VARS.some((k) => env[k] !== undefined),
      `required outside development mode (LEDGER_ENV=development): an HS256 secret of at least ${MIN_HS256_SECRET_BYTES} bytes, or an RS256 key file (JWT_PUBLIC_KEY_FILE or JWT_JWKS_FILE for the API, JWT_PRIVATE_KEY_FILE for npm run token)`,
    )
    JWT_SECRET?: string;
  }
  return SigningSecretEnv;
}

/** `JWT_PUBLIC_KEY_FILE`, `JWT_JWKS_FILE`, `JWT_CLOCK_TOLERANCE_SECONDS`: how the API verifies. */
export function WithTokenVerification<B extends EnvClass>(Base: B) {
  class TokenVerificationEnv extends Base {
    /**
     * PEM file of the RS256 public key (RSA, at least 2048 bits) that verifies the tokens: the API then
     * holds no signing key. Instead of `JWT_SECRET`.
     */
    @FileVar('the path of a PEM public key file', { optional: true })
    @ExclusiveWith(['JWT_SECRET', 'JWT_JWKS_FILE'])
    JWT_PUBLIC_KEY_FILE?: string;

    /**
     * JWKS file (`{"keys":[…]}`, RSA keys with a `kid`) whose key named by a token's `kid` verifies it
     * (RS256; key rotation). Instead of `JWT_SECRET`.
     */
    @FileVar('the path of a JWKS (JSON) file', { optional: true })
    @ExclusiveWith(['JWT_SECRET'])
    JWT_JWKS_FILE?: string;

    /**
     * Clock skew accepted on `exp`, `nbf` and `iat`, in seconds.
     * @default 30
     */
    @IntVar(0, 300, 's')
    JWT_CLOCK_TOLERANCE_SECONDS: number = DEFAULT_CLOCK_TOLERANCE_SECONDS;
  }
  return TokenVerificationEnv;
}

/** `JWT_PRIVATE_KEY_FILE`, `JWT_KEY_ID`: what `npm run token` signs RS256 tokens with. */
export function WithTokenSigning<B extends EnvClass>(Base: B) {
  class TokenSigningEnv extends Base {
    /** PEM file of the RS256 private key `npm run token` signs with (the API holds only the public key). Instead of `JWT_SECRET`. */
    @FileVar('the path of a PEM private key file', { optional: true })
    @ExclusiveWith(['JWT_SECRET'])
    JWT_PRIVATE_KEY_FILE?: string;

    /** `kid` header `npm run token` writes: the key's id in the API's JWKS file. */
    @TextVar(PRINTABLE, PRINTABLE_FORM, { optional: true })
    JWT_KEY_ID?: string;
  }
  return TokenSigningEnv;
}
