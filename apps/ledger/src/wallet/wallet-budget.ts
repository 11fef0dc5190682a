import { ApiError } from '../kernel/api-error';
import { exec, first, type Queryable } from '../kernel/sql';

/**
 * The per-caller budget of wallet matching (docs/reports.md §4.5): what one caller (token subject)
 * may store per rolling {@link WALLET_BUDGET_WINDOW_HOURS} hours — runs, and items (rows of
 * `wallet_match_items`). Counted from the stored runs themselves, so it holds across restarts and
 * API instances; a refused upload stores nothing and so costs nothing.
 */

/** The window of the budget, in hours (rolling). */
export const WALLET_BUDGET_WINDOW_HOURS = 24;
const WINDOW_MS = WALLET_BUDGET_WINDOW_HOURS * 3_600_000;

/** The limits of one caller per window. */
export interface WalletBudgetLimits {
  /** `WALLET_BUDGET_RUNS_PER_DAY` */
  readonly runs: number;
  /** `WALLET_BUDGET_ITEMS_PER_DAY` */
  readonly items: number;
}

/** One stored run of the caller: when (ms since the epoch) and its items. */
export interface CallerRun {
  readonly at: number;
  readonly items: number;
}

/** Why a run may not be stored now: the details of 429 `WALLET.BUDGET_EXHAUSTED`. */
export interface BudgetRefusal {
  readonly budget: 'runs' | 'items';
  readonly limit: number;
  /** What the caller's runs of the window hold already. */
  readonly used: number;
  readonly windowHours: number;
  /** When enough of the caller's runs have left the window for this one to fit (at least 1 s; a run alone over the budget: the whole window). */
  readonly retryAfterSeconds: number;
}

/** What {@link budgetVerdict} weighs. */
export interface BudgetQuestion {
  /** The caller's runs (any order; those outside the window are not counted). */
  readonly runs: readonly CallerRun[];
  /** The database's now, ms since the epoch. */
  readonly now: number;
  readonly limits: WalletBudgetLimits;
  /** What the new run would add: 1 run, its items. */
  readonly adding: { readonly runs: number; readonly items: number };
}

/** Whether one more run fits the caller's budget: null when it does, else the refusal (runs first, then items). */
export function budgetVerdict(q: BudgetQuestion): BudgetRefusal | null {
  const inWindow = q.runs.filter((r) => r.at > q.now - WINDOW_MS).sort((a, b) => a.at - b.at);
  const retryAfter = (at: number | undefined) => Math.max(1, Math.ceil(((at ?? q.now) + WINDOW_MS - q.now) / 1000));
  const usedRuns = inWindow.length;
  if (usedRuns + q.adding.runs > q.limits.runs) {
    const mustLeave = usedRuns + q.adding.runs - q.limits.runs;
    return { budget: 'runs', limit: q.limits.runs, used: usedRuns, windowHours: WALLET_BUDGET_WINDOW_HOURS, retryAfterSeconds: retryAfter(inWindow[Math.min(mustLeave, usedRuns) - 1]?.at) };
  }
  const usedItems = inWindow.reduce((n, r) => n + r.items, 0);
  if (usedItems + q.adding.items > q.limits.items) {
    let freed = 0;
    let at: number | undefined;
    for (const r of inWindow) {
      freed += r.items;
      at = r.at;
      if (usedItems - freed + q.adding.items <= q.limits.items) break;
    }
    return { budget: 'items', limit: q.limits.items, used: usedItems, windowHours: WALLET_BUDGET_WINDOW_HOURS, retryAfterSeconds: retryAfter(at) };
  }
  return null;
}

/**
 * The caller's runs of the window and the database's now.
 * @param q a connection, or the storing transaction (after {@link lockCallerBudget})
 */
export async function callerRuns(q: Queryable, actorId: string): Promise<{ runs: CallerRun[]; now: number }> {
  const row = await first<{ now: string; runs: { at: number; items: number }[] }>(
    q,
    `SELECT floor(extract(epoch FROM now()) * 1000)::bigint::text AS now,
            coalesce(json_agg(json_build_object('at', floor(extract(epoch FROM created_at) * 1000), 'items', item_count) ORDER BY created_at), '[]'::json) AS runs
       FROM wallet_match_runs WHERE actor_id = $1 AND created_at > now() - make_interval(hours => $2)`,
    [actorId, WALLET_BUDGET_WINDOW_HOURS],
  );
  return { runs: (row?.runs ?? []).map((r) => ({ at: Number(r.at), items: Number(r.items) })), now: Number(row?.now ?? Date.now()) };
}

/** Serialises the budget checks of one caller's uploads until the storing transaction `tx` ends (two uploads at once cannot both take the last of it). */
export async function lockCallerBudget(tx: Queryable, actorId: string): Promise<void> {
  await exec(tx, `SELECT pg_advisory_xact_lock(hashtextextended('wallet-budget:' || $1, 0))`, [actorId]);
}

/**
 * Refuses when the caller's run of `adding` does not fit the budget.
 * @throws ApiError 429 `WALLET.BUDGET_EXHAUSTED` (details: {@link BudgetRefusal})
 */
export async function checkBudget(q: Queryable, o: { readonly actorId: string; readonly limits: WalletBudgetLimits; readonly adding: BudgetQuestion['adding'] }): Promise<void> {
  const { runs, now } = await callerRuns(q, o.actorId);
  const refusal = budgetVerdict({ runs, now, limits: o.limits, adding: o.adding });
  if (refusal) throw ApiError.of('WALLET.BUDGET_EXHAUSTED', { ...refusal });
}
