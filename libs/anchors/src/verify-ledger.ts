import type { KeyObject } from 'node:crypto';
import type { KafkaClient } from '@ledger/kafka';
import { GENESIS_HASH, type EventEnvelope } from '@ledger/events';
import { EVENT_COLUMNS, canonicalJson, checkGlobalPositions, computeEventHash, rowToEnvelope, type EventRow, type PositionProblemKind } from '@ledger/event-store';
import { readAnchorLines } from './anchor-file';
import { checkAnchorCopy, mergeCopies, type AnchorInput, type CheckedAnchors } from './anchor-log';
import type { SignedAnchor } from './checkpoint';
import { DEFAULT_VERIFY_GRACE_MS } from './config';
import { describeKafkaDifference, readKafkaCopy, sha256Hex, type KafkaCopyIndex } from './kafka-copy';
import { TopicMissingError, scanTopic } from './kafka-io';
import { checkDayStream } from './gaming-day-close';
import { closeFairnessMismatch } from './close-fairness';
import { ledgerTopicOf } from './fairness-of-events';
import { checkEvidenceChains } from './evidence-check';
import { checkSignificantEvents } from './significant-check';
import { checkSignificantCompleteness } from './significant-completeness';
import type { GamingDayConfig } from '@ledger/projections';
import { isEvidenceStream } from './evidence-anchor';
import { DivergenceList, type DivergenceKind, type VerificationReport } from './report';
import { databaseLedgerId, type SqlSession } from './sql';

/**
 * `npm run -s verify` and `GET /audit/anchors/verify` (docs/guarantees.md §8, docs/anchors.md
 * "What verify checks"): PostgreSQL against the signed checkpoints and against the Kafka copy.
 *
 *  1. The checkpoints of the anchor file and of the anchors topic: shape, key, signature, Merkle
 *     root, chain (`previousAnchorHash`, consecutive seqs, positions forward), and the two copies alike.
 *  2. PostgreSQL's events, stream by stream, in one read-only snapshot: the hash chain recomputed from
 *     the rows' canonical bytes (never trusting a stored hash) must give, at every signed version, the
 *     signed head; every event at a position a checkpoint covers must be in a version one names;
 *     events beyond the last checkpoint must be younger than the grace period.
 *  4. Every gaming-day close (docs/reports.md §2): each `GamingDayClosed` event has its stored report,
 *     whose bytes hash to the event's `reportSha256`, verify under its key and name its day, tables,
 *     position, trigger and approval, and it holds in its day's stream — no duplicate, the right actor,
 *     an early close approved in time ({@link checkDayStream}); each stored report belongs to such an event;
 *     a close of layout 3 on signs the fairness verdict per table the events give at its position.
 *  5. The global positions (docs/guarantees.md §5, `checkGlobalPositions` of libs/event-store): up to the
 *     relay's progress each is an event or a recorded hole, no event in a hole, the progress not beyond
 *     the sequence (a forged marker), no event above it.
 *  6. The evidence chains (`checkEvidenceChains`, docs/anchors.md "The evidence chains"): the access log and the wallet runs
 *     recomputed row by row — a row altered, removed, reordered or back-dated named by its kind — against
 *     their heads in `evidence_heads` and the heads the checkpoints signed (streams `evidence:<chain>`),
 *     and each run's items against the digest the run recorded.
 *  7. Every significant event (`significant-check.ts`, docs/significant-events.md): a raise names a code
 *     of the catalogue and a stored cause that can raise it, with the id both give; an acknowledgement
 *     follows its raise and comes from a pit manager or auditor who had no hand in the cause; and every
 *     cause, where the attested settings say the monitor ran, has the raises it owes (`significant-completeness.ts`).
 *  3. Every event against its record on the ledger topic (read from the first offset to the end), by
 *     event id: the same bytes. An event missing from the topic diverges when a checkpoint covers it
 *     (checkpoints cover published events only) or when it is older than the grace period.
 *
 * Reads anchors first, then the topic, then PostgreSQL, so that what a checkpoint covers is on the
 * topic read and in the snapshot.
 */

