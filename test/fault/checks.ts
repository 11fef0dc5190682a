/**
 * What the fault run verifies once everything has drained (docs/guarantees.md §2–§8):
 *
 * - every event the API accepted is in PostgreSQL exactly once, and PostgreSQL holds nothing else
 *   (each shoe stream is exactly the concatenation of the driver's 201 answers, in action order);
 * - every stored event is on the Kafka topic; a record seen twice has the same id AND the same
 *   content (value and headers), and every record equals its stored row (hash, position, key);
 * - no settlement applied twice: each bet's settlement revisions in the read model are exactly the
 *   store's BetSettled / BetResettled / BetRefunded of that bet, in order, and the reconciliation
 *   rows equal a recomputation from the store;
 * - no stake lost: every accepted BetPlaced has its BetSettled or BetRefunded (the shoes finished);
 * - projections equal a rebuild (scratch schema, same checksums); every hash chain verifies;
 * - the API's significant-event monitor raised each significant event of the run's events exactly
 *   once, and every raise is genuine as `npm run -s verify` checks it (`./significant.ts`).
 */
import type { KafkaClient } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { PgEventStore } from '@ledger/event-store';
import { diffChecksums, projectionChecksums, rebuildProjections } from '@ledger/projections';
import type { ShoeScript } from '@ledger/simulator';
import type { ShoeDriver } from './driver';
import { checkSignificant, type SignificantCheck } from './significant';
import { SIGNIFICANT_STREAM_PREFIX } from '@ledger/events';
import { ALL_PROJECTIONS, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

/** Counts the run prints, and the problems it asserts on. */
export interface CheckReport {
  eventsAccepted: number;
  /** The events of the run's shoes in PostgreSQL (the significant events the ledger raised are in {@link significant}). */
  eventsInPg: number;
  /** Accepted by the API, not (or not once) in PostgreSQL. */
  lost: number;
  /** Events in PostgreSQL beyond the accepted ones, or one fact recorded twice (a bet placed twice, a card dealt twice…). */
  duplicatedInPg: number;
  recordsOnKafka: number;
  /** Extra Kafka records of an event id already seen. */
  kafkaDuplicates: number;
  /** Whether every duplicate has the same id AND the same value and headers. */
  kafkaDuplicatesIdentical: boolean;
  /** Stored events missing from the topic. */
  missingOnKafka: number;
  betsPlaced: number;
  betsSettled: number;
  betsRefunded: number;
  betsResettled: number;
  /** Accepted bets without a BetSettled or BetRefunded. */
  stakesLost: number;
  /** Settlement events applied more than once in the read model. */
  settlementsAppliedTwice: number;
  settlementRevisionsInReadModel: number;
  chainStreams: number;
  chainEvents: number;
  chainProblems: number;
  projectionsChecksummed: number;
  rebuildEvents: number;
  /** The significant events the API's monitor raised from the run's events: each per-cause kind exactly once, every raise genuine. */
  significant: SignificantCheck;
  /** Every disagreement found, one line each (the first 50 are kept). */
  mismatches: string[];
  mismatchCount: number;
}

interface PgEventRow {
  event_id: string;
  stream_id: string;
  stream_version: number;
  type: string;
  table_id: string;
  global_position: string;
  hash: string;
  data: any;
}

/** The whole check (see the file comment); read-only except the scratch schema of the rebuild. */
/**
 * @param ctx.monitor whether the run's API ran the significant-event monitor (default true): then every
 *   significant event of the run's events must be raised exactly once; without it none may be
 */
export async function verifyAfterDrain(ctx: { ds: DataSource; kafka: KafkaClient; topic: string; schema: string; group: string; scripts: readonly ShoeScript[]; driver: ShoeDriver; monitor?: boolean }): Promise<CheckReport> {
  const { ds, kafka, topic, schema, group, scripts, driver } = ctx;
  const mismatches: string[] = [];
  let mismatchCount = 0;
  const mismatch = (s: string) => {
    mismatchCount++;
    if (mismatches.length < 50) mismatches.push(s);
  };

  // ------------------------------------------------------------------ PostgreSQL: exactly once
  const rows: PgEventRow[] = await ds.query(
    `SELECT e.event_id::text AS event_id, e.stream_id, e.stream_version, e.type, e.table_id, e.global_position::text AS global_position, e.hash, e.data FROM events e ORDER BY e.global_position`,
  );
  const pgCount = new Map<string, number>();
  for (const r of rows) pgCount.set(r.event_id, (pgCount.get(r.event_id) ?? 0) + 1);
  const byId = new Map(rows.map((r) => [r.event_id, r]));
  let lost = 0;
  for (const [id, e] of driver.accepted) {
    const n = pgCount.get(id) ?? 0;
    if (n !== 1) {
      lost++;
      mismatch(`accepted event ${id} (${e.type}, ${e.shoeId} action ${e.actionIndex}) is in PostgreSQL ${n} time(s)`);
      continue;
    }
    const r = byId.get(id)!;
    if (r.type !== e.type || r.stream_version !== e.streamVersion || r.global_position !== String(e.globalPosition) || r.stream_id !== `shoe-${e.shoeId}`) {
      mismatch(`event ${id}: the 201 said ${e.type} v${e.streamVersion} @${e.globalPosition}, PostgreSQL has ${r.type} v${r.stream_version} @${r.global_position} in ${r.stream_id}`);
    }
  }
  let duplicatedInPg = 0;
  for (const r of rows) {
    // the raises of significant events are the ledger's own: checked by checkSignificant (exactly once per cause and code)
    if (r.stream_id.startsWith(SIGNIFICANT_STREAM_PREFIX)) continue;
    if (!driver.accepted.has(r.event_id)) {
      duplicatedInPg++;
      mismatch(`PostgreSQL event ${r.event_id} (${r.type} ${r.stream_id} v${r.stream_version}) was never in an answer of the API`);
    }
  }
  for (const id of driver.crossAnswered) mismatch(`event ${id} was named in the answers of two different actions`);
  // each stream = its actions' answers, concatenated in action order
  const streams = new Map<string, PgEventRow[]>();
  for (const r of rows) streams.set(r.stream_id, [...(streams.get(r.stream_id) ?? []), r]);
  for (const s of scripts) {
    const expected = (driver.answers.get(s.shoeId) ?? []).flat();
    const actual = (streams.get(`shoe-${s.shoeId}`) ?? []).sort((a, b) => a.stream_version - b.stream_version).map((r) => r.event_id);
    if (expected.join() !== actual.join()) {
      mismatch(`shoe ${s.shoeId}: stream holds ${actual.length} events, the answers named ${expected.length} (or in another order)`);
    }
  }
  // one fact recorded twice would be a new event with a new id: look for facts, not ids
  const factKey = (r: PgEventRow): string | null => {
    const d = r.data ?? {};
    switch (r.type) {
      case 'BetPlaced':
      case 'BetSettled':
        return `${r.type}|${d.betId}`;
      case 'RoundOpened':
      case 'RoundResulted':
      case 'BettingClosed':
        return `${r.type}|${d.roundId}`;
      case 'CardDealt':
        return `${r.type}|${d.roundId}|${d.position}`;
      case 'ShoeOpened':
      case 'ShoeClosed':
      case 'CommencementCardDrawn':
        return `${r.type}|${r.stream_id}`;
      case 'CardBurned':
        return d.phase === 'COMMENCEMENT' ? `${r.type}|${r.stream_id}|${d.burnIndex}` : null;
      default:
        return null;
    }
  };
  const facts = new Map<string, number>();
  for (const r of rows) {
    const k = factKey(r);
    if (k) facts.set(k, (facts.get(k) ?? 0) + 1);
  }
  for (const [k, n] of facts) {
    if (n > 1) {
      duplicatedInPg += n - 1;
      mismatch(`fact recorded ${n} times in PostgreSQL: ${k}`);
    }
  }

  // ------------------------------------------------------------------ Kafka: every stored event
  const records = await readWholeTopic(kafka, topic, 120_000);
  const seen = new Map<string, { value: string; headers: string }>();
  let kafkaDuplicates = 0;
  let kafkaDuplicatesIdentical = true;
  for (const rec of records) {
    let id: string;
    let value: any;
    try {
      value = JSON.parse(rec.value);
      id = value.eventId;
    } catch {
      mismatch(`unparsable record at ${rec.partition}/${rec.offset}`);
      continue;
    }
    if (rec.headers.ce_id !== id) mismatch(`record ${rec.partition}/${rec.offset}: ce_id ${rec.headers.ce_id} ≠ eventId ${id}`);
    const prior = seen.get(id);
    if (prior) {
      kafkaDuplicates++;
      if (prior.value !== rec.value || prior.headers !== rec.headersJson) {
        kafkaDuplicatesIdentical = false;
        mismatch(`event ${id} on Kafka twice with different content`);
      }
      continue;
    }
    seen.set(id, { value: rec.value, headers: rec.headersJson });
    const r = byId.get(id);
    if (!r) {
      mismatch(`Kafka record ${rec.partition}/${rec.offset} names event ${id}, which PostgreSQL does not hold`);
      continue;
    }
    if (value.hash !== r.hash || String(value.globalPosition) !== r.global_position || rec.key !== r.table_id) {
      mismatch(`Kafka record of ${id} differs from its stored row (hash, position or key)`);
    }
  }
  let missingOnKafka = 0;
  for (const r of rows) {
    if (!seen.has(r.event_id)) {
      missingOnKafka++;
      mismatch(`stored event ${r.event_id} (${r.type} ${r.stream_id} v${r.stream_version}) is not on the topic`);
    }
  }

  // ------------------------------------------------------------------ settlements and stakes
  const settlementTypes = new Set(['BetSettled', 'BetResettled', 'BetRefunded']);
  const storeSettlements = new Map<string, PgEventRow[]>();
  const placed = new Map<string, PgEventRow>();
  for (const r of rows) {
    if (r.type === 'BetPlaced') placed.set(r.data.betId, r);
    if (settlementTypes.has(r.type)) storeSettlements.set(r.data.betId, [...(storeSettlements.get(r.data.betId) ?? []), r]);
  }
  const revRows: { bet_id: string; seq: number; kind: string; event_id: string }[] = await ds.query(`SELECT bet_id, seq, kind, event_id FROM "${schema}".bet_settlement_revisions ORDER BY bet_id, seq`);
  const readRevisions = new Map<string, { seq: number; kind: string; event_id: string }[]>();
  const revisionEventCount = new Map<string, number>();
  for (const r of revRows) {
    readRevisions.set(r.bet_id, [...(readRevisions.get(r.bet_id) ?? []), r]);
    revisionEventCount.set(r.event_id, (revisionEventCount.get(r.event_id) ?? 0) + 1);
  }
  let settlementsAppliedTwice = 0;
  for (const [id, n] of revisionEventCount) {
    if (n > 1) {
      settlementsAppliedTwice += n - 1;
      mismatch(`settlement event ${id} applied ${n} times in the read model`);
    }
  }
  const kindOf: Record<string, string> = { BetSettled: 'SETTLED', BetResettled: 'RESETTLED', BetRefunded: 'REFUNDED' };
  for (const betId of new Set([...storeSettlements.keys(), ...readRevisions.keys()])) {
    const store = (storeSettlements.get(betId) ?? []).map((r) => `${kindOf[r.type]}:${r.event_id}`);
    const read = (readRevisions.get(betId) ?? []).map((r) => `${r.kind}:${r.event_id}`);
    if (store.join() !== read.join()) {
      if (read.length > store.length) settlementsAppliedTwice += read.length - store.length;
      mismatch(`bet ${betId}: store settlements [${store.join(' ')}], read model revisions [${read.join(' ')}]`);
    }
  }
  const openRows: { bet_id: string; status: string }[] = await ds.query(`SELECT bet_id, status FROM "${schema}".bet_settlements`);
  const readStatus = new Map(openRows.map((r) => [r.bet_id, r.status]));
  let stakesLost = 0;
  let betsPlaced = 0;
  for (const e of driver.accepted.values()) {
    if (e.type !== 'BetPlaced') continue;
    betsPlaced++;
    const betId = String(e.data.betId);
    const ends = (storeSettlements.get(betId) ?? []).filter((r) => r.type === 'BetSettled' || r.type === 'BetRefunded');
    const status = readStatus.get(betId);
    if (ends.length === 0 || status === undefined || status === 'OPEN') {
      stakesLost++;
      mismatch(`bet ${betId}: accepted, but ${ends.length === 0 ? 'never settled nor refunded in the store' : `read model status ${status ?? 'missing'}`}`);
    }
  }
  for (const betId of placed.keys()) if (!readStatus.has(betId)) mismatch(`bet ${betId} is in the store but not in read.bet_settlements`);
  const count = (t: string) => rows.filter((r) => r.type === t).length;

  // reconciliation = a recomputation from the store, per shoe
  const recomputed = recomputeReconciliation(rows);
  const recRows: Record<string, string>[] = await ds.query(
    `SELECT shoe_id, sum(turnover)::text AS turnover, sum(payouts)::text AS payouts, sum(ggr)::text AS ggr,
            sum(correction_payout_delta)::text AS correction_payout_delta, sum(voided_stakes)::text AS voided_stakes,
            sum(bets_settled)::text AS bets_settled, sum(bets_refunded)::text AS bets_refunded, sum(bets_resettled)::text AS bets_resettled,
            sum(rounds_resulted)::text AS rounds_resulted, sum(rounds_voided)::text AS rounds_voided, sum(corrections)::text AS corrections,
            array_agg(dropped_num::text || '/' || dropped_den::text) AS dropped
       FROM "${schema}".reconciliation GROUP BY shoe_id`,
  );
  const recByShoe = new Map(recRows.map((r) => [r.shoe_id, r]));
  for (const [shoeId, want] of recomputed) {
    const got = recByShoe.get(shoeId);
    if (!got) {
      if (Object.values(want).some((v) => (Array.isArray(v) ? v[0] !== 0n : v !== 0n))) mismatch(`reconciliation has no row for shoe ${shoeId}`);
      continue;
    }
    for (const [k, v] of Object.entries(want)) {
      const g = k === 'dropped' ? sumFractions(got.dropped as unknown as string[]) : BigInt(got[k]);
      const same = k === 'dropped' ? fracEq(g as [bigint, bigint], v as [bigint, bigint]) : g === v;
      if (!same) mismatch(`reconciliation of shoe ${shoeId}: ${k} = ${fmt(g)}, recomputed from the store ${fmt(v)}`);
    }
  }
  for (const shoeId of recByShoe.keys()) if (!recomputed.has(shoeId)) mismatch(`reconciliation row for unknown shoe ${shoeId}`);

  // ------------------------------------------------------------------ hash chains
  const store = new PgEventStore(ds, { logger: { debug() {}, info() {}, warn() {}, error() {} } });
  const all = await store.verifyAll();
  let chainProblems = all.problems.length;
  for (const p of all.problems.slice(0, 10)) mismatch(`hash chain: ${p.kind} ${p.streamId ?? ''} ${p.detail}`);
  for (const s of scripts) {
    const v = await store.verifyChain(`shoe-${s.shoeId}`);
    if (!v.ok) {
      chainProblems += v.problems.length;
      mismatch(`hash chain of shoe ${s.shoeId}: ${v.problems.length} problem(s)`);
    }
  }

  // ------------------------------------------------------------------ projections = a rebuild
  const live = await projectionChecksums(ds, schema, ALL_PROJECTIONS);
  const scratch = `${schema}_rebuild`;
  const rebuilt = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic, schema: scratch, checkpointGroup: group });
  for (const name of diffChecksums(live, rebuilt.checksums)) {
    mismatch(`projection ${name}: live ${live[name].rows} rows ${live[name].sha256.slice(0, 12)}, rebuild ${rebuilt.checksums[name].rows} rows ${rebuilt.checksums[name].sha256.slice(0, 12)}`);
  }
  await ds.query(`DROP SCHEMA IF EXISTS "${scratch}" CASCADE`);

  // ------------------------------------------------------------------ significant events
  const significant = await checkSignificant(ds, { monitor: ctx.monitor ?? true });
  for (const p of significant.problems) mismatch(`significant events: ${p}`);

  return {
    eventsAccepted: driver.accepted.size,
    eventsInPg: rows.filter((r) => !r.stream_id.startsWith(SIGNIFICANT_STREAM_PREFIX)).length,
    lost,
    duplicatedInPg,
    recordsOnKafka: records.length,
    kafkaDuplicates,
    kafkaDuplicatesIdentical,
    missingOnKafka,
    betsPlaced,
    betsSettled: count('BetSettled'),
    betsRefunded: count('BetRefunded'),
    betsResettled: count('BetResettled'),
    stakesLost,
    settlementsAppliedTwice,
    settlementRevisionsInReadModel: revRows.length,
    chainStreams: all.streamsChecked,
    chainEvents: all.eventsChecked,
    chainProblems,
    projectionsChecksummed: Object.keys(live).length,
    rebuildEvents: rebuilt.events,
    significant,
    mismatches,
    mismatchCount,
  };
}

