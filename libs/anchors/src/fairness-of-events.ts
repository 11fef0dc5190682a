import { DEFAULT_EVENTS_TOPIC } from '@ledger/event-store';
import { countRound, emptyCounts, fairnessVerdict, outcomeOfRecordedRound, testScope, type Confidence, type FairnessScope, type FairnessVerdict, type ScopeCounts, type StatisticReport } from '@ledger/fairness';
import { gamingDayEnd, type GamingDayConfig } from '@ledger/projections';
import type { Variant } from '@ledger/rules';
import type { SqlSession } from './sql';

/**
 * The fairness statistics of a table's gaming day computed from the stored events, never from the
 * read model (docs/fairness.md §6, docs/significant-events.md "Raised as facts"): what the API's
 * significant-event monitor raises `STATISTICS.OUT_OF_BOUNDS` from at each shoe's close, what the
 * gaming-day close signs (layout 3 on), and what `npm run -s verify` computes again for both.
 *
 * A round of the table's gaming day is one opened (`RoundOpened`'s `recordedAt`, the ledger's time)
 * within the day's window, as the read model files it; it counts when resulted (its last
 * `RoundResulted` or `ResultCorrected` cards) and not voided (`RoundVoided`, `ShoeVoided`), all as of
 * a global position. Its dealer is the shoe's dealer when it opened, or the one who took over while
 * its bets were open (as the read model's `dealing_dealer_id`).
 */

/** The event types the fold reads (every other is ignored). */
export const FAIRNESS_EVENT_TYPES = ['ShoeOpened', 'DealerChanged', 'RoundOpened', 'BettingClosed', 'RoundResulted', 'ResultCorrected', 'RoundVoided', 'ShoeVoided'] as const;

/** One stored event as the fold reads it, in global order. */
export interface FairnessEventRow {
  readonly type: string;
  readonly streamId: string;
  /** Whether its `recordedAt` is within the gaming day's window (read only for `RoundOpened`). */
  readonly inDay: boolean;
  readonly data: Record<string, any>;
  /** Its global position (absent where the rows were not read by {@link readDayEvents}). */
  readonly globalPosition?: bigint;
}

/** A resulted, not voided round of the day. */
export interface DayRound {
  readonly shoeId: string;
  readonly dealerId: string;
  readonly playerCards: readonly string[];
  readonly bankerCards: readonly string[];
}

/** A shoe as the fold saw it: its game and deck count (the `ShoeOpened` snapshot) and its dealer at the position. */
export interface DayShoe {
  readonly variant: Variant;
  readonly decks: number;
  readonly dealerId: string;
}

/** What {@link foldDay} gives: the counted rounds in opening order, and every shoe seen. */
export interface FoldedDay {
  readonly rounds: readonly DayRound[];
  readonly shoes: ReadonlyMap<string, DayShoe>;
}

interface RoundState {
  shoeId: string;
  dealerId: string;
  inDay: boolean;
  bettingOpen: boolean;
  cards: { player: readonly string[]; banker: readonly string[] } | null;
  voided: boolean;
}

/** The rounds of the day and the shoes from `events` (global order). Pure. */
export function foldDay(events: readonly FairnessEventRow[]): FoldedDay {
  const shoes = new Map<string, { variant: Variant; decks: number; dealerId: string }>();
  const rounds = new Map<string, RoundState>();
  const shoeOf = (streamId: string) => streamId.slice('shoe-'.length);
  for (const e of events) {
    const d = e.data;
    const shoeId = shoeOf(e.streamId);
    const r = typeof d.roundId === 'string' ? rounds.get(d.roundId) : undefined;
    switch (e.type) {
      case 'ShoeOpened':
        shoes.set(shoeId, { variant: d.variant, decks: d.decks, dealerId: d.dealerId });
        break;
      case 'DealerChanged': {
        const s = shoes.get(shoeId);
        if (s) s.dealerId = d.dealerId;
        for (const x of rounds.values()) if (x.shoeId === shoeId && x.bettingOpen && x.cards === null && !x.voided) x.dealerId = d.dealerId;
        break;
      }
      case 'RoundOpened':
        rounds.set(d.roundId, { shoeId, dealerId: shoes.get(shoeId)?.dealerId ?? '', inDay: e.inDay, bettingOpen: true, cards: null, voided: false });
        break;
      case 'BettingClosed':
        if (r) r.bettingOpen = false;
        break;
      case 'RoundResulted':
      case 'ResultCorrected':
        if (r) r.cards = { player: d.outcome.player, banker: d.outcome.banker };
        break;
      case 'RoundVoided':
        if (r) r.voided = true;
        break;
      case 'ShoeVoided':
        for (const id of d.roundIds ?? []) {
          const v = rounds.get(id);
          if (v) v.voided = true;
        }
        break;
    }
  }
  const counted = [...rounds.values()].filter((r) => r.inDay && r.cards !== null && !r.voided);
  return { rounds: counted.map((r) => ({ shoeId: r.shoeId, dealerId: r.dealerId, playerCards: r.cards!.player, bankerCards: r.cards!.banker })), shoes };
}