/** Options of {@link verifyLedger}. */
export interface VerifyLedgerOptions {
  /** A dedicated PostgreSQL session (the check runs in one transaction on it). */
  readonly session: SqlSession;
  /** The ledger whose checkpoints are checked. @default the session's database (`databaseLedgerId`) */
  readonly ledgerId?: string | null;
  /** Public keys by key id (`readPublicKeys`). */
  readonly publicKeys: ReadonlyMap<string, KeyObject>;
  /** The anchor file; null: not read. */
  readonly anchorFile?: string | null;
  /** Kafka; null: neither topic is read. */
  readonly kafka?: KafkaClient | null;
  /** The anchors topic; null: not read. */
  readonly anchorsTopic?: string | null;
  /** The ledger topic; null: the Kafka copy is not compared. */
  readonly eventsTopic?: string | null;
  /** Events younger than this may be unanchored or not yet on Kafka, in ms. @default 120000 */
  readonly graceMs?: number;
  /** Most divergences listed (all are counted). @default 1000 */
  readonly maxDivergences?: number;
  /** Clock (tests). */
  readonly now?: () => Date;
  /** Why the public keys could not be read (the caller passes an empty key map): reported, so the report is not ok. */
  readonly keyProblem?: string | null;
  /** The gaming-day rule (`GAMING_DAY_TZ`, `GAMING_DAY_CUTOFF_HOUR`): a shoe's close owes the fairness alerts of its day (step 7, completeness); null: those are not looked for. */
  readonly dayRule?: GamingDayConfig | null;
}

const FETCH = 2000;

interface SignedHead {
  readonly version: number;
  readonly headHash: string;
  readonly seq: number;
}

/**
 * Runs the three checks and returns the report (never throws for a divergence).
 * @throws the PostgreSQL, Kafka or file error that kept it from checking (then nothing is known)
 */
export async function verifyLedger(o: VerifyLedgerOptions): Promise<VerificationReport> {
  const now = (o.now ?? (() => new Date()))();
  const graceMs = o.graceMs ?? DEFAULT_VERIFY_GRACE_MS;
  const out = new DivergenceList(o.maxDivergences ?? 1000);
  const ledgerId = o.ledgerId ?? (await databaseLedgerId(o.session));

  // 1. the checkpoints
  if (o.keyProblem) out.add({ source: 'anchor-file', kind: 'ANCHOR_KEY_UNKNOWN', reason: o.keyProblem });
  let fileCopy: CheckedAnchors | null = null;
  if (o.anchorFile) {
    const inputs: AnchorInput[] = (await readAnchorLines(o.anchorFile)).map((l) => ({ text: l.text, where: `${o.anchorFile} line ${l.lineNo}` }));
    fileCopy = checkAnchorCopy(inputs, o.publicKeys, ledgerId, 'anchor-file', out);
  }
  let topicCopy: CheckedAnchors | null = null;
  if (o.kafka && o.anchorsTopic) {
    const inputs: AnchorInput[] = [];
    // a missing topic is an empty copy: what the file holds and the topic lacks is then reported
    await scanTopic(o.kafka, o.anchorsTopic, (r) => inputs.push({ text: r.value?.toString('utf8') ?? '', where: `${o.anchorsTopic} offset ${r.partition}:${r.offset}` })).catch(emptyIfMissing);
    topicCopy = checkAnchorCopy(inputs, o.publicKeys, ledgerId, 'anchor-topic', out);
  }
  const anchors = mergeCopies(fileCopy, topicCopy, graceMs, now, out);
  const signed = signedHeads(anchors);
  const last = anchors.length > 0 ? anchors[anchors.length - 1].checkpoint : null;
  const lastPosition = last ? BigInt(last.globalPosition) : null;

  // 2 and 3. the Kafka copy, then PostgreSQL
  const copy = o.kafka && o.eventsTopic ? await readKafkaCopy(o.kafka, o.eventsTopic, out) : null;
  const walk = await walkEvents(o.session, { signed, lastPosition, copy, eventsTopic: o.eventsTopic ?? null, graceMs, now, out });

  // what PostgreSQL lacks
  const otherRecords = reportMissingFromPostgres(signed, walk.streams, copy, out);

  // 4. the gaming-day closes (docs/reports.md §2)
  await checkCloses(o.session, o.publicKeys, out);

  // 5. the global positions and the relay's progress marker (docs/guarantees.md §5)
  await checkPositions(o.session, out);

  // 6. the evidence chains: the access log and the wallet runs (docs/anchors.md "The evidence chains")
  await checkEvidenceChains(o.session, out, signed);

  // 7. the significant events against their causes and the catalogue (docs/significant-events.md)
  await checkSignificantEvents(o.session, out);
  const significantCauses = await checkSignificantCompleteness(o.session, out, { now, graceMs, dayRule: o.dayRule ?? null });

  const divergences = out.sorted();
  return {
    ok: out.count === 0,
    ledgerId,
    anchorsChecked: anchors.length,
    lastAnchor: last ? { seq: last.seq, globalPosition: last.globalPosition, createdAt: last.createdAt } : null,
    streamsChecked: walk.streams.size,
    eventsChecked: walk.events,
    kafkaRecordsChecked: copy ? copy.records : null,
    pendingOnKafka: walk.pendingOnKafka,
    significantCauses,
    otherLedgerAnchors: (fileCopy?.otherLedgers ?? 0) + (topicCopy?.otherLedgers ?? 0) + otherRecords,
    divergenceCount: out.count,
    firstDivergence: divergences[0] ?? null,
    divergences,
    checkedAt: now.toISOString(),
  };
}