type Fraction = [bigint, bigint];
type RecValues = Record<string, bigint | Fraction>;

/**
 * The reconciliation of each shoe computed from the stored events alone (docs/domain-rules.md §4 as
 * libs/read-model/src/reconciliation/projection.ts documents it): a bet counts with the settlement in force, a refund
 * takes it out of turnover and payouts into voided stakes; rounds resulted and not voided; voided
 * rounds once; corrections and resettlements counted as they happened.
 */
export function recomputeReconciliation(rows: readonly PgEventRow[]): Map<string, RecValues> {
  const shoeOfRound = new Map<string, string>();
  const shoeOfStream = new Map<string, string>();
  const bets = new Map<string, { shoe: string; status: string; stake: bigint; payout: bigint; first: bigint; dropped: Fraction }>();
  const out = new Map<string, RecValues & Record<string, any>>();
  const resulted = new Map<string, string>();
  const voided = new Set<string>();
  const acc = (shoe: string) => {
    let v = out.get(shoe);
    if (!v) {
      v = {
        turnover: 0n,
        payouts: 0n,
        ggr: 0n,
        correction_payout_delta: 0n,
        voided_stakes: 0n,
        bets_settled: 0n,
        bets_refunded: 0n,
        bets_resettled: 0n,
        rounds_resulted: 0n,
        rounds_voided: 0n,
        corrections: 0n,
        dropped: [0n, 1n] as Fraction,
      };
      out.set(shoe, v);
    }
    return v;
  };
  for (const r of rows) {
    const d = r.data;
    switch (r.type) {
      case 'ShoeOpened':
        shoeOfStream.set(r.stream_id, d.shoeId);
        acc(d.shoeId);
        break;
      case 'RoundOpened':
        shoeOfRound.set(d.roundId, shoeOfStream.get(r.stream_id)!);
        break;
      case 'RoundResulted':
        resulted.set(d.roundId, shoeOfRound.get(d.roundId)!);
        break;
      case 'ResultCorrected':
        acc(shoeOfRound.get(d.roundId)!).corrections += 1n;
        break;
      case 'RoundVoided':
        if (!voided.has(d.roundId)) {
          voided.add(d.roundId);
          acc(shoeOfRound.get(d.roundId)!).rounds_voided += 1n;
        }
        break;
      case 'BetSettled':
        bets.set(d.betId, { shoe: shoeOfRound.get(d.roundId)!, status: 'SETTLED', stake: BigInt(d.stake), payout: BigInt(d.payout), first: BigInt(d.payout), dropped: frac(d.dropped) });
        break;
      case 'BetResettled': {
        const b = bets.get(d.betId)!;
        Object.assign(b, { status: 'RESETTLED', payout: BigInt(d.payout), dropped: frac(d.dropped) });
        acc(b.shoe).bets_resettled += 1n;
        break;
      }
      case 'BetRefunded': {
        const b = bets.get(d.betId);
        if (b) b.status = 'REFUNDED';
        else bets.set(d.betId, { shoe: shoeOfRound.get(d.roundId)!, status: 'REFUNDED', stake: BigInt(d.stake), payout: 0n, first: 0n, dropped: [0n, 1n] });
        break;
      }
    }
  }
  for (const [roundId, shoe] of resulted) if (!voided.has(roundId)) acc(shoe).rounds_resulted += 1n;
  for (const b of bets.values()) {
    const v = acc(b.shoe);
    if (b.status === 'REFUNDED') {
      v.voided_stakes += b.stake;
      v.bets_refunded += 1n;
    } else {
      v.turnover += b.stake;
      v.payouts += b.payout;
      v.correction_payout_delta += b.payout - b.first;
      v.bets_settled += 1n;
      v.dropped = addFrac(v.dropped, b.dropped);
    }
  }
  for (const v of out.values()) v.ggr = (v.turnover as bigint) - (v.payouts as bigint);
  return out;
}

