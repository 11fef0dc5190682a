import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { publicKeyId } from './checkpoint';

/**
 * The anchor signing key (docs/architecture.md §10): Ed25519, PEM. The private key (PKCS#8) stays
 * with the relay; the public key (SubjectPublicKeyInfo) is what auditors and regulators verify with.
 */

/** File name of the public key written beside a generated development key. */
export const PUBLIC_KEY_FILE_NAME = 'anchor-public.pem';

/** A loaded signing key. */
export interface AnchorSigningKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** See {@link publicKeyId}. */
  readonly keyId: string;
  /** Where the private key was read from. */
  readonly file: string;
  /** True when this call generated the key (development mode, no key yet). */
  readonly generated: boolean;
}

/**
 * Reads an Ed25519 private key (PEM, PKCS#8).
 * @param variable the env variable that named the file, for the error message
 * @throws Error naming the variable and the file when it cannot be read or is not an Ed25519 private key
 */
export function readSigningKey(file: string, variable = 'ANCHOR_PRIVATE_KEY_FILE'): AnchorSigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(readFileSync(file));
  } catch (err) {
    throw new Error(`${variable}: cannot read an Ed25519 private key (PEM, PKCS#8) from ${file}: ${(err as Error).message}`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') {
    throw new Error(`${variable}: ${file} holds a ${privateKey.asymmetricKeyType} key; anchors are signed with Ed25519`);
  }
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyId: publicKeyId(publicKey), file, generated: false };
}

/**
 * Development mode: the key at `file`, generated (mode 0600) if missing, with its public key written
 * beside it as {@link PUBLIC_KEY_FILE_NAME} (also when only that one is missing).
 */
export function loadOrCreateDevelopmentKey(file: string): AnchorSigningKey {
  let generated = false;
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const { privateKey } = generateKeyPairSync('ed25519');
    // 'wx': never overwrite a key another process wrote in the meantime.
    try {
      writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
      generated = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const key = readSigningKey(file);
  const pubFile = join(dirname(file), PUBLIC_KEY_FILE_NAME);
  if (!existsSync(pubFile)) writeFileSync(pubFile, publicKeyPem(key.publicKey), { mode: 0o644 });
  return { ...key, generated };
}

/** PEM (SubjectPublicKeyInfo) of a public key. */
export function publicKeyPem(key: KeyObject): string {
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

/**
 * Reads public keys (PEM, SubjectPublicKeyInfo; a file may hold several) into a map keyed by
 * {@link publicKeyId}. Several files allow checkpoints signed by a rotated-out key.
 * @throws Error naming the file when it cannot be read or holds no Ed25519 public key
 */
export function readPublicKeys(files: readonly string[]): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read the anchor public key ${file}: ${(err as Error).message}`);
    }
    const blocks = text.match(/-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g) ?? [];
    for (const pem of blocks) {
      const key = createPublicKey(pem);
      if (key.asymmetricKeyType === 'ed25519') keys.set(publicKeyId(key), key);
    }
    if (blocks.length === 0) throw new Error(`${file} holds no PEM public key`);
  }
  return keys;
}
