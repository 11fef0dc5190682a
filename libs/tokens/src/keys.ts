import { createPrivateKey, createPublicKey, createSecretKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, MIN_HS256_SECRET_BYTES, type LedgerEnvironment } from '@ledger/config';
import { DEV_JWT_SECRET } from './jwt-secret';

/**
 * The keys of the bearer tokens (docs/architecture.md §10), read once at start from the validated
 * configuration. Algorithms are pinned by the key: a secret verifies HS256 only, an RSA key RS256
 * only, so a token cannot choose its algorithm (`none`, or HS256 "signed" with the public key).
 * EdDSA is not offered: `jsonwebtoken` 9 (its `jwa` 2) cannot sign nor verify it ("algorithm must be
 * a valid string enum value", "Unknown key type ed25519"); RS256 is the asymmetric choice.
 */

/** The algorithms the ledger's tokens may use. */
export type TokenAlgorithm = 'HS256' | 'RS256';

/** Shortest RSA modulus accepted, in bits. */
export const MIN_RSA_MODULUS_BITS = 2048;

/** A key that verifies tokens of one algorithm. */
export interface VerificationKey {
  /** The `kid` a token must name to be verified by it (JWKS keys); null: any token. */
  readonly kid: string | null;
  readonly algorithm: TokenAlgorithm;
  /** A secret key (HS256) or an RSA public key (RS256). */
  readonly key: KeyObject;
}

/** Where the API's verification keys came from. */
export interface VerificationKeySet {
  /** At least one; with kids when read from a JWKS file. */
  readonly keys: readonly VerificationKey[];
  /** The variable they came from, or `development secret`. */
  readonly source: 'JWT_SECRET' | 'JWT_PUBLIC_KEY_FILE' | 'JWT_JWKS_FILE' | 'development secret';
  /** True when the public development secret is in use (development mode only): log a warning. */
  readonly developmentSecret: boolean;
}

/** The part of the API's configuration (`LedgerApiEnv`) the verification keys come from. */
export interface VerificationKeySettings {
  readonly LEDGER_ENV: LedgerEnvironment;
  readonly JWT_SECRET?: string;
  readonly JWT_PUBLIC_KEY_FILE?: string;
  readonly JWT_JWKS_FILE?: string;
}

/** A key that signs tokens. */
export interface SigningKey {
  readonly algorithm: TokenAlgorithm;
  /** A secret key (HS256) or an RSA private key (RS256). */
  readonly key: KeyObject;
  /** `kid` header to write; none when null or absent. */
  readonly kid?: string | null;
}

/** The part of the tools' configuration (`TokenToolEnv`) the signing key comes from. */
export interface SigningKeySettings {
  readonly LEDGER_ENV: LedgerEnvironment;
  readonly JWT_SECRET?: string;
  readonly JWT_PRIVATE_KEY_FILE?: string;
  readonly JWT_KEY_ID?: string;
}

type ReadFile = (path: string) => string;
const readText: ReadFile = (path) => readFileSync(path, 'utf8');

function refuse(variable: string, message: string): never {
  throw new ConfigError([{ variable, message }]);
}

const REQUIRED = `required outside development mode (LEDGER_ENV=development): an HS256 secret of at least ${MIN_HS256_SECRET_BYTES} bytes, or an RS256 key file`;

/**
 * An HS256 key from a secret.
 * @throws ConfigError naming `JWT_SECRET` when shorter than 32 bytes, or when it is the development
 *   secret outside development mode
 */
export function hs256Key(secret: string, development = true): SigningKey & VerificationKey {
  if (Buffer.byteLength(secret, 'utf8') < MIN_HS256_SECRET_BYTES) refuse('JWT_SECRET', `expected a secret of at least ${MIN_HS256_SECRET_BYTES} bytes`);
  if (!development && secret === DEV_JWT_SECRET) {
    refuse('JWT_SECRET', 'is the public development secret from the repository: outside development mode set a secret of your own (openssl rand -base64 48)');
  }
  return { kid: null, algorithm: 'HS256', key: createSecretKey(Buffer.from(secret, 'utf8')) };
}

function checkRsa(variable: string, key: KeyObject): KeyObject {
  if (key.asymmetricKeyType !== 'rsa') {
    refuse(variable, `holds a ${key.asymmetricKeyType ?? 'unknown'} key: expected an RSA key (RS256; jsonwebtoken 9 cannot verify EdDSA)`);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_MODULUS_BITS) refuse(variable, `RSA key of ${bits} bits: expected at least ${MIN_RSA_MODULUS_BITS}`);
  return key;
}

function readKeyFile(variable: string, path: string, readFile: ReadFile): string {
  try {
    return readFile(path);
  } catch (e) {
    return refuse(variable, `cannot read ${JSON.stringify(path)}: ${(e as Error).message}`);
  }
}

/**
 * The API's verification keys, from (exactly one of) `JWT_SECRET`, `JWT_PUBLIC_KEY_FILE` or
 * `JWT_JWKS_FILE`; in development mode without any, the development secret.
 * @param readFile reads a key file (tests pass their own) @default fs.readFileSync as UTF-8
 * @throws ConfigError naming the variable: no key outside development mode; a short secret or the
 *   development secret outside development mode; an unreadable or malformed file; a private key
 *   given to the API; a key that is not RSA of at least 2048 bits; a JWKS key without a unique `kid`
 */
