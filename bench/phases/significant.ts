/**
 * The significant events' latency at the bench's load (docs/significant-events.md, "How fast"; the acceptance: "a void, a correction, an early
 * close, a large win and a device with a skewed clock each raise their significant event on the topic
 * and the route within 1 s"): while the unbatched ingest drives the live API (relay and projector
 * running, the API's significant-event monitor on), a shoe of its own on the classic table opens with
 * a device clock 2 minutes behind (`DEVICE.CLOCK_SKEW`), settles a 1,000,000-minor-unit win
 * (`WIN.LARGE` at the default `SIGNIFICANT_WIN_AMOUNT_MINOR`), has its result corrected
 * (`RESULT.CORRECTED`) and a round voided (`ROUND.VOIDED`), four-eyes; repeated while the load runs;
 * then one early gaming-day close of the virtual table, which the load does not deal on
 * (`GAMING_DAY.CLOSED_EARLY`). For each raise: the cause's `recordedAt` (PostgreSQL) → the raise
 * received by a consumer of the significant-events topic (`topicMs`), and → first listed by
 * `GET /significant-events` polled every {@link ROUTE_POLL_MS} ms (`routeMs`), on one wall clock.
 */
import type { KafkaClient } from '@ledger/kafka';
import { gamingDay, gamingDayConfigFromEnv } from '@ledger/projections';
import type { LedgerClient } from '@ledger/simulator';
import type { Pg } from '../lib/pg';
import { latencySummary, nowMs, round, say, sleep, type LatencySummary } from '../lib/util';
import { ingestUnbatched, type IngestFigures } from './ingest';

/** How often the route is polled for new raises, in ms (the route's figure includes up to this much). */
export const ROUTE_POLL_MS = 25;
/** The kinds measured, in the order. */
export const MEASURED_KINDS = ['ROUND.VOIDED', 'RESULT.CORRECTED', 'GAMING_DAY.CLOSED_EARLY', 'WIN.LARGE', 'DEVICE.CLOCK_SKEW'] as const;
/** The table of the phase's own shoes (dealt on by the load too) and the table closed early (not dealt on by the load: virtual). */
const SHOE_TABLE = 'T-CLASSIC-01';
const CLOSE_TABLE = 'T-TIGER-V01';

/** Options of {@link measureSignificant}. */
export interface SignificantOptions {
  readonly prefix: string;
  /** The significant-events topic (`<live topic>.significant`). */
  readonly topic: string;
  /** The load: unbatched ingest clients, for this many seconds. */
  readonly clients: number;
  readonly seconds: number;
  readonly betsPerRound: number;
  /** At most this many shoes of causes (each: a skew, a large win, a correction, a void). */
  readonly maxShoes: number;
  readonly timeoutMs: number;
}

/** The figures of one kind: how many raises, and their latencies (ms). */
export interface KindFigures {
  readonly count: number;
  readonly topicMs: LatencySummary;
  readonly routeMs: LatencySummary;
  readonly within1s: { readonly topic: number; readonly route: number };
}

/** What the phase measured (latest.json `significant`). */
export interface SignificantFigures {
  readonly shoes: number;
  readonly kinds: Record<string, KindFigures>;
  /** The load that ran meanwhile (bench/phases/ingest.ts figures). */
  readonly load: IngestFigures;
  readonly routePollMs: number;
  readonly note: string;
}

/** One expected raise: its key (`<cause event id>|<code>`: a skew's raise is its device's window's, named by its first cause), kind and cause. */
interface Expected {
  readonly id: string;
  readonly code: string;
  readonly causeEventId: string;
}

/** The key a raise is matched by: its cause's event id and its code. */
const keyOf = (causeEventId: string, code: string): string => `${causeEventId}|${code}`;

