import { evidenceStreamId } from './evidence-anchor';
import { EVIDENCE_CHAINS, EVIDENCE_GENESIS, ItemsDigest, WALLET_ITEM_FIELDS, WALLET_ITEM_TAG_FIELD, evidenceHash, type EvidenceChainSpec } from './evidence-chains';
import type { DivergenceList } from './report';
import type { SqlSession } from './sql';

/**
 * Step 6 of `npm run -s verify` (docs/anchors.md "The evidence chains"): the evidence chains of `evidence-chains.ts`,
 * recomputed row by row from their columns in one read-only snapshot, against themselves, against
 * their heads in `evidence_heads` and against the heads the checkpoints signed (`evidence-anchor.ts`:
 * the chain recomputed from the columns alone, never from a stored hash, must give each signed head);
 * each wallet run's items against the run's `items_sha256`.
 */

/** A head a checkpoint signed: the chain's seq (`version`), its hash, and the checkpoint's seq. */
export interface SignedEvidenceHead {
  readonly version: number;
  readonly headHash: string;
  readonly seq: number;
}

const FETCH = 2000;

/** A chain's row as the walk reads it (every value as text). */
interface ChainRow {
  readonly seq: string;
  readonly key: string;
  readonly ord: string | null;
  readonly recorded: string;
  readonly prev_hash: string;
  readonly hash: string;
  readonly items_sha256: string | null;
  readonly fields: (string | null)[];
}

/** Where a walk of one chain is. */
interface ChainWalk {
  readonly spec: EvidenceChainSpec;
  expectedSeq: bigint;
  prevHash: string;
  lastTime: string | null;
  lastOrder: bigint | null;
  rows: number;
  /** The chain from the columns alone (each row hashed onto the previous recomputed hash). */
  recomputed: string;
  /** The signed heads of the chain, in seq order, and the next one to meet. */
  readonly signed: readonly SignedEvidenceHead[];
  next: number;
  lastMatched: number;
  signedReported: boolean;
}

/** What {@link checkEvidenceChains} read. */
export interface EvidenceTally {
  /** Rows of every chain (access-log rows and wallet runs) checked. */
  readonly rows: number;
  /** Wallet items checked against their runs. */
  readonly items: number;
}

/**
 * Checks every evidence chain (see the file comment) and adds what it finds to `out` (source
 * `evidence`). Skipped on a database without `evidence_heads` (the API's migrations not run).
 * @param session a session that may read `evidence_heads`, `query_log` and the wallet tables
 */
export async function checkEvidenceChains(session: SqlSession, out: DivergenceList, signed: ReadonlyMap<string, readonly SignedEvidenceHead[]> = new Map()): Promise<EvidenceTally> {
  const [t] = await session.query(`SELECT to_regclass('evidence_heads') IS NOT NULL AS present`);
  if (!t?.present) return { rows: 0, items: 0 };
  let rows = 0;
  let items = 0;
  await session.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const heads: { chain: string; seq: string; hash: string }[] = await session.query(`SELECT chain, seq::text AS seq, hash FROM evidence_heads`);
    for (const spec of EVIDENCE_CHAINS) {
      const digests = new Map<string, { seq: string; itemsSha256: string }>();
      const walk = await walkChain(session, { spec, out, digests, signed: signed.get(evidenceStreamId(spec.chain)) ?? [] });
      checkHead(walk, heads.find((h) => h.chain === spec.chain) ?? null, out);
      checkSignedBeyond(walk, out);
      rows += walk.rows;
      if (spec.chain === 'wallet_match_runs') items += await checkItems(session, digests, out);
    }
  } finally {
    await session.query('ROLLBACK').catch(() => undefined);
  }
  return { rows, items };
}

/** What {@link walkChain} walks and where it reports. */
interface WalkInput {
  readonly spec: EvidenceChainSpec;
  readonly out: DivergenceList;
  /** Filled with each run's recorded items digest (the wallet runs). */
  readonly digests: Map<string, { seq: string; itemsSha256: string }>;
  readonly signed: readonly SignedEvidenceHead[];
}

/** Reads a chain in seq order through a cursor and checks each row ({@link checkRow}, {@link checkSigned}). */
async function walkChain(session: SqlSession, i: WalkInput): Promise<ChainWalk> {
  const { spec, out, digests } = i;
  const signed = [...i.signed].sort((a, b) => a.version - b.version || a.seq - b.seq);
  const walk: ChainWalk = { spec, expectedSeq: 1n, prevHash: EVIDENCE_GENESIS, lastTime: null, lastOrder: null, rows: 0, recomputed: EVIDENCE_GENESIS, signed, next: 0, lastMatched: 0, signedReported: false };
  const items = spec.chain === 'wallet_match_runs' ? 'items_sha256' : 'NULL::text AS items_sha256';
  // (ordered by the bigint column: the output column named seq is text)
  await session.query(
    `DECLARE evidence_verify NO SCROLL CURSOR FOR
       SELECT seq::text AS seq, ${spec.key} AS key, ${spec.order ?? 'NULL::text'} AS ord, to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS recorded,
              prev_hash, hash, ${items}, ${spec.fields} AS fields
         FROM ${spec.chain} ORDER BY ${spec.chain}.seq`,
  );
  for (;;) {
    const batch: ChainRow[] = await session.query(`FETCH ${FETCH} FROM evidence_verify`);
    for (const row of batch) {
      checkRow(walk, row, out);
      checkSigned(walk, row, out);
      if (row.items_sha256 !== null) digests.set(row.key, { seq: row.seq, itemsSha256: row.items_sha256 });
    }
    if (batch.length < FETCH) break;
  }
  await session.query('CLOSE evidence_verify');
  return walk;
}

