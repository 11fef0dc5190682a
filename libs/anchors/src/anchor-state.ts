import type { KafkaClient } from '@ledger/kafka';
import type { LedgerLogger } from '@ledger/event-store';
import { readAnchorLines } from './anchor-file';
import { anchorText, parseAnchor, verifyAnchorSignature, type SignedAnchor } from './checkpoint';
import { scanTopic, topicBounds } from './kafka-io';
import type { AnchorSigningKey } from './keys';

/**
 * What the anchor publisher knows when it becomes the leader, rebuilt from outside PostgreSQL: the
 * anchor file and the anchors topic (never from the database it checks).
 */
export interface AnchorState {
  readonly ledgerId: string;
  /** The last checkpoint of the chain; null before the first. */
  last: SignedAnchor | null;
  /** Its global position (0 before the first). */
  position: bigint;
  /** Its creation time, ms since the epoch (0 before the first). */
  lastAt: number;
  /** The last signed head of every stream ever anchored. */
  readonly heads: Map<string, { version: number; headHash: string }>;
  /** Checkpoints the topic lacks (sent before the next one is signed). */
  unpublished: SignedAnchor[];
  /** Checkpoints only the topic had, which the caller appends to the file. */
  readonly copiedFromTopic: SignedAnchor[];
}

/** Records read from the end of the anchors topic before falling back to reading it whole. */
const TOPIC_TAIL = 2000n;

/** Options of {@link loadAnchorState}. */
export interface LoadStateOptions {
  readonly ledgerId: string;
  readonly anchorFile: string;
  /** null: the file only. */
  readonly kafka: KafkaClient | null;
  readonly topic: string;
  /** Checkpoints signed by this key must verify with it (others, e.g. a rotated-out key, are taken as they are: verify checks them). */
  readonly signingKey: AnchorSigningKey;
  readonly logger: LedgerLogger;
}

/**
 * Reads this ledger's checkpoints from the file and the topic and folds them into the state.
 * Lines that are malformed, of another ledger, or signed by the current key but failing its
 * signature are skipped (the last two logged: verify reports them); the chain continues from the
 * highest seq either copy holds.
 * @throws the Kafka error when the topic cannot be read (the caller retries: signing before knowing
 *   the topic's last checkpoint could fork the chain)
 */
export async function loadAnchorState(o: LoadStateOptions): Promise<AnchorState> {
  const accept = (text: string, where: string): SignedAnchor | null => {
    const p = parseAnchor(text);
    if ('error' in p) {
      o.logger.warn({ where, reason: p.error }, 'skipping a malformed anchor');
      return null;
    }
    if (p.anchor.checkpoint.ledgerId !== o.ledgerId) return null;
    if (p.anchor.keyId === o.signingKey.keyId && !verifyAnchorSignature(p.anchor, o.signingKey.publicKey)) {
      o.logger.error({ where, seq: p.anchor.checkpoint.seq }, 'skipping an anchor whose signature does not verify (forged?)');
      return null;
    }
    return p.anchor;
  };

  const fromFile = new Map<number, SignedAnchor>();
  for (const line of await readAnchorLines(o.anchorFile)) {
    const a = accept(line.text, `${o.anchorFile}:${line.lineNo}`);
    if (a && !fromFile.has(a.checkpoint.seq)) fromFile.set(a.checkpoint.seq, a);
  }
  const fileMax = maxKey(fromFile, 0);

  const fromTopic = new Map<number, SignedAnchor>();
  if (o.kafka) {
    const collect = (from?: Map<number, bigint>) =>
      scanTopic(
        o.kafka!,
        o.topic,
        (r) => {
          const a = r.value ? accept(r.value.toString('utf8'), `${o.topic}:${r.partition}:${r.offset}`) : null;
          if (a && !fromTopic.has(a.checkpoint.seq)) fromTopic.set(a.checkpoint.seq, a);
        },
        { from },
      );
    const bounds = await topicBounds(o.kafka, o.topic);
    const tailFrom = new Map([...bounds].map(([p, b]) => [p, b.high - TOPIC_TAIL > b.low ? b.high - TOPIC_TAIL : b.low]));
    await collect(tailFrom);
    const truncated = [...bounds].some(([p, b]) => tailFrom.get(p)! > b.low);
    const minSeq = minKey(fromTopic);
    if (truncated && (fromTopic.size === 0 || minSeq > fileMax + 1)) {
      fromTopic.clear();
      await collect();
    }
  }
  const topicMax = maxKey(fromTopic, 0);

  for (const [seq, a] of fromTopic) {
    const f = fromFile.get(seq);
    if (f && anchorText(f) !== anchorText(a)) {
      o.logger.error({ seq }, 'the anchor file and the anchors topic hold different checkpoints for one seq (fork); the file wins');
    }
  }
  const all = new Map(fromTopic);
  for (const [seq, a] of fromFile) all.set(seq, a);
  const ordered = [...all.values()].sort((x, y) => x.checkpoint.seq - y.checkpoint.seq);

  const heads = new Map<string, { version: number; headHash: string }>();
  for (const a of ordered) {
    for (const s of a.checkpoint.streams) {
      const h = heads.get(s.streamId);
      if (!h || s.version >= h.version) heads.set(s.streamId, { version: s.version, headHash: s.headHash });
    }
  }
  const last = ordered.length > 0 ? ordered[ordered.length - 1] : null;
  return {
    ledgerId: o.ledgerId,
    last,
    position: last ? BigInt(last.checkpoint.globalPosition) : 0n,
    lastAt: last ? Date.parse(last.checkpoint.createdAt) : 0,
    heads,
    unpublished: o.kafka ? ordered.filter((a) => a.checkpoint.seq > topicMax && fromFile.has(a.checkpoint.seq)) : [],
    copiedFromTopic: ordered.filter((a) => a.checkpoint.seq > fileMax && !fromFile.has(a.checkpoint.seq)),
  };
}

function maxKey(m: ReadonlyMap<number, unknown>, dflt: number): number {
  let max = dflt;
  for (const k of m.keys()) if (k > max) max = k;
  return max;
}

function minKey(m: ReadonlyMap<number, unknown>): number {
  let min = Infinity;
  for (const k of m.keys()) if (k < min) min = k;
  return min;
}
