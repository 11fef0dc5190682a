import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { LedgerClient, LedgerHttpError } from '@ledger/simulator';
import type { ShoeTail } from './post-lines';

/** Token subject of the replayer's reads (role `auditor`). */
export const AUDITOR_ID = 'replayer';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Answer of `GET /projections/applied/{eventId}`. */
interface AppliedAnswer {
  eventId: string;
  applied: boolean;
}

/** Result of {@link waitForProjections}. */
export interface CatchUp {
  readonly caughtUp: boolean;
  /** Shoes whose last event was not applied by the deadline. */
  readonly pending: string[];
  readonly elapsedMs: number;
  /** The last error answer seen while polling (e.g. 404 when the endpoint is missing), if any. */
  readonly lastError: string | null;
}

/**
 * Waits until the read model has applied the last event the run recorded for every shoe:
 * polls `GET /projections/applied/{eventId}` (role auditor) until `applied` is true, or the
 * timeout passes. Shoes with no recorded event are skipped.
 */
export async function waitForProjections(client: LedgerClient, shoes: readonly ShoeTail[], options: { timeoutMs: number; pollMs?: number }): Promise<CatchUp> {
  const started = performance.now();
  const pending = new Map(shoes.filter((s) => s.lastEventId).map((s) => [s.shoeId, s.lastEventId!]));
  let lastError: string | null = null;
  for (;;) {
    for (const [shoeId, eventId] of [...pending]) {
      try {
        const a = await client.get<AppliedAnswer>('auditor', AUDITOR_ID, `/projections/applied/${encodeURIComponent(eventId)}`);
        if (a?.applied === true) pending.delete(shoeId);
        else break; // the projector applies in order: poll this one again before the next
      } catch (e) {
        lastError = e instanceof LedgerHttpError ? `${e.status} ${e.code}` : String(e);
        break;
      }
    }
    const elapsedMs = Math.round(performance.now() - started);
    if (pending.size === 0) return { caughtUp: true, pending: [], elapsedMs, lastError };
    if (elapsedMs >= options.timeoutMs) return { caughtUp: false, pending: [...pending.keys()], elapsedMs, lastError };
    await sleep(options.pollMs ?? 250);
  }
}

/** One settlement as `GET /settlements` answers it. */
export interface SettlementItem {
  betId: string;
  shoeId: string;
  roundId: string;
  tableId: string;
  accountId: string;
  betCode: string;
  currency: string;
  stake: string;
  payout: string;
  net: string;
  result: string | null;
  status: string;
  revision: number;
  paytableRef: string | null;
}

/** A line of the settlements output: one per bet, amounts in minor units as strings. */
export interface SettlementLine {
  betId: string;
  shoeId: string;
  roundId: string;
  accountId: string;
  betCode: string;
  currency: string;
  stake: string;
  payout: string;
  net: string;
  result: string | null;
  status: string;
  revision: number;
}

/** Every settlement of a shoe, page by page (`limit=1000`, `cursor`). */
export async function* settlementsOf(client: LedgerClient, shoeId: string): AsyncGenerator<SettlementItem> {
  let cursor: string | null = null;
  do {
    const q = `/settlements?shoeId=${encodeURIComponent(shoeId)}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page: { items: SettlementItem[]; nextCursor: string | null } = await client.get('auditor', AUDITOR_ID, q);
    for (const item of page.items ?? []) yield item;
    cursor = page.nextCursor ?? null;
  } while (cursor);
}

/** The output line of one settlement. */
export function settlementLineOf(i: SettlementItem): SettlementLine {
  return {
    betId: i.betId,
    shoeId: i.shoeId,
    roundId: i.roundId,
    accountId: i.accountId,
    betCode: i.betCode,
    currency: i.currency,
    stake: i.stake,
    payout: i.payout,
    net: i.net,
    result: i.result,
    status: i.status,
    revision: i.revision,
  };
}

/**
 * Writes the settlements of the shoes, in shoe order, as JSONL (one line per bet, see
 * {@link SettlementLine}).
 * @returns the number of lines written
 * @throws LedgerHttpError when the settlements endpoint refuses
 */
export async function writeSettlements(client: LedgerClient, shoeIds: readonly string[], outFile: string): Promise<number> {
  const out = createWriteStream(outFile);
  let n = 0;
  try {
    for (const shoeId of shoeIds) {
      for await (const item of settlementsOf(client, shoeId)) {
        if (!out.write(JSON.stringify(settlementLineOf(item)) + '\n')) await once(out, 'drain');
        n++;
      }
    }
  } finally {
    out.end();
    await once(out, 'finish');
  }
  return n;
}