/**
 * What PostgreSQL lacks: a stream a checkpoint signed that it does not hold (`ANCHORED_VERSION_MISSING`),
 * and an event of a known stream on the Kafka copy that it does not hold (`KAFKA_EXTRA`).
 * @returns the Kafka records of streams neither PostgreSQL nor the anchors know (another ledger's)
 */
function reportMissingFromPostgres(signed: Map<string, SignedHead[]>, walked: ReadonlySet<string>, copy: KafkaCopyIndex | null, out: DivergenceList): number {
  for (const [streamId, heads] of signed) {
    if (walked.has(streamId) || isEvidenceStream(streamId)) continue;
    const h = heads[heads.length - 1];
    out.add({
      source: 'anchors',
      kind: 'ANCHORED_VERSION_MISSING',
      streamId,
      version: h.version,
      anchorSeq: h.seq,
      reason: `checkpoint #${h.seq} signed stream ${streamId} at version ${h.version}, but PostgreSQL has no such stream`,
    });
  }
  let otherRecords = 0;
  for (const [eventId, k] of copy?.byEventId ?? []) {
    if (!walked.has(k.streamId) && !signed.has(k.streamId)) {
      otherRecords++;
      continue;
    }
    out.add({
      source: 'kafka',
      kind: 'KAFKA_EXTRA',
      streamId: k.streamId,
      version: k.streamVersion,
      eventId,
      globalPosition: k.globalPosition,
      reason: `event ${eventId} (partition ${k.partition} offset ${k.offset}) is on Kafka but not in PostgreSQL: removed or replaced`,
    });
  }

  return otherRecords;
}

/** Step 5 of {@link verifyLedger}: the global positions ({@link checkGlobalPositions}) as divergences of source `positions`. */
async function checkPositions(session: SqlSession, out: DivergenceList): Promise<void> {
  for (const p of await checkGlobalPositions((sql, params) => session.query(sql, params))) {
    out.add({ source: 'positions', kind: POSITION_KINDS[p.kind], streamId: p.streamId, version: p.streamVersion, eventId: p.eventId, globalPosition: p.globalPosition, anchorSeq: null, reason: p.detail });
  }
}

function emptyIfMissing(err: unknown): number {
  if (err instanceof TopicMissingError) return 0;
  throw err;
}

/** Signed heads by stream, in version order. */
function signedHeads(anchors: readonly SignedAnchor[]): Map<string, SignedHead[]> {
  const m = new Map<string, SignedHead[]>();
  for (const a of anchors) {
    for (const s of a.checkpoint.streams) {
      let list = m.get(s.streamId);
      if (!list) m.set(s.streamId, (list = []));
      list.push({ version: s.version, headHash: s.headHash, seq: a.checkpoint.seq });
    }
  }
  for (const list of m.values()) list.sort((x, y) => x.version - y.version || x.seq - y.seq);
  return m;
}

interface WalkContext {
  readonly signed: Map<string, SignedHead[]>;
  readonly lastPosition: bigint | null;
  readonly copy: KafkaCopyIndex | null;
  readonly eventsTopic: string | null;
  readonly graceMs: number;
  readonly now: Date;
  readonly out: DivergenceList;
}

interface StreamWalk {
  readonly streamId: string;
  readonly heads: readonly SignedHead[];
  next: number; // index into heads
  expectedVersion: number;
  storedPrev: string;
  recomputed: string;
  lastMatched: number;
  lastVersion: number;
  reported: Set<string>;
}

/** What a walk counted so far. */
interface WalkTally {
  readonly streams: Set<string>;
  events: number;
  /** Events not on the Kafka copy yet, within the grace period. */
  pendingOnKafka: number;
  /** Events beyond the last checkpoint older than the grace period: counted, the earliest reported. */
  behind: { count: number; first: EventEnvelope<string, unknown> | null };
}

