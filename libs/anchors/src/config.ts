import { resolve } from 'node:path';
import { LEDGER_ANCHORS_TOPIC, LEDGER_EVENTS_TOPIC } from '@ledger/infra';

/**
 * The anchors' configuration from the environment (docs/architecture.md §5), validated: a bad value
 * stops the caller with a message naming the variable and the expected form.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `ANCHOR_PRIVATE_KEY_FILE` | development: `.stack/anchors/anchor-private.pem` (generated); else none | Ed25519 private key, PEM PKCS#8 |
 * | `ANCHOR_PUBLIC_KEY_FILE` | `.stack/anchors/anchor-public.pem` | the public key(s) verify and the API check with (comma-separated files) |
 * | `ANCHOR_FILE` | `.stack/anchors/anchors.jsonl` | the append-only anchor file |
 * | `ANCHOR_TOPIC` | `baccarat.ledger.anchors.v1` | the anchors topic |
 * | `ANCHOR_INTERVAL_MS` | `10000` | most time between a change and its checkpoint (a shoe close anchors at once) |
 * | `ANCHOR_REQUIRED` | `false` | `true`: the relay refuses to start without a key |
 * | `LEDGER_ID` | `<database name>@<database oid>` | names the ledger in every checkpoint |
 * | `LEDGER_ENV` | — | `development` allows the generated key |
 */

/** Folder of the development key and the default anchor file, relative to the working directory. */
export const DEFAULT_ANCHOR_DIR = '.stack/anchors';
/** Default anchor file. */
export const DEFAULT_ANCHOR_FILE = `${DEFAULT_ANCHOR_DIR}/anchors.jsonl`;
/** Where development mode keeps its generated private key. */
export const DEFAULT_DEV_PRIVATE_KEY_FILE = `${DEFAULT_ANCHOR_DIR}/anchor-private.pem`;
/** Default public key file. */
export const DEFAULT_PUBLIC_KEY_FILE = `${DEFAULT_ANCHOR_DIR}/anchor-public.pem`;
/** Default most time between a change and its checkpoint, in ms. */
export const DEFAULT_ANCHOR_INTERVAL_MS = 10_000;
/** Default grace period of verify for events not yet anchored or not yet on Kafka, in ms. */
export const DEFAULT_VERIFY_GRACE_MS = 120_000;

type Env = Readonly<Record<string, string | undefined>>;

/** The anchor publisher's settings. */
export interface AnchorEnvConfig {
  /** The private key file, or null when anchoring is off (no key outside development mode). */
  readonly privateKeyFile: string | null;
  /** Whether a missing key file may be generated (development mode, default path). */
  readonly generateKey: boolean;
  /** Refuse to start without a key. */
  readonly required: boolean;
  readonly anchorFile: string;
  readonly topic: string;
  readonly intervalMs: number;
  /** Explicit ledger id, or null to derive it from the database. */
  readonly ledgerId: string | null;
}

/** Whether `LEDGER_ENV=development`. */
export function isDevelopment(env: Env = process.env): boolean {
  return env.LEDGER_ENV === 'development';
}

/**
 * Reads the publisher's settings.
 * @throws Error naming the variable for a value of the wrong form
 */
export function anchorConfigFromEnv(env: Env = process.env): AnchorEnvConfig {
  const dev = isDevelopment(env);
  const explicitKey = nonEmpty(env.ANCHOR_PRIVATE_KEY_FILE);
  return {
    privateKeyFile: explicitKey ? resolve(explicitKey) : dev ? resolve(DEFAULT_DEV_PRIVATE_KEY_FILE) : null,
    generateKey: !explicitKey && dev,
    required: bool(env.ANCHOR_REQUIRED, 'ANCHOR_REQUIRED', false),
    anchorFile: resolve(nonEmpty(env.ANCHOR_FILE) ?? DEFAULT_ANCHOR_FILE),
    topic: topicName(env.ANCHOR_TOPIC, 'ANCHOR_TOPIC', LEDGER_ANCHORS_TOPIC),
    intervalMs: int(env.ANCHOR_INTERVAL_MS, 'ANCHOR_INTERVAL_MS', DEFAULT_ANCHOR_INTERVAL_MS, 100, 86_400_000),
    ledgerId: ledgerIdFrom(env.LEDGER_ID),
  };
}

/** What verify and the API read by default. */
export interface VerifyEnvConfig {
  readonly anchorFile: string;
  readonly publicKeyFiles: string[];
  readonly anchorsTopic: string;
  readonly eventsTopic: string;
  readonly ledgerId: string | null;
}

/**
 * The verifier's defaults from the environment (`ANCHOR_FILE`, `ANCHOR_PUBLIC_KEY_FILE`,
 * `ANCHOR_TOPIC`, `LEDGER_EVENTS_TOPIC`, `LEDGER_ID`).
 * @throws Error naming the variable for a value of the wrong form
 */
export function verifyConfigFromEnv(env: Env = process.env): VerifyEnvConfig {
  return {
    anchorFile: resolve(nonEmpty(env.ANCHOR_FILE) ?? DEFAULT_ANCHOR_FILE),
    publicKeyFiles: (nonEmpty(env.ANCHOR_PUBLIC_KEY_FILE) ?? DEFAULT_PUBLIC_KEY_FILE)
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean)
      .map((f) => resolve(f)),
    anchorsTopic: topicName(env.ANCHOR_TOPIC, 'ANCHOR_TOPIC', LEDGER_ANCHORS_TOPIC),
    eventsTopic: topicName(env.LEDGER_EVENTS_TOPIC, 'LEDGER_EVENTS_TOPIC', LEDGER_EVENTS_TOPIC),
    ledgerId: ledgerIdFrom(env.LEDGER_ID),
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(v: string | undefined, name: string, dflt: number, min: number, max: number): number {
  const s = nonEmpty(v);
  if (s === undefined) return dflt;
  if (!/^[0-9]+$/.test(s) || Number(s) < min || Number(s) > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max} (milliseconds), got "${v}"`);
  }
  return Number(s);
}

function bool(v: string | undefined, name: string, dflt: boolean): boolean {
  const s = nonEmpty(v);
  if (s === undefined) return dflt;
  if (s === 'true') return true;
  if (s === 'false') return false;
  throw new Error(`${name} must be true or false, got "${v}"`);
}

function topicName(v: string | undefined, name: string, dflt: string): string {
  const s = nonEmpty(v);
  if (s === undefined) return dflt;
  if (!/^[A-Za-z0-9._-]{1,249}$/.test(s)) throw new Error(`${name} must be a Kafka topic name ([A-Za-z0-9._-], 1-249), got "${v}"`);
  return s;
}

function ledgerIdFrom(v: string | undefined): string | null {
  const s = nonEmpty(v);
  if (s === undefined) return null;
  if (s.length > 200) throw new Error('LEDGER_ID must be at most 200 characters');
  return s;
}
