/**
 * The significant events of a fault run (docs/significant-events.md, "Raised as facts"): the API's
 * monitor, killed and restarted with the API, must raise each significant event of the run's
 * events exactly once. The kinds a single cause raises by itself (the detector's, per cause) are
 * checked for completeness and uniqueness; every raise and acknowledgement of the run is then checked
 * as `npm run -s verify` checks them (step 7: genuine cause, id, severity, actor).
 */
import type { DataSource } from 'typeorm';
import { checkSignificantEvents, DivergenceList, type SqlSession } from '@ledger/anchors';
import { PgEventStore } from '@ledger/event-store';
import type { LedgerEvent } from '@ledger/events';
import { detectionThresholds, detectSignificantEvents, SELF_RAISED_CODES, type DetectionThresholds } from '@ledger/significant-events';

/** The detector's thresholds the run's API is started with (its environment sets the same three variables). */
export const FAULT_RUN_THRESHOLDS_ENV = { SIGNIFICANT_WIN_MULTIPLE: '100/1', SIGNIFICANT_WIN_AMOUNT_MINOR: '1000000', OCCURRED_AT_MAX_SKEW_MS: 5000 } as const;

/** What the run's events should have raised, and what was raised. */
export interface SignificantCheck {
  /** (cause, code) pairs the detector finds in the run's events, of the per-cause kinds. */
  readonly expected: number;
  /** Raises stored (every kind). */
  readonly raised: number;
  /** Expected (cause, code) pairs with no raise. */
  readonly missing: number;
  /** Extra raises of a (cause, code) pair already raised. */
  readonly duplicated: number;
  /** What `npm run -s verify` step 7 reports (SIGNIFICANT_EVENT_NOT_GENUINE). */
  readonly notGenuine: number;
  /** One line per problem (the first 20). */
  readonly problems: readonly string[];
}

/** Every event of the store, in global order, upcast. */
async function allEvents(store: PgEventStore): Promise<LedgerEvent[]> {
  const out: LedgerEvent[] = [];
  for (let from = 1n; ;) {
    const page = await store.readAll(from, 10_000);
    out.push(...page);
    if (page.length < 10_000) return out;
    from = BigInt(page[page.length - 1].globalPosition) + 1n;
  }
}

/** The expected and the raised (cause, code) pairs, and the raises that name no stored cause. */
async function pairs(ds: DataSource, t: DetectionThresholds): Promise<{ expected: Set<string>; raised: Map<string, number>; count: number }> {
  const store = new PgEventStore(ds, { logger: { debug() {}, info() {}, warn() {}, error() {} } });
  const events = await allEvents(store);
  const expected = new Set<string>();
  const raised = new Map<string, number>();
  let count = 0;
  for (const e of events) {
    if (e.type === 'SignificantEventRaised') {
      count++;
      const c = e.data.cause as { kind?: string; eventId?: string };
      // a cause that is not a ledger event (a refusal's window, a projector's record) has its own id: unique by the store
      if (c.kind !== undefined && c.kind !== 'event') continue;
      // a fairness alert is raised once per scope of its cause
      const key = `${c.kind ?? 'event'}|${c.eventId ?? ''}|${e.data.code}|${e.data.details.scopeKey ?? ''}`;
      raised.set(key, (raised.get(key) ?? 0) + 1);
      continue;
    }
    for (const d of detectSignificantEvents(e, t)) if (SELF_RAISED_CODES.has(d.code)) expected.add(`event|${e.eventId}|${d.code}|`);
  }
  return { expected, raised, count };
}

/** How many expected (cause, code) pairs have no raise yet: what the drain waits on before it stops the API. */
export async function significantMissing(ds: DataSource): Promise<number> {
  const { expected, raised } = await pairs(ds, detectionThresholds(FAULT_RUN_THRESHOLDS_ENV));
  return [...expected].filter((k) => !raised.has(k)).length;
}

/**
 * The whole check (see the file comment). Read-only.
 * @param o.monitor whether the run's API ran the monitor: without it (a run that turns it off) nothing
 *   is expected, and a raise is a problem
 */
export async function checkSignificant(ds: DataSource, o: { readonly monitor: boolean }): Promise<SignificantCheck> {
  const { expected, raised, count } = await pairs(ds, detectionThresholds(FAULT_RUN_THRESHOLDS_ENV));
  const problems: string[] = [];
  const note = (s: string) => problems.length < 20 && problems.push(s);
  let missing = 0;
  if (!o.monitor && count > 0) note(`${count} raise(s) with the monitor off`);
  for (const k of o.monitor ? expected : [])
    if (!raised.has(k)) {
      missing++;
      note(`cause|code ${k} raised nothing`);
    }
  let duplicated = 0;
  for (const [k, n] of raised)
    if (n > 1) {
      duplicated += n - 1;
      note(`cause|code ${k} raised ${n} times`);
    }
  const session: SqlSession = { query: async (sql, params) => ds.query(sql, params as unknown[] | undefined) };
  const out = new DivergenceList(10);
  await checkSignificantEvents(session, out);
  for (const d of out.sorted()) note(`verify: ${d.kind} ${d.streamId ?? ''} ${d.reason}`);
  return { expected: expected.size, raised: count, missing, duplicated, notGenuine: out.count, problems };
}