/** Where a finding of one event points. */
type EventAt = { readonly streamId: string; readonly version: number; readonly eventId: string; readonly globalPosition: string };

/** Walks every event in (stream, version) order in one REPEATABLE READ snapshot. */
async function walkEvents(session: SqlSession, c: WalkContext): Promise<{ streams: Set<string>; events: number; pendingOnKafka: number }> {
  const tally: WalkTally = { streams: new Set<string>(), events: 0, pendingOnKafka: 0, behind: { count: 0, first: null } };
  let cur: StreamWalk | null = null;
  const graceEdge = c.now.getTime() - c.graceMs;

  await session.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const topicColumn = c.copy ? 'o.topic AS outbox_topic' : 'NULL::text AS outbox_topic';
    const join = c.copy ? 'LEFT JOIN outbox o ON o.global_position = e.global_position' : '';
    await session.query(`DECLARE anchors_verify NO SCROLL CURSOR FOR SELECT ${EVENT_COLUMNS}, ${topicColumn} FROM events e ${join} ORDER BY e.stream_id, e.stream_version`);
    for (;;) {
      const rows: (EventRow & { outbox_topic: string | null })[] = await session.query(`FETCH ${FETCH} FROM anchors_verify`);
      for (const row of rows) {
        const e = rowToEnvelope(row);
        if (!cur || cur.streamId !== e.streamId) {
          if (cur) finishStream(cur, c.out);
          cur = { streamId: e.streamId, heads: c.signed.get(e.streamId) ?? [], next: 0, expectedVersion: 1, storedPrev: GENESIS_HASH, recomputed: GENESIS_HASH, lastMatched: 0, lastVersion: 0, reported: new Set() };
          tally.streams.add(e.streamId);
        }
        tally.events++;
        const at: EventAt = { streamId: e.streamId, version: e.streamVersion, eventId: e.eventId, globalPosition: e.globalPosition };
        const position = BigInt(e.globalPosition);
        checkStoredChain(e, cur, at, c.out);
        checkSignedHeads(e, cur, at, c.out);
        checkCoverage(e, cur, at, position, c, tally, graceEdge);
        if (c.copy && (row.outbox_topic === null || row.outbox_topic === c.eventsTopic)) checkKafkaCopy(e, c.copy, at, position, c, tally, graceEdge);
      }
      if (rows.length < FETCH) break;
    }
    if (cur) finishStream(cur, c.out);
    await session.query('CLOSE anchors_verify');
  } finally {
    await session.query('ROLLBACK').catch(() => undefined);
  }
  const { behind } = tally;
  if (behind.first) {
    const f = behind.first;
    c.out.add({
      source: 'anchors',
      kind: 'ANCHORS_BEHIND',
      streamId: f.streamId,
      version: f.streamVersion,
      eventId: f.eventId,
      globalPosition: f.globalPosition,
      reason: `${behind.count} events beyond the last checkpoint (${c.lastPosition ?? 'none'}) were recorded more than ${c.graceMs} ms ago: anchoring has stopped or never ran`,
    });
  }
  return { streams: tally.streams, events: tally.events, pendingOnKafka: tally.pendingOnKafka };
}

/** At the end of a stream: the signed heads beyond its last version are missing from PostgreSQL. */
function finishStream(w: StreamWalk, out: DivergenceList): void {
  for (; w.next < w.heads.length; w.next++) {
    const h = w.heads[w.next];
    out.add({
      source: 'anchors',
      kind: 'ANCHORED_VERSION_MISSING',
      streamId: w.streamId,
      version: h.version,
      anchorSeq: h.seq,
      reason: `checkpoint #${h.seq} signed version ${h.version}, but PostgreSQL's stream ends at version ${w.lastVersion}`,
    });
  }
}

/** True the first time `kind` is reported for the stream (one finding of a kind per stream). */
function once(w: StreamWalk, kind: string): boolean {
  if (w.reported.has(kind)) return false;
  w.reported.add(kind);
  return true;
}

/**
 * PostgreSQL's stored chain, as the in-database verifier sees it (versions, `prev_hash`, hash); then
 * the chain from the bytes alone, never trusting a stored hash, moves on by this event.
 */
