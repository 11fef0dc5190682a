/**
 * Open-loop load, the pure part (bench/phases/lag.ts runs it): a schedule fixed before the run,
 * requests sent at their scheduled time whatever the answers, and the figures read from the
 * schedule, not from the answers.
 *
 * - {@link buildSchedule}: the shoes' requests interleaved round-robin; a request is due when the
 *   events of every request scheduled before it have been offered at `rate` events/s (so the
 *   offered load is `rate`, whatever the API does).
 * - {@link sendTimes}: when each request of ONE shoe actually leaves: at its scheduled time, or, if
 *   that shoe's previous answer is not back yet, when it comes back (a table cannot deal before the
 *   ledger accepted the previous fact: a shoe's requests stay in order). That wait is part of the
 *   lag, which always runs from the scheduled time.
 * - {@link achievedRate} / {@link sustained}: events accepted per second over the window (or
 *   until the last answer, when later); a run is sustained when it reaches ≥ 95 % of the offer.
 */

/** One request of a shoe in the schedule. */
export interface ScheduledStep<S> {
  readonly shoe: number;
  /** Index of the request within its shoe. */
  readonly index: number;
  /** Due time, ms after the schedule's start. */
  readonly at: number;
  readonly step: S;
}

/**
 * Interleaves the shoes' requests round-robin; each is due at `(events offered before it) / rate`.
 * Requests due at or after `seconds` are left out.
 * @param perShoe the requests of each shoe, in order, with the events each is expected to record
 * @param rate offered events per second (> 0)
 * @param seconds length of the window (s)
 * @returns per shoe, its scheduled requests in order; `expected` = events offered in the window;
 *   `exhausted` = shoes whose requests ran out inside the window (the offer then falls short)
 */
export function buildSchedule<S extends { readonly expectedEvents: number }>(perShoe: readonly (readonly S[])[], rate: number, seconds: number): { schedule: ScheduledStep<S>[][]; expected: number; exhausted: number[] } {
  if (!(rate > 0) || !(seconds > 0)) throw new Error(`buildSchedule: rate and seconds must be > 0 (got ${rate}, ${seconds})`);
  const horizon = seconds * 1000;
  const schedule: ScheduledStep<S>[][] = perShoe.map(() => []);
  const cursor = perShoe.map(() => 0);
  let expected = 0;
  for (let progressed = true; progressed;) {
    progressed = false;
    for (let i = 0; i < perShoe.length; i++) {
      const step = perShoe[i][cursor[i]];
      if (!step) continue;
      const at = (expected / rate) * 1000;
      if (at >= horizon) continue;
      schedule[i].push({ shoe: i, index: cursor[i], at, step });
      cursor[i]++;
      expected += step.expectedEvents;
      progressed = true;
    }
  }
  const exhausted = perShoe.map((s, i) => (cursor[i] >= s.length && s.length > 0 ? i : -1)).filter((i) => i >= 0);
  return { schedule, expected, exhausted };
}

/**
 * When each request of one shoe leaves, given when it was due and how long each answer took:
 * `sent[k] = max(due[k], answered[k-1])`, `answered[k] = sent[k] + took[k]`.
 * @param due due times (ms), ascending
 * @param took each request's answer time (ms, ≥ 0)
 * @returns the send and answer times (ms)
 */
export function sendTimes(due: readonly number[], took: readonly number[]): { sent: number[]; answered: number[] } {
  const sent: number[] = [];
  const answered: number[] = [];
  let free = -Infinity;
  for (let k = 0; k < due.length; k++) {
    const s = Math.max(due[k], free);
    sent.push(s);
    free = s + took[k];
    answered.push(free);
  }
  return { sent, answered };
}

/** Lag of a request: scheduled send → its last event projected (ms); null when never seen projected. */
export function lagFromSchedule(scheduledAt: number, projectedAt: number | undefined): number | null {
  return projectedAt === undefined ? null : projectedAt - scheduledAt;
}

