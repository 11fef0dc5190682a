import { createHash, type Hash } from 'node:crypto';
import type { DivergenceKind, DivergenceList } from './report';
import type { SqlSession } from './sql';

/**
 * The evidence chains (docs/guarantees.md §9, docs/anchors.md "The evidence chains"): the access log (`query_log`) and
 * the wallet match runs (`wallet_match_runs`, their items digested into each run) are hash chains
 * appended only by the database's own functions (`ledger_log_access`, `ledger_add_wallet_items`,
 * `ledger_record_wallet_run`: migration 1799300000000-evidence-chains of the API), which stamp each
 * row's `seq` (gap-free) and `recorded_at` (never below its predecessor's) and move the chain's head in
 * `evidence_heads`. This module is the same hash in TypeScript and the check `npm run -s verify` runs
 * (step 6): every row recomputed from its columns — never trusting a stored hash nor a function of the
 * database, which its owner could replace — and each forgery named by its kind.
 *
 * The hash: `hash = hex(SHA-256(UTF-8(prev_hash ‖ "|" ‖ tag ‖ "|" ‖ E(f1) ‖ … ‖ "|" ‖ E(fn))))`,
 * `E(null) = "~"`, `E(text) = <UTF-8 byte length> ":" text`; prev_hash of seq 1 is 64 zeros. The
 * fields and their text forms are {@link EVIDENCE_CHAINS}' `fields`; a run's `items_sha256` is
 * {@link ItemsDigest} over its items in seq order.
 */

/** `prev_hash` of a chain's first row. */
export const EVIDENCE_GENESIS = '0'.repeat(64);

/** A field as the hash encodes it: `~` for null, else its UTF-8 byte length, `:` and the text. */
export function evidenceField(v: string | null): string {
  return v === null ? '~' : `${Buffer.byteLength(v, 'utf8')}:${v}`;
}

/** The hashed body of a row: its tag, then each field encoded ({@link evidenceField}), `|` before each. */
export function evidenceBody(tag: string, fields: readonly (string | null)[]): string {
  return tag + fields.map((f) => `|${evidenceField(f)}`).join('');
}

/** A row's hash: hex SHA-256 of `prevHash ‖ "|" ‖ body`. */
export function evidenceHash(tag: string, prevHash: string, fields: readonly (string | null)[]): string {
  return createHash('sha256')
    .update(`${prevHash}|${evidenceBody(tag, fields)}`, 'utf8')
    .digest('hex');
}

/** The tag of the body of a wallet item stored without wallet values (`wallet_values` null): its 15 fields. */
export const WALLET_ITEM_TAG = 'wallet_match_items/1';
/** The tag of the body of a wallet item stored with wallet values: its 16 fields, the 16th `wallet_values`. */
export const WALLET_ITEM_TAG_2 = 'wallet_match_items/2';
/** The tags of a wallet item's body. */
export type WalletItemTag = typeof WALLET_ITEM_TAG | typeof WALLET_ITEM_TAG_2;

/** A run's `items_sha256`: SHA-256 over the raw SHA-256 of each item's body, in seq order (no items: SHA-256 of nothing). */
export class ItemsDigest {
  private readonly outer: Hash = createHash('sha256');
  private n = 0;

  /**
   * Adds the next item: its fields in the order of {@link WALLET_ITEM_FIELDS}, under `tag`
   * ({@link WALLET_ITEM_TAG_FIELD} says which).
   * @throws Error for a tag that is neither
   */
  add(fields: readonly (string | null)[], tag: string = WALLET_ITEM_TAG): void {
    if (tag !== WALLET_ITEM_TAG && tag !== WALLET_ITEM_TAG_2) throw new Error(`unknown wallet item tag ${tag}`);
    this.outer.update(createHash('sha256').update(evidenceBody(tag, fields), 'utf8').digest());
    this.n++;
  }

  /** Items added so far. */
  get count(): number {
    return this.n;
  }

  /** The hex digest (once). */
  hex(): string {
    return this.outer.digest('hex');
  }
}

