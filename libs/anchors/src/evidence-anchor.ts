import { EVIDENCE_CHAINS, EVIDENCE_GENESIS, evidenceHash, type EvidenceChainSpec } from './evidence-chains';
import type { AnchoredStream } from './merkle';
import type { SqlSession } from './sql';

/**
 * The evidence chains in the signed checkpoints (docs/anchors.md "The format" and "The evidence chains"): each checkpoint names,
 * among its `streams`, the head of every evidence chain that grew since the last checkpoint, as the
 * stream `evidence:<chain>` (`evidence:query_log`, `evidence:wallet_match_runs`) with `version` = the
 * row's seq and `headHash` = its hash. The format, the Merkle leaves and the signature are those of
 * any stream, so checkpoints signed before stay valid and readers of the format need no change.
 * Like an event stream's, a chain's head is signed only when its new rows extend the head signed
 * before: each row's hash recomputed from its columns, its seq the next and its `prev_hash` the hash
 * before it; a chain that does not is signed up to its last good row and reported.
 */

/** Prefix of an evidence chain's stream id in a checkpoint. */
export const EVIDENCE_STREAM_PREFIX = 'evidence:';

/** The checkpoint stream id of a chain (`evidence:query_log`). */
export function evidenceStreamId(chain: EvidenceChainSpec['chain']): string {
  return `${EVIDENCE_STREAM_PREFIX}${chain}`;
}

/** Whether a checkpoint's stream id names an evidence chain rather than a stream of events. */
export function isEvidenceStream(streamId: string): boolean {
  return streamId.startsWith(EVIDENCE_STREAM_PREFIX);
}

/** A chain whose new rows do not extend its signed head: where, and why. */
export interface BrokenEvidence {
  readonly chain: EvidenceChainSpec['chain'];
  readonly seq: string;
  readonly problem: string;
}

/** Options of {@link collectEvidenceHeads}. */
export interface CollectEvidenceOptions {
  readonly session: SqlSession;
  /** The head last signed of a checkpoint stream id, if any. */
  readonly signed: (streamId: string) => { readonly version: number; readonly headHash: string } | undefined;
  /** Told of a chain whose rows stop extending its signed head (its head is signed up to the row before). */
  readonly onBroken: (b: BrokenEvidence) => void;
}

const PAGE = 5000;

/**
 * The new head of every evidence chain that grew and extends its signed head (see the file comment).
 * None when the API's migrations have not run or the session may not read a chain.
 */
export async function collectEvidenceHeads(o: CollectEvidenceOptions): Promise<AnchoredStream[]> {
  const [t] = await o.session.query(`SELECT to_regclass('public.evidence_heads') IS NOT NULL AS present`);
  if (!t?.present) return [];
  const out: AnchoredStream[] = [];
  for (const spec of EVIDENCE_CHAINS) {
    const [p] = await o.session.query(`SELECT has_table_privilege($1::text, 'SELECT') AS may`, [spec.chain]);
    if (!p?.may) continue;
    const streamId = evidenceStreamId(spec.chain);
    const head = await extendHead(o, spec, o.signed(streamId));
    if (head) out.push({ streamId, version: head.version, headHash: head.headHash });
  }
  return out;
}

/** Walks a chain's rows after its signed head; @returns the last row that extends it, or null when none does. */
async function extendHead(o: CollectEvidenceOptions, spec: EvidenceChainSpec, signed: { version: number; headHash: string } | undefined): Promise<{ version: number; headHash: string } | null> {
  let seq = BigInt(signed?.version ?? 0);
  let hash = signed?.headHash ?? EVIDENCE_GENESIS;
  let moved = false;
  for (;;) {
    const rows: { seq: string; prev_hash: string; hash: string; fields: (string | null)[] }[] = await o.session.query(
      `SELECT seq::text AS seq, prev_hash, hash, ${spec.fields} AS fields FROM ${spec.chain} WHERE ${spec.chain}.seq > $1::bigint ORDER BY ${spec.chain}.seq LIMIT ${PAGE}`,
      [seq.toString()],
    );
    for (const r of rows) {
      const problem =
        BigInt(r.seq) !== seq + 1n
          ? `seq ${r.seq} follows seq ${seq}`
          : r.prev_hash !== hash
            ? `its prev_hash ${r.prev_hash} is not the hash ${hash} of seq ${seq}`
            : evidenceHash(spec.tag, r.prev_hash, r.fields) !== r.hash
              ? `its stored hash is not what its columns give`
              : null;
      if (problem) {
        o.onBroken({ chain: spec.chain, seq: r.seq, problem });
        return moved ? { version: Number(seq), headHash: hash } : null;
      }
      seq = BigInt(r.seq);
      hash = r.hash;
      moved = true;
    }
    if (rows.length < PAGE) break;
  }
  return moved ? { version: Number(seq), headHash: hash } : null;
}
