import { createHash, type KeyObject } from 'node:crypto';
import { canonicalJson } from '@ledger/event-store';
import type { AttestedKeys, AttestedPaytable, AttestedSignificant, AttestedTable, ConfigurationAttestedData, TableSettings } from '@ledger/events';
import type { PaytableDefinition } from '@ledger/rules';
import type { VerificationKey } from '@ledger/tokens';

/** A configured table as the fingerprint reads it: its id and the settings a shoe snapshots. */
export type TableToAttest = Pick<TableSettings, 'variant' | 'decks' | 'currency' | 'virtualTable' | 'paytableRef' | 'pairBetsRequireMainBet' | 'limits'> & { readonly tableId: string };

/** What an API started with, as {@link configurationFingerprint} reads it. */
export interface ConfigurationToAttest {
  readonly host: string;
  readonly tables: readonly TableToAttest[];
  /** Every paytable the API knows (the built-in ones). */
  readonly paytables: readonly PaytableDefinition[];
  /** The anchors' verification key ids (`ANCHOR_PUBLIC_KEY_FILE`: `ed25519:<16 hex>`). */
  readonly anchorKeyIds: readonly string[];
  /** The reports' signing key id, or null when none could be had. */
  readonly reportKeyId: string | null;
  /** The bearer tokens' verification keys (secrets or public keys: only their digests are stated). */
  readonly tokenKeys: readonly VerificationKey[];
  /** The significant-event settings in force (`significantSettingsOf` of `@ledger/significant-events`). */
  readonly significant: AttestedSignificant;
}

const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/**
 * The id of a token verification key, never the key: `hs256:` + 16 hex of the SHA-256 of a
 * domain-separated secret (at least 32 bytes: the digest does not reveal it), `rs256:` + 16 hex of the
 * SHA-256 of the public key's DER; prefixed `kid=<kid>/` when a JWKS names it.
 */
export function tokenKeyId(k: VerificationKey): string {
  const digest = k.algorithm === 'HS256' ? sha256(Buffer.concat([Buffer.from('ledger-token-key-id\0'), (k.key as KeyObject).export()])) : sha256(k.key.export({ type: 'spki', format: 'der' }));
  return `${k.kid !== null ? `kid=${k.kid}/` : ''}${k.algorithm.toLowerCase()}:${digest.slice(0, 16)}`;
}

/** One table's fingerprint: its settings, its limits by the SHA-256 of their canonical JSON. */
function attestedTable(t: TableToAttest): AttestedTable {
  return {
    tableId: t.tableId,
    variant: t.variant,
    decks: t.decks,
    currency: t.currency,
    virtualTable: t.virtualTable,
    pairBetsRequireMainBet: t.pairBetsRequireMainBet,
    limitsSha256: sha256(canonicalJson(t.limits)),
    paytableRef: t.paytableRef,
  };
}

/** One paytable's fingerprint: `id@version` and the SHA-256 of its definition's canonical JSON. */
function attestedPaytable(p: PaytableDefinition): AttestedPaytable {
  return { ref: `${p.id}@${p.version}`, sha256: sha256(canonicalJson(p)) };
}

/**
 * The data of the `ConfigurationAttested` an API appends at start (docs/significant-events.md,
 * "Configuration at start"): its tables (sorted by id), the paytables it knows (sorted by ref), the
 * ids of its keys (sorted; duplicates once) and its significant-event settings (exact text: ratios
 * `n/d`, amounts decimal strings). Ids and digests only, never a secret. Pure.
 */
export function configurationFingerprint(c: ConfigurationToAttest): ConfigurationAttestedData {
  const sorted = (ids: Iterable<string>) => [...new Set(ids)].sort();
  const keys: AttestedKeys = { anchors: sorted(c.anchorKeyIds), reports: c.reportKeyId, tokens: sorted(c.tokenKeys.map(tokenKeyId)) };
  return {
    host: c.host.slice(0, 200) || 'unknown',
    tables: c.tables.map(attestedTable).sort((a, b) => (a.tableId < b.tableId ? -1 : a.tableId > b.tableId ? 1 : 0)),
    paytables: c.paytables.map(attestedPaytable).sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)),
    keys,
    significant: { ...c.significant },
  };
}