/** Which events {@link readDayEvents} reads: a table, a gaming-day window, a position, the ledger. */
export interface DayEventsQuery {
  readonly tableId: string;
  /** ISO-8601 instants: the day starts at `from` (inclusive), ends at `to` (exclusive). */
  readonly from: string;
  readonly to: string;
  /** Events at or below it only. */
  readonly throughPosition: bigint;
  /** This ledger's events topic where several ledgers share the database (the test suites), else null. */
  readonly topic: string | null;
}

/** The window of gaming day `day` under `rule`: from the previous day's end to its own (ISO-8601 UTC). */
export function dayWindow(day: string, rule: GamingDayConfig): { from: string; to: string } {
  const [y, m, d] = day.split('-').map(Number);
  const previous = new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
  return { from: gamingDayEnd(previous, rule), to: gamingDayEnd(day, rule) };
}

/**
 * The events of the shoes of `q.tableId` that opened a round in the window, at or below the position,
 * of the {@link FAIRNESS_EVENT_TYPES}, in global order (as stored: the verify of their hash chains is
 * steps 2 and 3 of verify, and the close's own check).
 */
export async function readDayEvents(session: SqlSession, q: DayEventsQuery): Promise<FairnessEventRow[]> {
  // an event whose outbox row was pruned (OUTBOX_RETENTION_MS) is counted as this ledger's: the outbox of a production database holds one
  const own = (alias: string) => (q.topic === null ? '' : `AND coalesce((SELECT o.topic FROM outbox o WHERE o.global_position = ${alias}.global_position), $6) = $6`);
  const rows: { type: string; stream_id: string; in_day: boolean; data: Record<string, any>; global_position: string }[] = await session.query(
    `SELECT e.type, e.stream_id, e.global_position::text AS global_position, (e.recorded_at >= $3::timestamptz AND e.recorded_at < $4::timestamptz) AS in_day, e.data
       FROM events e
      WHERE e.table_id = $1 AND e.type = ANY($2::text[]) AND e.global_position <= $5::bigint ${own('e')}
        AND e.stream_id IN (SELECT DISTINCT r.stream_id FROM events r WHERE r.table_id = $1 AND r.type = 'RoundOpened'
                               AND r.recorded_at >= $3::timestamptz AND r.recorded_at < $4::timestamptz AND r.global_position <= $5::bigint ${own('r')})
      ORDER BY e.global_position`,
    [q.tableId, [...FAIRNESS_EVENT_TYPES], q.from, q.to, q.throughPosition.toString(), ...(q.topic === null ? [] : [q.topic])],
  );
  return rows.map((r) => ({ type: r.type, streamId: r.stream_id, inDay: r.in_day === true, data: r.data, globalPosition: BigInt(r.global_position) }));
}

/**
 * The topic to read a ledger's events by, from the outbox row of one of its events (its cause or its
 * close): null when it is the default topic or the row is gone (one ledger per database, production).
 */
export async function ledgerTopicOf(session: SqlSession, globalPosition: string): Promise<string | null> {
  const [row]: { topic: string }[] = await session.query(`SELECT topic FROM outbox WHERE global_position = $1::bigint`, [globalPosition]);
  return row && row.topic !== DEFAULT_EVENTS_TOPIC ? row.topic : null;
}

/** Counts `rounds` for `variant` (each resulted again by the engine from its cards). */
export function countRounds(variant: Variant, rounds: readonly DayRound[]): ScopeCounts {
  const c = emptyCounts(variant);
  for (const r of rounds) countRound(c, variant, outcomeOfRecordedRound(r));
  return c;
}