/**
 * Events accepted per second: `events ÷ max(window, last answer − start)`.
 * @param events events the answers recorded
 * @param windowMs the schedule's window (ms)
 * @param lastAnsweredAfterStartMs the last answer, ms after the schedule's start
 */
export function achievedRate(events: number, windowMs: number, lastAnsweredAfterStartMs: number): number {
  const ms = Math.max(windowMs, lastAnsweredAfterStartMs);
  return ms > 0 ? (events * 1000) / ms : 0;
}

/** The share of the offer a run must reach to count as sustained (95 %). */
export const SUSTAINED_SHARE = 0.95;

/** True when `achieved` events/s is at least 95 % of `offered` events/s. */
export function sustained(achieved: number | null, offered: number): boolean {
  return achieved !== null && offered > 0 && achieved >= SUSTAINED_SHARE * offered;
}

/**
 * Stage boundaries read from two clocks (the bench's and PostgreSQL's `clock_timestamp()`, the
 * same system clock here) made monotone: a boundary earlier than the one before it (e.g. a
 * timestamp taken at transaction start, `now()`, before the commit the previous boundary saw) is
 * raised to it, so no stage is negative; `clamped` counts the raised boundaries.
 * @param boundaries ms since the epoch, in the order the stages happen (null = unknown, skipped)
 * @returns each stage's length (ms, ≥ 0; null when one of its ends is unknown) and the count raised
 */
export function monotoneStages(boundaries: readonly (number | null)[]): { stages: (number | null)[]; clamped: number } {
  const stages: (number | null)[] = [];
  let clamped = 0;
  let prev: number | null = null;
  for (let i = 0; i < boundaries.length; i++) {
    let b = boundaries[i];
    if (b !== null && prev !== null && b < prev) {
      b = prev;
      clamped++;
    }
    if (i > 0) stages.push(b !== null && prev !== null ? b - prev : null);
    if (b !== null) prev = b;
    else if (i > 0) prev = null;
  }
  return { stages, clamped };
}

/** What {@link runOpenLoop} reports of each request it sent. */
export interface SentRecord<S, R> {
  readonly scheduled: ScheduledStep<S>;
  /** Due time, ms on the `now` clock. */
  readonly scheduledAt: number;
  readonly sentAt: number;
  readonly answer: R;
}

/**
 * Runs a schedule open loop: every shoe concurrently, each request sent at `start + at` (never
 * before), whatever the other shoes' answers; a shoe's next request waits for that shoe's previous
 * answer (its requests stay in order). A shoe more than `abandonAfterMs` behind its schedule stops:
 * its remaining requests are counted `abandoned`, never sent.
 * @param o.now the clock (ms); o.sleep waits (ms); o.send sends one request and resolves its answer
 * @returns every request sent (in the order sent) and the count abandoned
 */
export async function runOpenLoop<S, R>(
  schedule: readonly (readonly ScheduledStep<S>[])[],
  o: { start: number; now: () => number; sleep: (ms: number) => Promise<void>; send: (step: S) => Promise<R>; abandonAfterMs: number; onSent?: (r: SentRecord<S, R>) => void },
): Promise<{ sent: SentRecord<S, R>[]; abandoned: number }> {
  const sent: SentRecord<S, R>[] = [];
  let abandoned = 0;
  await Promise.all(
    schedule.map(async (steps) => {
      for (let k = 0; k < steps.length; k++) {
        const s = steps[k];
        const scheduledAt = o.start + s.at;
        const wait = scheduledAt - o.now();
        if (wait > 0) await o.sleep(wait);
        const sentAt = o.now();
        if (sentAt - scheduledAt > o.abandonAfterMs) {
          abandoned += steps.length - k;
          return;
        }
        const answer = await o.send(s.step);
        const rec = { scheduled: s, scheduledAt, sentAt, answer };
        sent.push(rec);
        o.onSent?.(rec);
      }
    }),
  );
  return { sent, abandoned };
}