/** The divergence kinds of one chain. */
export interface EvidenceKinds {
  /** a row's stored hash is not what its columns give (changed after it was written) */
  readonly altered: DivergenceKind;
  /** seqs missing (a row deleted), in the chain or at its end (the head names a later seq) */
  readonly removed: DivergenceKind;
  /** a row whose own hash holds but whose prev_hash is not its predecessor's hash, or whose id goes back */
  readonly reordered: DivergenceKind;
  /** a `recorded_at` earlier than its predecessor's */
  readonly backdated: DivergenceKind;
  /** rows beyond the recorded head, or the head's hash not the chain's (written around the function) */
  readonly head: DivergenceKind;
}

/** One chain as verify reads it. */
export interface EvidenceChainSpec {
  /** The chain's name: its row in `evidence_heads`, and the `streamId` of its divergences. */
  readonly chain: 'query_log' | 'wallet_match_runs';
  readonly tag: string;
  /** What a row is called in a finding. */
  readonly noun: string;
  /** SQL expression of the row's identity (the divergence's `eventId`). */
  readonly key: string;
  /** SQL expression of a number that must grow with seq (the access log's id), or null. */
  readonly order: string | null;
  /** SQL array of the hashed fields, rendered as text exactly as the append function renders them. */
  readonly fields: string;
  readonly kinds: EvidenceKinds;
}

const TS = (c: string) => `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The two chains (their fields: the migration's file comment, docs/anchors.md "The evidence chains"). */
export const EVIDENCE_CHAINS: readonly EvidenceChainSpec[] = [
  {
    chain: 'query_log',
    tag: 'query_log/1',
    noun: 'access-log row',
    key: 'id::text',
    order: 'id::text',
    fields: `ARRAY[seq::text, ${TS('recorded_at')}, id::text, ${TS('at')}, actor_id, actor_role, route, params::text, result_count::text, status::text, correlation_id]`,
    kinds: {
      altered: 'ACCESS_LOG_ROW_ALTERED',
      removed: 'ACCESS_LOG_ROW_REMOVED',
      reordered: 'ACCESS_LOG_ROW_REORDERED',
      backdated: 'ACCESS_LOG_ROW_BACKDATED',
      head: 'ACCESS_LOG_HEAD_MISMATCH',
    },
  },
  {
    chain: 'wallet_match_runs',
    tag: 'wallet_match_runs/1',
    noun: 'wallet run',
    key: 'run_id::text',
    order: null,
    fields: `ARRAY[seq::text, ${TS('recorded_at')}, run_id::text, ${TS('created_at')}, actor_id, actor_role, format, file_sha256, file_bytes::text,
      file_rows::text, column_map::text, to_char(from_day, 'YYYY-MM-DD'), to_char(to_day, 'YYYY-MM-DD'), ${TS('period_from')}, ${TS('period_to')},
      scope_source, totals::text, summary::text, zero_not_in_file::text, item_count::text, correlation_id, items_sha256]`,
    kinds: {
      altered: 'WALLET_RUN_ALTERED',
      removed: 'WALLET_RUN_REMOVED',
      reordered: 'WALLET_RUN_REORDERED',
      backdated: 'WALLET_RUN_BACKDATED',
      head: 'WALLET_RUN_HEAD_MISMATCH',
    },
  },
];

/** The first 15 hashed fields of a wallet item, as text. */
const WALLET_ITEM_FIELDS_1 = `run_id::text, seq::text, status, transaction_id, type, bet_id, round_id, account_id, currency,
  to_char(gaming_day, 'YYYY-MM-DD'), ledger_amount::text, wallet_amount::text, wallet_line::text, ${TS('wallet_time')}, differences::text`;
/**
 * The hashed fields of a wallet item, as text (see {@link ItemsDigest}): 15 for an item stored
 * without wallet values (`wallet_values` null: stored before they existed), 16 with them (the 16th
 * is `wallet_values` as PostgreSQL prints the jsonb).
 */
export const WALLET_ITEM_FIELDS = `CASE WHEN wallet_values IS NULL THEN ARRAY[${WALLET_ITEM_FIELDS_1}]
  ELSE ARRAY[${WALLET_ITEM_FIELDS_1}, wallet_values::text] END`;
/** The tag of a wallet item's body, as text: `/1` without wallet values, `/2` with them (see {@link WALLET_ITEM_FIELDS}). */
export const WALLET_ITEM_TAG_FIELD = `CASE WHEN wallet_values IS NULL THEN '${WALLET_ITEM_TAG}' ELSE '${WALLET_ITEM_TAG_2}' END`;