/**
 * One row against its own columns (altered), its seq (removed before it), its predecessor's hash and
 * id (reordered) and its predecessor's time (back-dated).
 */
function checkRow(w: ChainWalk, row: ChainRow, out: DivergenceList): void {
  const { spec } = w;
  const seq = BigInt(row.seq);
  const at = { source: 'evidence' as const, streamId: spec.chain, version: Number(seq), eventId: row.key };
  const name = `${spec.noun} ${row.key} (seq ${seq})`;
  const gap = seq !== w.expectedSeq;
  if (gap) {
    out.add({ ...at, kind: spec.kinds.removed, reason: `seqs ${w.expectedSeq}..${seq - 1n} of ${spec.chain} are missing before ${name}: removed` });
  }
  const recomputed = evidenceHash(spec.tag, row.prev_hash, row.fields);
  w.recomputed = row.prev_hash === w.recomputed ? recomputed : evidenceHash(spec.tag, w.recomputed, row.fields);
  if (recomputed !== row.hash) {
    out.add({ ...at, kind: spec.kinds.altered, reason: `${name}: its columns give hash ${recomputed}, but it stores ${row.hash}: changed after it was written` });
  } else if (row.prev_hash !== w.prevHash && !gap) {
    out.add({
      ...at,
      kind: spec.kinds.reordered,
      reason: `${name} names ${row.prev_hash} as its predecessor, but seq ${seq - 1n} has hash ${w.prevHash}: moved, or written in the place of another row`,
    });
  }
  if (row.ord !== null) {
    const ord = BigInt(row.ord);
    if (w.lastOrder !== null && ord <= w.lastOrder) {
      out.add({ ...at, kind: spec.kinds.reordered, reason: `${name}: its id ${ord} is not above the id ${w.lastOrder} of the row before it in seq order` });
    }
    w.lastOrder = ord;
  }
  if (w.lastTime !== null && row.recorded < w.lastTime) {
    out.add({ ...at, kind: spec.kinds.backdated, reason: `${name} was recorded at ${row.recorded}, before the row before it (${w.lastTime}): back-dated` });
  }
  if (w.lastTime === null || row.recorded > w.lastTime) w.lastTime = row.recorded;
  w.prevHash = row.hash;
  w.expectedSeq = seq + 1n;
  w.rows++;
}

/** The signed heads up to this row's seq: each there, and the chain recomputed from the columns equal to it (reported once per chain). */
function checkSigned(w: ChainWalk, row: ChainRow, out: DivergenceList): void {
  const { spec } = w;
  const seq = Number(row.seq);
  for (; w.next < w.signed.length && w.signed[w.next].version <= seq; w.next++) {
    const h = w.signed[w.next];
    const at = { source: 'evidence' as const, streamId: spec.chain, version: h.version, anchorSeq: h.seq };
    if (h.version < seq) {
      out.add({ ...at, kind: spec.kinds.removed, reason: `checkpoint #${h.seq} signed seq ${h.version} of ${spec.chain}, which its rows do not have: removed` });
    } else if (h.headHash !== w.recomputed) {
      if (!w.signedReported) {
        out.add({
          ...at,
          eventId: row.key,
          kind: spec.kinds.head,
          reason: `the chain recomputed from the rows of ${spec.chain} gives ${w.recomputed} at seq ${h.version}, but checkpoint #${h.seq} signed ${h.headHash}: a row among seqs ${w.lastMatched + 1}..${h.version} was altered, removed or inserted`,
        });
      }
      w.signedReported = true;
    } else if (!w.signedReported) {
      w.lastMatched = h.version;
    }
  }
}

/** Signed heads beyond the chain's last row: its last rows were removed. */
function checkSignedBeyond(w: ChainWalk, out: DivergenceList): void {
  const last = w.expectedSeq - 1n;
  for (; w.next < w.signed.length; w.next++) {
    const h = w.signed[w.next];
    out.add({
      source: 'evidence',
      kind: w.spec.kinds.removed,
      streamId: w.spec.chain,
      version: h.version,
      anchorSeq: h.seq,
      reason: `checkpoint #${h.seq} signed seq ${h.version} of ${w.spec.chain}, but its rows end at seq ${last}: the last ones were removed`,
    });
  }
}

