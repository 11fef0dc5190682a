import canonicalize from 'canonicalize';
import { fairnessVerdict, testScope, type Confidence } from '@ledger/fairness';
import type { GamingDayConfig } from '@ledger/projections';
import { FAIRNESS_ALERT_CODE } from '@ledger/significant-events';
import { countRounds, dayWindow, decimalText, foldDay, parseConfidence, readDayEvents } from './fairness-of-events';
import { settingsInForceAt } from './significant-settings';
import type { SqlSession } from './sql';

/**
 * The fairness verdict of a table's gaming day as a gaming-day close states it (layout 3 on;
 * docs/reports.md §2, docs/fairness.md §8), computed from the stored events (`fairness-of-events.ts`)
 * at the close's position: what the API signs and what `npm run -s verify` computes again.
 */

/** One statistic's test of the table's day. */
export interface CloseFairnessStatistic {
  readonly statistic: string;
  /** `chi-squared`, `exact-binomial` or `none` (no rounds). */
  readonly method: string;
  /** A plain decimal string, 6 significant digits. */
  readonly pValue: string;
  /** p-value < α (`fairnessVerdict`'s rule). */
  readonly alert: boolean;
}

/** The fairness of one table's gaming day in a close. */
export interface TableDayFairness {
  readonly tableId: string;
  /** Resulted, not voided rounds of the day counted (of the game of the day's last counted round's shoe). */
  readonly rounds: number;
  /** The game and deck count tested, null when no round was counted. */
  readonly variant: string | null;
  readonly decks: number | null;
  /** `FAIRNESS_ALERT_CONFIDENCE` as `n/d`. */
  readonly confidence: string;
  /** The per-test level α, a plain decimal string ('0' when no round was counted). */
  readonly alpha: string;
  /** Any statistic alerted. */
  readonly alert: boolean;
  /** Every statistic of the game, in report order (empty when no round was counted). */
  readonly statistics: readonly CloseFairnessStatistic[];
  /** `STATISTICS.OUT_OF_BOUNDS` raised for the table's day, at or below the position. */
  readonly alertsRaised: number;
}

/** What {@link closeFairness} computes for: the day and its rule, the tables, the position, the ledger, the confidence. */
export interface CloseFairnessQuery {
  /** `YYYY-MM-DD`. */
  readonly gamingDay: string;
  readonly dayRule: GamingDayConfig;
  readonly tableIds: readonly string[];
  readonly throughPosition: bigint;
  /** This ledger's events topic where several ledgers share the database, else null. */
  readonly topic: string | null;
  readonly confidence: Confidence;
}

/** The fairness of each table of `q.tableIds` (sorted by table id) from the stored events at `q.throughPosition`. */
export async function closeFairness(session: SqlSession, q: CloseFairnessQuery): Promise<TableDayFairness[]> {
  const window = dayWindow(q.gamingDay, q.dayRule);
  const out: TableDayFairness[] = [];
  for (const tableId of [...new Set(q.tableIds)].sort()) {
    const day = foldDay(await readDayEvents(session, { tableId, ...window, throughPosition: q.throughPosition, topic: q.topic }));
    const raised: { n: string }[] = await session.query(
      `SELECT count(*)::text AS n FROM events e WHERE e.type = 'SignificantEventRaised' AND e.table_id = $1 AND e.global_position <= $2::bigint
          AND e.data ->> 'code' = $4 AND e.data -> 'details' ->> 'gamingDay' = $3
          ${q.topic === null ? '' : 'AND EXISTS (SELECT 1 FROM outbox o WHERE o.global_position = e.global_position AND o.topic = $5)'}`,
      [tableId, q.throughPosition.toString(), q.gamingDay, FAIRNESS_ALERT_CODE, ...(q.topic === null ? [] : [q.topic])],
    );
    out.push(tableFairness(tableId, day, q.confidence, Number(raised[0]?.n ?? 0)));
  }
  return out;
}

/** One table's entry from its folded day. Pure. */
export function tableFairness(tableId: string, day: ReturnType<typeof foldDay>, confidence: Confidence, alertsRaised: number): TableDayFairness {
  const confidenceText = `${confidence.numerator}/${confidence.denominator}`;
  const last = day.rounds.length ? day.shoes.get(day.rounds[day.rounds.length - 1].shoeId) : undefined;
  if (!last) return { tableId, rounds: 0, variant: null, decks: null, confidence: confidenceText, alpha: '0', alert: false, statistics: [], alertsRaised };
  const rounds = day.rounds.filter((r) => {
    const s = day.shoes.get(r.shoeId);
    return s !== undefined && s.variant === last.variant && s.decks === last.decks;
  });
  const counts = countRounds(last.variant, rounds);
  const base = { variant: last.variant, decks: last.decks, confidence };
  const verdict = fairnessVerdict({ ...base, scopes: [{ scope: { kind: 'table' }, counts }] });
  const statistics = testScope({ ...base, counts }).map((r) => ({ statistic: r.statistic, method: r.test.method, pValue: decimalText(r.test.pValue), alert: r.alert }));
  return { tableId, rounds: counts.rounds, variant: last.variant, decks: last.decks, confidence: confidenceText, alpha: decimalText(verdict.alpha), alert: verdict.alert, statistics, alertsRaised };
}

/**
 * What differs between the fairness a close of layout 3 on signs and what the events give at its
 * position (verify step 4): computed again with the confidence attested in force at the close's
 * `throughPosition` (the last `ConfigurationAttested` with settings at or below it, else the
 * configuration's default `95/100`), never with the one the report states: a close stating another
 * confidence is a mismatch. For the day, rule, tables and position the report signs.
 * @param body the signed report's JSON
 * @param topic the close's ledger topic (null: the database's only ledger)
 * @returns a reason, or null when they agree
 */
export async function closeFairnessMismatch(session: SqlSession, body: Record<string, any>, topic: string | null): Promise<string | null> {
  const stated = body.fairness as TableDayFairness[] | undefined;
  if (!Array.isArray(stated) || stated.length === 0) return 'a close of layout 3 on states no fairness';
  const inForce = await settingsInForceAt(session, String(body.throughPosition), topic);
  if (inForce.problem) return inForce.problem;
  const attested = inForce.settings.fairnessConfidence;
  const other = stated.find((s) => s?.confidence !== attested);
  if (other) return `its fairness states confidence ${String(other?.confidence)}; the one in force at its position is ${attested}`;
  const confidence: Confidence = parseConfidence(attested);
  const computed = await closeFairness(session, { gamingDay: body.gamingDay, dayRule: body.gamingDayRule, tableIds: body.tableIds, throughPosition: BigInt(body.throughPosition), topic, confidence });
  for (const c of computed) {
    const s = stated.find((x) => x?.tableId === c.tableId);
    if (canonicalize(s) !== canonicalize(c)) return `the fairness it signs for ${c.tableId} is not what the events give (${JSON.stringify(c).slice(0, 150)})`;
  }
  return stated.length === computed.length ? null : 'it signs the fairness of tables outside its set';
}
