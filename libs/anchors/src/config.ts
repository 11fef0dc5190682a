import { resolve } from 'node:path';
import { DEFAULT_ANCHOR_DIR, DEFAULT_ANCHOR_FILE, DEFAULT_ANCHOR_INTERVAL_MS, DEFAULT_ANCHOR_PUBLIC_KEY_FILE, DEFAULT_DEV_ANCHOR_PRIVATE_KEY_FILE, type LedgerEnvironment } from '@ledger/config';

/**
 * The anchors' settings as options (docs/architecture.md §5): the variables (`ANCHOR_*`, `LEDGER_ID`)
 * are declared, defaulted and validated once, in `@ledger/config` (`WithAnchors`,
 * `WithAnchorPublisher`, `WithAnchorVerification`, used by `RelayEnv`, `LedgerApiEnv` and
 * `VerifyEnv`; docs/configuration.md lists them). This library reads no environment:
 * {@link anchorPublisherSettings} and {@link anchorVerifySettings} turn a validated configuration
 * into the options its functions take (paths resolved from the working directory).
 */

export { DEFAULT_ANCHOR_DIR, DEFAULT_ANCHOR_FILE, DEFAULT_ANCHOR_INTERVAL_MS };
/** Where development mode keeps its generated private key. */
export const DEFAULT_DEV_PRIVATE_KEY_FILE = DEFAULT_DEV_ANCHOR_PRIVATE_KEY_FILE;
/** Default public key file. */
export const DEFAULT_PUBLIC_KEY_FILE = DEFAULT_ANCHOR_PUBLIC_KEY_FILE;
/** Default grace period of verify for events not yet anchored or not yet on Kafka, in ms. */
export const DEFAULT_VERIFY_GRACE_MS = 120_000;

/** The anchor publisher's settings. */
export interface AnchorPublisherSettings {
  /** The private key file (absolute), or null when anchoring is off (no key outside development mode). */
  readonly privateKeyFile: string | null;
  /** Whether a missing key file may be generated (development mode, no key file set). */
  readonly generateKey: boolean;
  /** Refuse to start without a key. */
  readonly required: boolean;
  /** The append-only anchor file (absolute). */
  readonly anchorFile: string;
  /** The anchors topic. */
  readonly topic: string;
  /** Most time between a published change and its checkpoint, in ms. */
  readonly intervalMs: number;
  /** Explicit ledger id, or null to derive it from the database. */
  readonly ledgerId: string | null;
}

/** The validated variables {@link anchorPublisherSettings} reads (a `RelayEnv` fits). */
export interface AnchorPublisherEnv {
  readonly LEDGER_ENV: LedgerEnvironment;
  readonly ANCHOR_PRIVATE_KEY_FILE?: string;
  readonly ANCHOR_REQUIRED: boolean;
  readonly ANCHOR_FILE: string;
  readonly ANCHOR_TOPIC: string;
  readonly ANCHOR_INTERVAL_MS: number;
  readonly LEDGER_ID?: string;
}

/**
 * The publisher's settings from a validated configuration: without `ANCHOR_PRIVATE_KEY_FILE`,
 * development mode signs with {@link DEFAULT_DEV_PRIVATE_KEY_FILE} (generated when missing) and
 * any other mode does not anchor. Pure but for resolving paths from the working directory.
 * @param config the relay's validated configuration (a `RelayEnv`)
 */
export function anchorPublisherSettings(config: AnchorPublisherEnv): AnchorPublisherSettings {
  const dev = config.LEDGER_ENV === 'development';
  const explicitKey = config.ANCHOR_PRIVATE_KEY_FILE;
  return {
    privateKeyFile: explicitKey ? resolve(explicitKey) : dev ? resolve(DEFAULT_DEV_PRIVATE_KEY_FILE) : null,
    generateKey: !explicitKey && dev,
    required: config.ANCHOR_REQUIRED,
    anchorFile: resolve(config.ANCHOR_FILE),
    topic: config.ANCHOR_TOPIC,
    intervalMs: config.ANCHOR_INTERVAL_MS,
    ledgerId: config.LEDGER_ID ?? null,
  };
}

/** What verify and the API's `GET /audit/anchors/verify` check against. */
export interface AnchorVerifySettings {
  /** The anchor file (absolute). */
  readonly anchorFile: string;
  /** The public key files (absolute), in the order given. */
  readonly publicKeyFiles: string[];
  /** The anchors topic. */
  readonly anchorsTopic: string;
  /** The ledger topic holding the Kafka copy. */
  readonly eventsTopic: string;
  /** Explicit ledger id, or null to derive it from the database. */
  readonly ledgerId: string | null;
}

/** The validated variables {@link anchorVerifySettings} reads (a `LedgerApiEnv` or a `VerifyEnv` fits). */
export interface AnchorVerifyEnv {
  readonly ANCHOR_FILE: string;
  readonly ANCHOR_PUBLIC_KEY_FILE: readonly string[];
  readonly ANCHOR_TOPIC: string;
  readonly LEDGER_EVENTS_TOPIC: string;
  readonly LEDGER_ID?: string;
}

/**
 * The verifier's settings from a validated configuration. Pure but for resolving paths from the working directory.
 * @param config verify's validated configuration (a `VerifyEnv`) or the API's (a `LedgerApiEnv`)
 */
export function anchorVerifySettings(config: AnchorVerifyEnv): AnchorVerifySettings {
  return {
    anchorFile: resolve(config.ANCHOR_FILE),
    publicKeyFiles: config.ANCHOR_PUBLIC_KEY_FILE.map((f) => resolve(f)),
    anchorsTopic: config.ANCHOR_TOPIC,
    eventsTopic: config.LEDGER_EVENTS_TOPIC,
    ledgerId: config.LEDGER_ID ?? null,
  };
}