function frac(s: string): Fraction {
  const [n, d] = String(s).split('/');
  return [BigInt(n), BigInt(d ?? '1')];
}
function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b) [a, b] = [b, a % b];
  return a;
}
function addFrac(a: Fraction, b: Fraction): Fraction {
  const n = a[0] * b[1] + b[0] * a[1];
  const d = a[1] * b[1];
  const g = gcd(n, d) || 1n;
  return [n / g, d / g];
}
function sumFractions(list: string[]): Fraction {
  return list.reduce<Fraction>((s, x) => addFrac(s, frac(x)), [0n, 1n]);
}
function fracEq(a: Fraction, b: Fraction): boolean {
  return a[0] * b[1] === b[0] * a[1];
}
function fmt(v: unknown): string {
  return Array.isArray(v) ? `${v[0]}/${v[1]}` : String(v);
}

/** A record as read back. */
interface TopicRecord {
  partition: number;
  offset: string;
  key: string;
  value: string;
  headers: Record<string, string>;
  headersJson: string;
}

/**
 * Every record of the topic up to the high watermarks taken at the start, with a throw-away
 * consumer group (deleted afterwards). @throws when not all are read within `timeoutMs`
 */
export async function readWholeTopic(kafka: KafkaClient, topic: string, timeoutMs: number): Promise<TopicRecord[]> {
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `fault-check-${Date.now()}-${process.pid}`;
  try {
    const hw = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, BigInt(o.high)]));
    const out: TopicRecord[] = [];
    const reached = new Map<number, bigint>();
    const complete = () => [...hw].every(([p, h]) => h === 0n || (reached.get(p) ?? 0n) >= h);
    if (complete()) return out;
    const consumer = kafka.consumer({ groupId, maxBytesPerPartition: 4 * 1_048_576 });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`topic ${topic} not read to its high watermarks within ${timeoutMs} ms`)), timeoutMs);
        consumer
          .run({
            eachBatch: async ({ batch }) => {
              for (const m of batch.messages) {
                if (BigInt(m.offset) >= (hw.get(batch.partition) ?? 0n)) continue;
                const headers: Record<string, string> = {};
                for (const [k, v] of Object.entries(m.headers ?? {})) headers[k] = String(v);
                out.push({ partition: batch.partition, offset: m.offset, key: m.key?.toString() ?? '', value: m.value?.toString() ?? '', headers, headersJson: JSON.stringify(Object.entries(headers).sort()) });
              }
              const last = BigInt(batch.lastOffset()) + 1n;
              if (last > (reached.get(batch.partition) ?? 0n)) reached.set(batch.partition, last);
              if (complete()) {
                clearTimeout(timer);
                resolve();
              }
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await admin.deleteGroups([groupId]).catch(() => undefined);
    }
    return out.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
  } finally {
    await admin.disconnect();
  }
}