/** A shoe of causes: skewed opening, a large win corrected, a round voided. @returns the raises it must cause */
async function causeShoe(client: LedgerClient, pg: Pg, shoeId: string): Promise<Expected[]> {
  // a device of its own per shoe: its skewed opening is the first of its window, raised at once
  const dev = (path: string, body: unknown = {}) => client.post('table-device', `device-${shoeId}`, path, body);
  const pm = (sub: string, path: string, body: unknown) => client.post('pit-manager', sub, path, body);
  const [r1, r2] = [`${shoeId}-R1`, `${shoeId}-R2`];
  await dev(`/tables/${SHOE_TABLE}/shoes`, { shoeId, dealerId: 'dealer-sig', occurredAt: new Date(Date.now() - 120_000).toISOString() });
  await dev(`/shoes/${shoeId}/commencement`, { card: 'AS' });
  await dev(`/shoes/${shoeId}/burns`, { card: null });
  await dev(`/shoes/${shoeId}/rounds`, { roundId: r1 });
  await client.post('betting-platform', 'platform-sig', `/shoes/${shoeId}/rounds/${r1}/bets`, { bet: { betId: `${r1}-B1`, accountId: 'acct-sig', betCode: 'PLAYER', stake: '1000000', currency: 'EUR' } });
  await dev(`/shoes/${shoeId}/rounds/${r1}/close-betting`);
  for (const [position, card] of [
    ['P1', '9S'],
    ['B1', '2H'],
    ['P2', 'KD'],
    ['B2', '3C'],
  ])
    await dev(`/shoes/${shoeId}/rounds/${r1}/cards`, { position, card });
  const correction = await pm('pm-sig-1', `/shoes/${shoeId}/rounds/${r1}/result-corrections`, { cards: ['2H', '9S', '3C', 'KD'], reason: 'cards misread by the scanner' });
  await pm('pm-sig-2', `/decisions/${correction.decisionId}/approve`, { reason: 'video reviewed' });
  await dev(`/shoes/${shoeId}/rounds`, { roundId: r2 });
  const voiding = await pm('pm-sig-1', `/shoes/${shoeId}/rounds/${r2}/void`, { reason: 'card exposed before betting closed' });
  await pm('pm-sig-2', `/decisions/${voiding.decisionId}/approve`, { reason: 'video reviewed' });
  const { rows } = await pg.query(`SELECT event_id::text AS id, type FROM events WHERE stream_id = $1 AND (type IN ('ShoeOpened', 'ResultCorrected', 'RoundVoided') OR (type = 'BetSettled' AND data ->> 'betId' = $2))`, [
    `shoe-${shoeId}`,
    `${r1}-B1`,
  ]);
  const codeOf: Record<string, string> = { ShoeOpened: 'DEVICE.CLOCK_SKEW', BetSettled: 'WIN.LARGE', ResultCorrected: 'RESULT.CORRECTED', RoundVoided: 'ROUND.VOIDED' };
  return rows.map((r: { id: string; type: string }) => ({ id: keyOf(r.id, codeOf[r.type]), code: codeOf[r.type], causeEventId: r.id }));
}

/** An early close of today's gaming day for the virtual table (requested by one pit manager, approved by another). @returns its raise */
async function causeEarlyClose(client: LedgerClient, pg: Pg): Promise<Expected> {
  // the API's gaming day now (GAMING_DAY_TZ, GAMING_DAY_CUTOFF_HOUR of the bench's environment, as the API reads them)
  const day = gamingDay(new Date().toISOString(), gamingDayConfigFromEnv(process.env));
  const asked = await client.post('pit-manager', 'pm-sig-1', `/gaming-days/${day}/close`, { tableIds: [CLOSE_TABLE], early: true, reason: 'bench: table closes early' });
  await client.post('pit-manager', 'pm-sig-2', `/gaming-days/${day}/close-requests/${asked.requestId}/approve`, {});
  const { rows } = await pg.query(`SELECT event_id::text AS id FROM events WHERE type = 'GamingDayClosed' AND data -> 'early' ->> 'requestId' = $1`, [asked.requestId]);
  if (rows.length !== 1) throw new Error(`the early close ${asked.requestId} recorded no GamingDayClosed`);
  return { id: keyOf(rows[0].id, 'GAMING_DAY.CLOSED_EARLY'), code: 'GAMING_DAY.CLOSED_EARLY', causeEventId: rows[0].id };
}

/** Latencies of the raises `expected`: cause recordedAt → topic, → route. */
function figuresOf(expected: readonly Expected[], recordedAt: ReadonlyMap<string, number>, onTopic: ReadonlyMap<string, number>, onRoute: ReadonlyMap<string, number>): Record<string, KindFigures> {
  const kinds: Record<string, KindFigures> = {};
  for (const code of MEASURED_KINDS) {
    const mine = expected.filter((e) => e.code === code);
    const topic = mine.map((e) => onTopic.get(e.id)! - recordedAt.get(e.causeEventId)!);
    const route = mine.map((e) => onRoute.get(e.id)! - recordedAt.get(e.causeEventId)!);
    kinds[code] = { count: mine.length, topicMs: latencySummary(topic), routeMs: latencySummary(route), within1s: { topic: topic.filter((x) => x <= 1000).length, route: route.filter((x) => x <= 1000).length } };
  }
  return kinds;
}