/** One scope of a look: its counts and its statistics' reports. */
export interface ScopeLook {
  readonly scope: FairnessScope;
  /** `shoe:<shoeId>`, `dealer:<dealerId>`, `table:<tableId>`: the scope part of a raise's id. */
  readonly scopeKey: string;
  readonly counts: ScopeCounts;
  readonly statistics: readonly StatisticReport[];
}

/** The look at a shoe's close: the game, the three scopes and the verdict of `fairnessVerdict`. */
export interface ShoeCloseLook {
  readonly variant: Variant;
  readonly decks: number;
  readonly dealerId: string;
  readonly scopes: readonly ScopeLook[];
  readonly verdict: FairnessVerdict;
}

/**
 * The monitor's look at the close of shoe `at.shoeId` of table `at.tableId` (docs/fairness.md §4): the
 * shoe's rounds of the day, its closing dealer's rounds of the day at the table, the table's rounds of
 * the day (the last two among the shoes of the same game and deck count), each tested with
 * `fairnessVerdict`'s rule. Pure.
 * @returns null when the shoe opened no round in the day (nothing to look at)
 */
export function lookAtShoeClose(day: FoldedDay, at: { readonly tableId: string; readonly shoeId: string; readonly confidence: Confidence }): ShoeCloseLook | null {
  const shoe = day.shoes.get(at.shoeId);
  if (!shoe) return null;
  const same = day.rounds.filter((r) => {
    const s = day.shoes.get(r.shoeId);
    return s !== undefined && s.variant === shoe.variant && s.decks === shoe.decks;
  });
  const scoped: { scope: FairnessScope; scopeKey: string; counts: ScopeCounts }[] = [
    {
      scope: { kind: 'shoe', shoeId: at.shoeId },
      scopeKey: `shoe:${at.shoeId}`,
      counts: countRounds(
        shoe.variant,
        same.filter((r) => r.shoeId === at.shoeId),
      ),
    },
    {
      scope: { kind: 'dealer', dealerId: shoe.dealerId },
      scopeKey: `dealer:${shoe.dealerId}`,
      counts: countRounds(
        shoe.variant,
        same.filter((r) => r.dealerId === shoe.dealerId),
      ),
    },
    { scope: { kind: 'table' }, scopeKey: `table:${at.tableId}`, counts: countRounds(shoe.variant, same) },
  ];
  const base = { variant: shoe.variant, decks: shoe.decks, confidence: at.confidence };
  return {
    variant: shoe.variant,
    decks: shoe.decks,
    dealerId: shoe.dealerId,
    scopes: scoped.map((s) => ({ ...s, statistics: testScope({ ...base, counts: s.counts }) })),
    verdict: fairnessVerdict({ ...base, scopes: scoped }),
  };
}

/**
 * A float in [0, 1] (a p-value, a level) as a plain decimal string of 6 significant digits, never
 * in exponent form: `0.000123457`, `1`, `0`.
 */
export function decimalText(x: number): string {
  if (!(x > 0)) return '0';
  const digits = Math.min(100, Math.max(0, 5 - Math.floor(Math.log10(x))));
  return x
    .toFixed(digits)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

/** `n × numerator / denominator` to 3 decimals (rounded half up), exact (bigint): an expected count. */
export function expectedCountText(n: number, p: { readonly numerator: string; readonly denominator: string }): string {
  const scaled = (BigInt(n) * BigInt(p.numerator) * 2000n + BigInt(p.denominator)) / (2n * BigInt(p.denominator));
  const s = scaled.toString().padStart(4, '0');
  return `${s.slice(0, -3)}.${s.slice(-3)}`;
}

/** The confidence as the details write it (`95/100`), and back. @throws Error unless 0 < n < d, integers */
export function parseConfidence(text: string): Confidence {
  const m = /^([1-9]\d{0,17})\/([1-9]\d{0,17})$/.exec(text);
  if (!m || BigInt(m[1]) >= BigInt(m[2])) throw new Error(`confidence ${text} is not n/d with 0 < n < d`);
  return { numerator: BigInt(m[1]), denominator: BigInt(m[2]) };
}