function checkStoredChain(e: EventEnvelope<string, unknown>, w: StreamWalk, at: EventAt, out: DivergenceList): void {
  if (e.streamVersion !== w.expectedVersion && once(w, 'gap')) {
    out.add({ source: 'postgres', kind: 'STORED_CHAIN_BROKEN', ...at, reason: `versions ${w.expectedVersion}..${e.streamVersion - 1} are missing before this event` });
  }
  if (e.prevHash !== w.storedPrev && once(w, 'prev')) {
    out.add({ source: 'postgres', kind: 'STORED_CHAIN_BROKEN', ...at, reason: `stored prev_hash ${e.prevHash}, but the stored event before it has hash ${w.storedPrev}` });
  }
  const storedRecomputed = computeEventHash(e);
  if (storedRecomputed !== e.hash && once(w, 'hash')) {
    out.add({ source: 'postgres', kind: 'STORED_CHAIN_BROKEN', ...at, reason: `stored hash ${e.hash}, but the row's canonical bytes give ${storedRecomputed}` });
  }
  // the chain from the bytes alone, never trusting a stored hash
  w.recomputed = e.prevHash === w.recomputed ? storedRecomputed : computeEventHash({ ...e, prevHash: w.recomputed });
  w.storedPrev = e.hash;
  w.expectedVersion = e.streamVersion + 1;
  w.lastVersion = e.streamVersion;
}

/** The signed heads of the stream up to this event's version: each there, and the recomputed chain equal to it. */
function checkSignedHeads(e: EventEnvelope<string, unknown>, w: StreamWalk, at: EventAt, out: DivergenceList): void {
  for (; w.next < w.heads.length && w.heads[w.next].version <= e.streamVersion; w.next++) {
    const h = w.heads[w.next];
    if (h.version < e.streamVersion) {
      out.add({
        source: 'anchors',
        kind: 'ANCHORED_VERSION_MISSING',
        streamId: w.streamId,
        version: h.version,
        anchorSeq: h.seq,
        reason: `checkpoint #${h.seq} signed version ${h.version}, which PostgreSQL's stream does not have`,
      });
    } else if (h.headHash !== w.recomputed) {
      if (once(w, 'head')) {
        out.add({
          source: 'anchors',
          kind: 'HEAD_MISMATCH',
          ...at,
          anchorSeq: h.seq,
          reason: `the chain recomputed from PostgreSQL's rows gives ${w.recomputed} at version ${h.version}, but checkpoint #${h.seq} signed ${h.headHash}: an event among versions ${w.lastMatched + 1}..${h.version} was altered, removed or inserted`,
        });
      }
    } else if (!w.reported.has('head')) {
      w.lastMatched = h.version;
    }
  }
}

/**
 * An event the checkpoints cover must be under a signed head of its stream (else it was inserted
 * afterwards); one beyond them older than the grace period counts as behind.
 */
function checkCoverage(e: EventEnvelope<string, unknown>, w: StreamWalk, at: EventAt, position: bigint, c: WalkContext, tally: WalkTally, graceEdge: number): void {
  const signedMax = w.heads.length > 0 ? w.heads[w.heads.length - 1].version : 0;
  if (c.lastPosition !== null && position <= c.lastPosition) {
    if (signedMax < e.streamVersion && once(w, 'covered')) {
      c.out.add({
        source: 'anchors',
        kind: 'NOT_ANCHORED',
        ...at,
        reason: `position ${position} is covered by the checkpoints (up to ${c.lastPosition}), but no checkpoint signed this stream at version ${e.streamVersion} or later: inserted afterwards`,
      });
    }
  } else if (Date.parse(e.recordedAt) < graceEdge) {
    const { behind } = tally;
    const earlier = behind.first === null || position < BigInt(behind.first.globalPosition);
    tally.behind = { count: behind.count + 1, first: earlier ? e : behind.first };
  }
}

/** The event against its Kafka copy: there (once covered or past the grace period) with the same bytes. */
function checkKafkaCopy(e: EventEnvelope<string, unknown>, copy: KafkaCopyIndex, at: EventAt, position: bigint, c: WalkContext, tally: WalkTally, graceEdge: number): void {
  const k = copy.byEventId.get(e.eventId);
  if (!k) {
    if ((c.lastPosition !== null && position <= c.lastPosition) || Date.parse(e.recordedAt) < graceEdge) {
      c.out.add({ source: 'kafka', kind: 'KAFKA_MISSING', ...at, reason: `event ${e.eventId} (recorded ${e.recordedAt}) is not on ${c.eventsTopic}` });
    } else {
      tally.pendingOnKafka++;
    }
  } else {
    copy.byEventId.delete(e.eventId);
    if (sha256Hex(canonicalJson(e)) !== k.digest) {
      c.out.add({ source: 'kafka', kind: 'KAFKA_MISMATCH', ...at, reason: describeKafkaDifference(e, k) });
    }
  }
}