/**
 * Runs the load and, meanwhile, the causes; waits until every raise is on the topic and the route.
 * @throws Error when a raise is not on both within `timeoutMs` after the load ended
 */
export async function measureSignificant(client: LedgerClient, pg: Pg, kafka: KafkaClient, o: SignificantOptions): Promise<SignificantFigures> {
  const onTopic = new Map<string, number>();
  const onRoute = new Map<string, number>();
  const consumer = kafka.consumer({ groupId: `${o.prefix}-sig-reader`, maxWaitTimeInMs: 50 });
  await consumer.connect();
  await consumer.subscribe({ topic: o.topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const at = nowMs();
      const v = JSON.parse(message.value?.toString('utf8') ?? 'null') as { type?: string; data?: { code?: string; cause?: { eventId?: string } } } | null;
      const k = v?.type === 'SignificantEventRaised' && v.data?.cause?.eventId && v.data.code ? keyOf(v.data.cause.eventId, v.data.code) : null;
      if (k && !onTopic.has(k)) onTopic.set(k, at);
    },
  });
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const page = await client.get('auditor', 'aud-sig', '/significant-events?limit=100').catch(() => ({ items: [] }));
      const at = nowMs();
      for (const i of page.items as { code: string; causeEventId: string | null }[]) {
        const k = i.causeEventId ? keyOf(i.causeEventId, i.code) : null;
        if (k && !onRoute.has(k)) onRoute.set(k, at);
      }
      await sleep(ROUTE_POLL_MS);
    }
  })();
  try {
    say(`significant events at load: ${o.clients} unbatched clients for ${o.seconds} s, causes meanwhile`);
    const started = nowMs();
    const load = ingestUnbatched(client, { prefix: `${o.prefix}-sigload`, clients: o.clients, seconds: o.seconds, betsPerRound: o.betsPerRound });
    const expected: Expected[] = [];
    let shoes = 0;
    // the causes while the load runs, leaving time for the early close before it ends
    while (shoes < o.maxShoes && (shoes === 0 || nowMs() - started < o.seconds * 600)) expected.push(...(await causeShoe(client, pg, `${o.prefix}-sig-${++shoes}`)));
    expected.push(await causeEarlyClose(client, pg));
    const loadFigures = await load;
    const endedAt = nowMs();
    if (endedAt - started > o.seconds * 1000 + 5000) say(`  (the causes outlasted the load by ${Math.round((endedAt - started) / 1000 - o.seconds)} s)`);
    const deadline = nowMs() + o.timeoutMs;
    while (!expected.every((e) => onTopic.has(e.id) && onRoute.has(e.id))) {
      if (nowMs() > deadline)
        throw new Error(
          `raises not seen within ${o.timeoutMs} ms: ${expected
            .filter((e) => !onTopic.has(e.id) || !onRoute.has(e.id))
            .map((e) => e.code)
            .join(', ')}`,
        );
      await sleep(50);
    }
    const { rows } = await pg.query(`SELECT event_id::text AS id, (extract(epoch FROM recorded_at) * 1000)::float8 AS ms FROM events WHERE event_id = ANY($1::uuid[])`, [expected.map((e) => e.causeEventId)]);
    const recordedAt = new Map<string, number>(rows.map((r: { id: string; ms: number }) => [r.id, Number(r.ms)]));
    const kinds = figuresOf(expected, recordedAt, onTopic, onRoute);
    for (const [code, k] of Object.entries(kinds)) say(`  ${code}: ${k.count} raised; topic p50/p99/max ${k.topicMs.p50}/${k.topicMs.p99}/${k.topicMs.max} ms, route ${k.routeMs.p50}/${k.routeMs.p99}/${k.routeMs.max} ms`);
    return {
      shoes,
      kinds,
      load: loadFigures,
      routePollMs: ROUTE_POLL_MS,
      note: `cause recordedAt (PostgreSQL) → raise received by a consumer of the significant-events topic / first listed by GET /significant-events polled every ${ROUTE_POLL_MS} ms; ${round(loadFigures.requestsPerSecond ?? 0)} requests/s of unbatched ingest meanwhile`,
    };
  } finally {
    polling = false;
    await poller;
    await consumer.disconnect();
  }
}
