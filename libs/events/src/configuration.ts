/**
 * The configuration an API attests at start (docs/significant-events.md, "Configuration at start"):
 * the data of `ConfigurationAttested`.
 */

/** One configured table as a {@link ConfigurationAttestedData} states it (`TABLES_FILE`): its settings, its limits by digest. */
export interface AttestedTable {
  readonly tableId: string;
  readonly variant: string;
  readonly decks: number;
  readonly currency: string;
  readonly virtualTable: boolean;
  readonly pairBetsRequireMainBet: boolean;
  /** SHA-256 (hex) of the canonical JSON of its bet limits (`{ betCode: { min, max } }`, minor units). */
  readonly limitsSha256: string;
  /** Its paytable, `id@version`. */
  readonly paytableRef: string;
}

/** One paytable the API knows, as a {@link ConfigurationAttestedData} states it. */
export interface AttestedPaytable {
  /** `id@version`. */
  readonly ref: string;
  /** SHA-256 (hex) of the canonical JSON of its definition (payoffs, commission, side-bet windows). */
  readonly sha256: string;
}

/**
 * The ids of the keys an API started with (never a secret): `ed25519:<16 hex>` for an Ed25519 key,
 * `rs256:<16 hex>` (SHA-256 of the public key's DER) or `hs256:<16 hex>` (SHA-256 of the secret,
 * domain-separated) for a token key, prefixed `kid=<kid>/` when a JWKS names it.
 */
export interface AttestedKeys {
  /** The anchors' verification keys (`ANCHOR_PUBLIC_KEY_FILE`), sorted; empty when unreadable. */
  readonly anchors: readonly string[];
  /** The reports' and manifests' signing key (`REPORT_SIGNING_KEY_FILE`, the report signer, or the development key); null when none could be had at start. */
  readonly reports: string | null;
  /** The bearer tokens' verification keys (`JWT_SECRET`, `JWT_PUBLIC_KEY_FILE`, `JWT_JWKS_FILE`), sorted. */
  readonly tokens: readonly string[];
}

/**
 * What an API started with (docs/significant-events.md, "Configuration at start"): at each start
 * (unless `CONFIGURATION_ATTESTATION` is false) the API states fingerprints of its tables, of the
 * paytables it knows and of its keys' ids. Appended to the current gaming day's stream (ledger-wide,
 * like `ClockAttested`). The significant-event monitor compares it with the previous
 * attestation of the ledger and raises `CONFIG.TABLES_CHANGED`, `CONFIG.PAYTABLES_CHANGED`,
 * `CONFIG.KEYS_ROTATED` or `CONFIG.SIGNIFICANT_SETTINGS_CHANGED` for the parts that differ. Actor: `system` `configuration-attestor`.
 */
export interface ConfigurationAttestedData {
  /** The API's host name (`os.hostname()`). */
  readonly host: string;
  /** Every configured table, sorted by `tableId`. */
  readonly tables: readonly AttestedTable[];
  /** Every paytable the API knows, sorted by `ref`. */
  readonly paytables: readonly AttestedPaytable[];
  readonly keys: AttestedKeys;
  /**
   * The significant-event settings in force (docs/significant-events.md, "What is attested"): what
   * `npm run -s verify` detects the raises again with. Absent from attestations written before it
   * was attested (verify then falls back to the configuration's documented defaults).
   */
  readonly significant?: AttestedSignificant;
}

/**
 * The significant-event monitor's settings as a {@link ConfigurationAttestedData} states them: exact
 * text, never a float (ratios `n/d`, amounts decimal strings, durations integers).
 */
export interface AttestedSignificant {
  /** `SIGNIFICANT_MONITOR`: whether this API raises significant events at all. */
  readonly monitor: boolean;
  /** `SIGNIFICANT_WIN_MULTIPLE` as `n/d` (`100/1`). */
  readonly winMultiple: string;
  /** `SIGNIFICANT_WIN_AMOUNT_MINOR`: minor units, decimal string (the same for every currency). */
  readonly winAmountMinor: string;
  /** `OCCURRED_AT_MAX_SKEW_MS`, in ms. */
  readonly clockSkewBoundMs: number;
  /** `FAIRNESS_ALERT_CONFIDENCE` as `n/d` (`95/100`). */
  readonly fairnessConfidence: string;
  /** `SIGNIFICANT_FLOOD_WINDOW_SECONDS`, in s. */
  readonly floodWindowSeconds: number;
}