/** The chain's end against its head in `evidence_heads`: rows removed at the end, or written beside the function. */
function checkHead(w: ChainWalk, head: { seq: string; hash: string } | null, out: DivergenceList): void {
  const { spec } = w;
  const last = w.expectedSeq - 1n;
  const at = { source: 'evidence' as const, streamId: spec.chain, version: Number(last), eventId: null };
  if (!head) {
    out.add({ ...at, kind: spec.kinds.head, reason: `evidence_heads has no head for ${spec.chain}` });
  } else if (BigInt(head.seq) > last) {
    out.add({ ...at, kind: spec.kinds.removed, reason: `the head of ${spec.chain} is at seq ${head.seq}, but its rows end at seq ${last}: the last ones were removed` });
  } else if (BigInt(head.seq) < last) {
    out.add({ ...at, kind: spec.kinds.head, reason: `the rows of ${spec.chain} go on to seq ${last}, beyond its head at seq ${head.seq}: written around the append function` });
  } else if (head.hash !== w.prevHash) {
    out.add({ ...at, kind: spec.kinds.head, reason: `the head of ${spec.chain} at seq ${head.seq} has hash ${head.hash}, but the row there has ${w.prevHash}` });
  }
}

/** Each run's items digested again ({@link ItemsDigest}) against its `items_sha256`; items of no run are reported too. @returns the items read */
async function checkItems(session: SqlSession, runs: Map<string, { seq: string; itemsSha256: string }>, out: DivergenceList): Promise<number> {
  const seen = new Map<string, ItemsDigest>();
  let n = 0;
  await session.query(
    `DECLARE evidence_items NO SCROLL CURSOR FOR SELECT run_id::text AS run_id, ${WALLET_ITEM_TAG_FIELD} AS tag, ${WALLET_ITEM_FIELDS} AS fields FROM wallet_match_items ORDER BY wallet_match_items.run_id, wallet_match_items.seq`,
  );
  for (;;) {
    const batch: { run_id: string; tag: string; fields: (string | null)[] }[] = await session.query(`FETCH ${FETCH} FROM evidence_items`);
    for (const item of batch) {
      let d = seen.get(item.run_id);
      if (!d) seen.set(item.run_id, (d = new ItemsDigest()));
      d.add(item.fields, item.tag);
      n++;
    }
    if (batch.length < FETCH) break;
  }
  await session.query('CLOSE evidence_items');
  const prunes = await prunedRuns(session);
  for (const [runId, run] of runs) {
    const d = seen.get(runId) ?? new ItemsDigest();
    seen.delete(runId);
    const at = { source: 'evidence' as const, kind: 'WALLET_RUN_ITEMS_ALTERED' as const, streamId: 'wallet_match_runs', version: Number(run.seq), eventId: runId };
    const prune = prunes.get(runId);
    if (prune) {
      // the items left by the retention (docs/reports.md §4.5): none may remain, and not before their time
      if (d.count > 0) out.add({ ...at, reason: `wallet run ${runId} was pruned at ${prune.prunedAt}, yet ${d.count} items of it are stored: added afterwards` });
      if (!prune.inTime) out.add({ ...at, reason: `wallet run ${runId} was pruned at ${prune.prunedAt}, before its retention of ${prune.retentionDays} days had passed: its items were removed` });
      continue;
    }
    const digest = d.hex();
    if (digest !== run.itemsSha256) {
      out.add({ ...at, reason: `the ${d.count} stored items of wallet run ${runId} digest to ${digest}, but the run recorded ${run.itemsSha256}: an item was changed, removed or added` });
    }
  }
  for (const [runId, d] of seen) {
    out.add({ source: 'evidence', kind: 'WALLET_RUN_REMOVED', streamId: 'wallet_match_runs', eventId: runId, reason: `${d.count} wallet items belong to run ${runId}, which is not recorded: the run was removed` });
  }
  return n;
}

/** The runs whose items the retention deleted (`wallet_match_prunes`, when the table exists), and whether each was pruned no earlier than its retention allowed. */
async function prunedRuns(session: SqlSession): Promise<Map<string, { prunedAt: string; retentionDays: number; inTime: boolean }>> {
  const [t] = await session.query(`SELECT to_regclass('wallet_match_prunes') IS NOT NULL AS present`);
  if (!t?.present) return new Map();
  const rows: { run_id: string; pruned_at: string; retention_days: number; in_time: boolean }[] = await session.query(
    `SELECT p.run_id::text AS run_id, to_char(p.pruned_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS pruned_at, p.retention_days,
            p.pruned_at >= r.created_at + make_interval(days => p.retention_days) AS in_time
       FROM wallet_match_prunes p JOIN wallet_match_runs r USING (run_id)`,
  );
  return new Map(rows.map((r) => [r.run_id, { prunedAt: r.pruned_at, retentionDays: r.retention_days, inTime: r.in_time }]));
}
