/**
 * One round with N bets, with the API, relay and projector running: open a shoe, commence, open
 * the round, N bets in batches (the batch endpoint takes up to 10,000), close betting, deal. The
 * last card's 201 carries the result and N settlements; the figure is the time from that last
 * card's REQUEST (when the bench sent it, so the append of the result and N settlements counts)
 * to every settlement projected (the last settlement event seen by the read model's probe,
 * bench/lib/probe.ts, and `bet_settlements` holding N SETTLED rows of the round). Breakdown from
 * database timestamps (`outbox.published_at`, `applied_events.applied_at`), same wall clock.
 */
import type { Pg } from '../lib/pg';
import { LedgerClient } from '@ledger/simulator';
import { benchTables, send, shoeSteps } from '../lib/workload';
import { nowMs, percentile, round, say, sleep } from '../lib/util';
import { projectedProbe } from '../lib/probe';

export interface RoundRun {
  readonly bets: number;
  /** The last card's request sent → every settlement projected (ms). */
  readonly projectedMs: number | null;
  /** The last card's request itself (CardDealt + RoundResulted + N BetSettled in one append). */
  readonly lastCardRequestMs: number;
  readonly betRequestsMs: number[];
  readonly breakdownMs: {
    /** The last card's request sent → its 201 (= lastCardRequestMs). */
    readonly toAnswer: number;
    /** request sent → relay marked the first settlement published. */
    readonly toRelayFirst: number | null;
    /** request sent → relay marked the last settlement published. */
    readonly toRelayLast: number | null;
    /** request sent → first settlement applied by the projector. */
    readonly toProjectorFirst: number | null;
    /** request sent → last settlement applied by the projector. */
    readonly toProjectorLast: number | null;
    readonly projectorTransactions: number;
    readonly relayBatches: number;
  };
}

export interface RoundFigures {
  readonly bets: number;
  readonly runs: RoundRun[];
  readonly projectedMsMedian: number | null;
  readonly projectedMsMax: number | null;
}

export async function measureRound(client: LedgerClient, pg: Pg, o: { prefix: string; schema: string; bets: number; batchSize: number; runs: number; timeoutMs: number }): Promise<RoundFigures> {
  const runs: RoundRun[] = [];
  const table = benchTables()[0];
  const probe = await projectedProbe(pg, o.schema);
  for (let r = 0; r < o.runs; r++) {
    say(`round: ${o.bets} bets (batches of ${o.batchSize}), run ${r + 1}/${o.runs}`);
    const steps = shoeSteps({ table, shoeId: `${o.prefix}-round${r}`, seed: `${o.prefix}-round${r}`, rounds: 1, betsPerRound: o.bets, betMode: 'batch', batchSize: o.batchSize });
    const betRequestsMs: number[] = [];
    let last = null as Awaited<ReturnType<typeof send>> | null;
    for (const step of steps) {
      const s = await send(client, step);
      if (step.kind === 'bets') betRequestsMs.push(round(s.ms, 1)!);
      if (step.kind === 'settle') last = s;
    }
    if (!last) throw new Error('round: no settling card in the script');
    const roundId = (last.step.path.match(/rounds\/([^/]+)\/cards/) ?? [])[1];
    let settlements = last.events.filter((e) => e.type === 'BetSettled');
    if (settlements.length !== o.bets) {
      // an answer that does not list every event it recorded: read the settlements from the shoe's stream
      const { rows } = await pg.query(`SELECT event_id::text AS "eventId", type, global_position::text AS "globalPosition" FROM events WHERE stream_id = $1 AND type = 'BetSettled' ORDER BY stream_version`, [
        `shoe-${o.prefix}-round${r}`,
      ]);
      settlements = rows;
    }
    if (settlements.length !== o.bets) throw new Error(`round: the last card settled ${settlements.length} bets, expected ${o.bets}`);
    const lastId = settlements[settlements.length - 1].eventId;
    const deadline = nowMs() + o.timeoutMs;
    let projectedAt = NaN;
    for (;;) {
      const { rows } = await pg.query(probe.sql, [[lastId]]);
      if (rows.length > 0) {
        projectedAt = nowMs();
        break;
      }
      if (nowMs() > deadline) break;
      await sleep(2);
    }
    const settled = (await pg.query(`SELECT count(*)::int AS n FROM "${o.schema}".bet_settlements WHERE round_id = $1 AND status = 'SETTLED'`, [roundId])).rows[0].n;
    if (Number.isFinite(projectedAt) && settled !== o.bets) throw new Error(`round: ${settled} of ${o.bets} bets SETTLED in ${o.schema}.bet_settlements after the last settlement was applied`);
    const positions = settlements.map((e) => e.globalPosition);
    // the breakdown reads the relay's and the projector's timestamps, and counts their transactions by the rows' xmin
    // (the timestamps are clock_timestamp(), one per row); left empty when those columns change
    const breakdownSql = `SELECT extract(epoch FROM min(o.published_at)) * 1000 AS r1, extract(epoch FROM max(o.published_at)) * 1000 AS r2, count(DISTINCT o.xmin::text)::int AS rb,
              extract(epoch FROM min(a.applied_at)) * 1000 AS p1, extract(epoch FROM max(a.applied_at)) * 1000 AS p2, count(DISTINCT a.xmin::text)::int AS pt
         FROM outbox o LEFT JOIN "${o.schema}".applied_events a ON a.global_position = o.global_position
        WHERE o.global_position = ANY($1::bigint[])`;
    const empty = { rows: [{ r1: null, r2: null, rb: 0, p1: null, p2: null, pt: 0 }] };
    const t = (await pg.query(breakdownSql, [positions]).catch(() => empty)).rows[0];
    const rel = (x: unknown) => (x === null ? null : round(Number(x) - last!.startedAt, 1));
    runs.push({
      bets: o.bets,
      projectedMs: Number.isFinite(projectedAt) ? round(projectedAt - last.startedAt, 1) : null,
      lastCardRequestMs: round(last.ms, 1)!,
      betRequestsMs,
      breakdownMs: { toAnswer: round(last.ms, 1)!, toRelayFirst: rel(t.r1), toRelayLast: rel(t.r2), toProjectorFirst: rel(t.p1), toProjectorLast: rel(t.p2), projectorTransactions: t.pt, relayBatches: t.rb },
    });
  }
  const done = runs.map((r) => r.projectedMs).filter((x): x is number => x !== null);
  return {
    bets: o.bets,
    runs,
    projectedMsMedian: done.length === runs.length ? round(percentile(done, 50), 1) : null,
    projectedMsMax: done.length === runs.length ? round(Math.max(...done), 1) : null,
  };
}