/** The divergence kind of each position problem (step 5). */
const POSITION_KINDS: Readonly<Record<PositionProblemKind, DivergenceKind>> = {
  UNACCOUNTED: 'POSITION_UNACCOUNTED',
  EVENT_IN_HOLE: 'EVENT_IN_HOLE',
  PROGRESS_AHEAD: 'PROGRESS_AHEAD',
  EVENT_BEYOND_SEQUENCE: 'EVENT_BEYOND_SEQUENCE',
};

/** `FAIRNESS_MISMATCH: …` when a close of layout 3 on signs a fairness the events do not give, else null. */
async function fairnessProblem(session: SqlSession, report: string | null, globalPosition: string): Promise<string | null> {
  let body: Record<string, any>;
  try {
    body = JSON.parse(report ?? 'null') as Record<string, any>;
  } catch {
    return null; // the close check reports unparsable bytes
  }
  if (!body || !(Number(body.header?.reportVersion) >= 3)) return null;
  const problem = await closeFairnessMismatch(session, body, await ledgerTopicOf(session, globalPosition));
  return problem === null ? null : `FAIRNESS_MISMATCH: ${problem}`;
}

/**
 * Step 4 of {@link verifyLedger}: every `GamingDayClosed` event against its stored report, and every
 * stored report against the events (a row no event names is a forged or orphaned close). Skipped on a
 * database without `gaming_day_closes` (the API's migrations not run).
 */
async function checkCloses(session: SqlSession, keys: ReadonlyMap<string, KeyObject>, out: DivergenceList): Promise<void> {
  const [t] = await session.query(`SELECT to_regclass('gaming_day_closes') IS NOT NULL AS present`);
  if (!t?.present) return;
  const events: { event_id: string; stream_id: string; stream_version: number; global_position: string; type: string; data: any; actor_id: string; actor_role: string; recorded_at: string; report: string | null }[] =
    await session.query(
      `SELECT e.event_id::text AS event_id, e.stream_id, e.stream_version, e.global_position::text AS global_position, e.type, e.data, e.actor_id, e.actor_role,
            to_char(e.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at,
            (SELECT c.report FROM gaming_day_closes c WHERE c.event_id = e.event_id::text ORDER BY c.id LIMIT 1) AS report
       FROM events e WHERE e.type IN ('GamingDayCloseRequested', 'GamingDayClosed') ORDER BY e.stream_id, e.stream_version`,
    );
  const byStream = new Map<string, typeof events>();
  for (const e of events) byStream.set(e.stream_id, [...(byStream.get(e.stream_id) ?? []), e]);
  for (const stream of byStream.values()) {
    const reports = new Map(stream.map((e) => [e.event_id, e.report]));
    const checks = checkDayStream(
      stream.map((e) => ({ eventId: e.event_id, streamId: e.stream_id, type: e.type, data: e.data, actor: { id: e.actor_id, role: e.actor_role }, recordedAt: e.recorded_at })),
      (id) => reports.get(id) ?? null,
      keys,
    );
    for (const e of stream) {
      const c = checks.get(e.event_id);
      if (!c) continue;
      // a genuine close of layout 3 on: its fairness computed again from the events (docs/fairness.md §8)
      const reason = c.problem === null ? await fairnessProblem(session, e.report, e.global_position) : `${c.problem}: ${c.detail}`;
      if (reason === null) continue;
      out.add({ source: 'closes', kind: 'CLOSE_NOT_GENUINE', streamId: e.stream_id, version: e.stream_version, eventId: e.event_id, globalPosition: e.global_position, anchorSeq: null, reason });
    }
  }
  const orphans: { id: string; gaming_day: string; event_id: string | null }[] = await session.query(
    `SELECT c.id::text AS id, c.gaming_day::text AS gaming_day, c.event_id FROM gaming_day_closes c
      WHERE c.event_id IS NULL OR NOT EXISTS (SELECT 1 FROM events e WHERE e.type = 'GamingDayClosed' AND e.event_id::text = c.event_id) ORDER BY c.id`,
  );
  for (const r of orphans) {
    out.add({
      source: 'closes',
      kind: 'CLOSE_WITHOUT_EVENT',
      streamId: null,
      version: null,
      eventId: r.event_id,
      globalPosition: null,
      anchorSeq: null,
      reason: `stored close #${r.id} of ${r.gaming_day} has no GamingDayClosed event: it is not a close of this ledger`,
    });
  }
}