export function loadVerificationKeys(settings: VerificationKeySettings, readFile: ReadFile = readText): VerificationKeySet {
  const development = settings.LEDGER_ENV === 'development';
  const given = (['JWT_SECRET', 'JWT_PUBLIC_KEY_FILE', 'JWT_JWKS_FILE'] as const).filter((k) => settings[k] !== undefined);
  if (given.length > 1) refuse(given[1], `set only one of ${given.join(', ')}`);
  if (settings.JWT_SECRET !== undefined) return { keys: [hs256Key(settings.JWT_SECRET, development)], source: 'JWT_SECRET', developmentSecret: false };
  if (settings.JWT_PUBLIC_KEY_FILE !== undefined) {
    const pem = readKeyFile('JWT_PUBLIC_KEY_FILE', settings.JWT_PUBLIC_KEY_FILE, readFile);
    if (/PRIVATE KEY/.test(pem)) refuse('JWT_PUBLIC_KEY_FILE', 'holds a private key: give the API the public key only (openssl pkey -in private.pem -pubout)');
    let key: KeyObject;
    try {
      key = createPublicKey(pem);
    } catch (e) {
      return refuse('JWT_PUBLIC_KEY_FILE', `not a PEM public key: ${(e as Error).message}`);
    }
    return { keys: [{ kid: null, algorithm: 'RS256', key: checkRsa('JWT_PUBLIC_KEY_FILE', key) }], source: 'JWT_PUBLIC_KEY_FILE', developmentSecret: false };
  }
  if (settings.JWT_JWKS_FILE !== undefined) {
    return { keys: parseJwks(readKeyFile('JWT_JWKS_FILE', settings.JWT_JWKS_FILE, readFile)), source: 'JWT_JWKS_FILE', developmentSecret: false };
  }
  if (!development) refuse('JWT_SECRET', REQUIRED);
  return { keys: [hs256Key(DEV_JWT_SECRET)], source: 'development secret', developmentSecret: true };
}

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/**
 * The RS256 keys of a JWKS document (`{"keys":[{"kty":"RSA","kid":…,"n":…,"e":…}]}`).
 * @throws ConfigError naming `JWT_JWKS_FILE`
 */
export function parseJwks(text: string): VerificationKey[] {
  const V = 'JWT_JWKS_FILE';
  let doc: { keys?: unknown };
  try {
    doc = JSON.parse(text) as { keys?: unknown };
  } catch (e) {
    return refuse(V, `not JSON: ${(e as Error).message}`);
  }
  if (!doc || !Array.isArray(doc.keys) || doc.keys.length === 0) refuse(V, 'expected {"keys":[…]} with at least one key');
  const kids = new Set<string>();
  return (doc.keys as unknown[]).map((raw, i) => {
    const jwk = (raw ?? {}) as JsonWebKey & { kid?: unknown; use?: unknown; alg?: unknown };
    const where = `key ${i}`;
    if (typeof jwk.kid !== 'string' || jwk.kid === '' || kids.has(jwk.kid)) refuse(V, `${where}: expected a unique non-empty "kid"`);
    kids.add(jwk.kid as string);
    if (jwk.kty !== 'RSA') refuse(V, `${where} (${jwk.kid}): kty ${JSON.stringify(jwk.kty)}: expected "RSA" (RS256; jsonwebtoken 9 cannot verify EdDSA)`);
    if (jwk.use !== undefined && jwk.use !== 'sig') refuse(V, `${where} (${jwk.kid}): "use" must be "sig"`);
    if (jwk.alg !== undefined && jwk.alg !== 'RS256') refuse(V, `${where} (${jwk.kid}): "alg" must be "RS256"`);
    if (PRIVATE_JWK_MEMBERS.some((m) => m in jwk)) refuse(V, `${where} (${jwk.kid}): holds private key material: publish the public key only`);
    let key: KeyObject;
    try {
      key = createPublicKey({ key: jwk, format: 'jwk' });
    } catch (e) {
      return refuse(V, `${where} (${jwk.kid}): not a valid RSA public key: ${(e as Error).message}`);
    }
    return { kid: jwk.kid as string, algorithm: 'RS256' as const, key: checkRsa(V, key) };
  });
}

/**
 * The key the tools sign with: `JWT_PRIVATE_KEY_FILE` (RS256, with `JWT_KEY_ID` as `kid`) or
 * `JWT_SECRET` (HS256); in development mode without either, the development secret.
 * @throws ConfigError naming the variable (see {@link loadVerificationKeys})
 */
export function loadSigningKey(settings: SigningKeySettings, readFile: ReadFile = readText): { key: SigningKey; developmentSecret: boolean } {
  const development = settings.LEDGER_ENV === 'development';
  if (settings.JWT_PRIVATE_KEY_FILE !== undefined && settings.JWT_SECRET !== undefined) refuse('JWT_PRIVATE_KEY_FILE', 'set only one of JWT_PRIVATE_KEY_FILE, JWT_SECRET');
  if (settings.JWT_PRIVATE_KEY_FILE !== undefined) {
    const pem = readKeyFile('JWT_PRIVATE_KEY_FILE', settings.JWT_PRIVATE_KEY_FILE, readFile);
    let key: KeyObject;
    try {
      key = createPrivateKey(pem);
    } catch (e) {
      return refuse('JWT_PRIVATE_KEY_FILE', `not a PEM private key: ${(e as Error).message}`);
    }
    return { key: { algorithm: 'RS256', key: checkRsa('JWT_PRIVATE_KEY_FILE', key), kid: settings.JWT_KEY_ID }, developmentSecret: false };
  }
  if (settings.JWT_SECRET !== undefined) return { key: { ...hs256Key(settings.JWT_SECRET, development), kid: settings.JWT_KEY_ID }, developmentSecret: false };
  if (!development) refuse('JWT_SECRET', REQUIRED);
  return { key: hs256Key(DEV_JWT_SECRET), developmentSecret: true };
}
