import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import { PgEventStore } from '@ledger/event-store';
import type { LedgerApiEnv } from '@ledger/config';
import { isReconciliationDimension, RECONCILIATION_DIMENSIONS, type ReadModel, type ReconciliationDimension } from '@ledger/read-model';
import { ApiError } from '../kernel/api-error';
import { rows as sqlRows } from '../kernel/sql';
import { DATA_SOURCE, HEAVY_READ_STORE, READ_MODEL } from '../kernel/tokens';
import { AUDIT_DECISION_TYPES } from '@ledger/read-model';
import { anchorVerifySettings, readPublicKeys, streamAnchorStatus, type StreamAnchorStatus } from '@ledger/anchors';
import type { KeyObject } from 'node:crypto';
import { VerifiedHeads } from './verified-heads';
import { decodeCursor, decodeIdCursor, decodePositionCursor, encodeCursor, Page } from '../kernel/pagination';
import { isIsoTime } from '../kernel/query.dto';
import { dealtCards } from './dealt-cards';
import { decisionChains, evidenceView } from './recall-chains';
import { withBetTransaction, withWalletTransactions } from '../kernel/as-of/wallet-transactions';
import { toFigures, type ReconciliationFigures } from '../kernel/as-of/reconciliation-sql';

/** snake_case row → camelCase object (values unchanged; amounts arrive as strings). */
export function camel<T = Record<string, unknown>>(row: object): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v instanceof Date ? v.toISOString() : v;
  return out as T;
}

/** Filters of the event search. Times ISO-8601. */
export interface EventFilters {
  tableId?: string | null;
  shoeId?: string | null;
  roundId?: string | null;
  type?: string | null;
  actorId?: string | null;
  from?: string | null;
  to?: string | null;
  limit: number;
  cursor?: string | null;
}

/** Filters of the settlement list. */
export interface SettlementFilters {
  tableId?: string | null;
  shoeId?: string | null;
  roundId?: string | null;
  accountId?: string | null;
  status?: string | null;
  limit: number;
  cursor?: string | null;
}

// the dimensions of the reconciliation report are the read model's (the only identifiers its SQL takes from a request)
export { isReconciliationDimension, RECONCILIATION_DIMENSIONS, type ReconciliationDimension };

/** Filters of the reconciliation report. Days are gaming days `YYYY-MM-DD`, inclusive. */
export interface ReconciliationFilters {
  groupBy: ReconciliationDimension[];
  tableId?: string | null;
  shoeId?: string | null;
  dealerId?: string | null;
  currency?: string | null;
  fromDay?: string | null;
  toDay?: string | null;
}

/** A reconciliation row (the shape the live read and the as-of core share: {@link ReconciliationFigures}). */
export type ReconciliationRow = ReconciliationFigures;

/** Most of a shoe's rounds the tables page shows (newest first). */
export const OVERVIEW_LAST_RESULTS = 12;

/** A configured table as the overview needs it. */
export interface OverviewTable {
  readonly tableId: string;
  readonly name: string;
  readonly variant: string;
  readonly currency: string;
}

/** Filters of the shoe list (`GET /shoes`). */
export interface ShoeFilters {
  tableId?: string | null;
  status?: string | null;
  limit: number;
  cursor?: string | null;
}

/**
 * Queries over the projections (through the read model, `READ_MODEL`) and the event store, for back
 * office and regulators: this service shapes the read model's rows into the API's answers (camelCase,
 * keyset pages, wallet transaction ids, the chain and anchor status). Amounts are strings of minor
 * units; nothing passes through floating point.
 */
@Injectable()
export class ReadModelService {
  constructor(
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(HEAVY_READ_STORE) private readonly store: PgEventStore,
    private readonly heads: VerifiedHeads,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    const anchors = anchorVerifySettings({
      ANCHOR_FILE: config.get('ANCHOR_FILE', { infer: true }),
      ANCHOR_PUBLIC_KEY_FILE: config.get('ANCHOR_PUBLIC_KEY_FILE', { infer: true }),
      ANCHOR_TOPIC: config.get('ANCHOR_TOPIC', { infer: true }),
      LEDGER_EVENTS_TOPIC: config.get('LEDGER_EVENTS_TOPIC', { infer: true }),
      LEDGER_ID: config.get('LEDGER_ID', { infer: true }),
    });
    this.anchorFile = anchors.anchorFile;
    this.publicKeyFiles = anchors.publicKeyFiles;
  }

  private readonly anchorFile: string;
  private readonly publicKeyFiles: readonly string[];

  /**
   * The anchor status of a shoe's stream ({@link streamAnchorStatus}, docs/anchors.md): the latest
   * signed checkpoint of `ANCHOR_FILE` naming it, checked against `ANCHOR_PUBLIC_KEY_FILE` (read at
   * each call, like the full verification) and the event store's hash at the anchored version.
   */
  async anchorStatus(streamId: string): Promise<StreamAnchorStatus> {
    let keys: Map<string, KeyObject>;
    try {
      keys = readPublicKeys(this.publicKeyFiles);
    } catch {
      keys = new Map();
    }
    return streamAnchorStatus({
      file: this.anchorFile,
      publicKeys: keys,
      streamId,
      hashAt: async (version) => (await this.store.readStream(streamId, version, 1))[0]?.hash ?? null,
    });
  }

  /**
   * Game recall of one round: the round as it stands, every revision (resulted, corrected, voided)
   * with actor, approver and reason, its events in original order, its bets with their
   * settlement history, and the shoe's hash-chain status: verified from the stream's last verified
   * head ({@link VerifiedHeads}; `chain.verifiedFrom` the version it started after, 0 for the whole
   * stream; `chain.headVersion` where it ended). docs/guarantees.md §8 says what that proves.
   * @throws ApiError 404 `ROUND.NOT_FOUND`
   */
  async recall(shoeId: string, roundId: string) {
    const rm = this.readModel;
    const round = await rm.outcomes.round(shoeId, roundId);
    if (!round) throw new ApiError('ROUND.NOT_FOUND', `no round ${roundId} in shoe ${shoeId} (or not projected yet)`);
    const revisions = await rm.outcomes.revisions(roundId);
    const events = await rm.audit.ofRound(shoeId, roundId);
    const bets = await rm.settlements.ofRound(roundId);
    const betRevisions = await rm.settlements.historyOfRound(roundId);
    const chain = await this.heads.verify(this.store, `shoe-${shoeId}`);
    const anchor = await this.anchorStatus(`shoe-${shoeId}`);
    const byBet = new Map<string, unknown[]>();
    for (const r of betRevisions) byBet.set(r.bet_id, [...(byBet.get(r.bet_id) ?? []), camel(r)]);
    return {
      round: camel(round),
      revisions: revisions.map((r) => camel(r)),
      events: events.map((e) => ({ ...camel(e), evidence: evidenceView(evidenceOf(e.data)) })),
      decisions: decisionChains(events),
      bets: bets.map((b) => ({
        ...withBetTransaction(camel(b)),
        history: withWalletTransactions(b.bet_id, b.stake, (byBet.get(b.bet_id) ?? []) as { kind: string; revision: number; payout: string | null }[]),
      })),
      chain: { ok: chain.ok, eventsChecked: chain.eventsChecked, problems: chain.problems, verifiedFrom: chain.verifiedFrom, headVersion: chain.head.version },
      anchor,
    };
  }

  /** Events by table, shoe, round, type, actor and time range, in global order; keyset pagination. */
  async events(f: EventFilters): Promise<Page<Record<string, unknown>>> {
    const rows = await this.readModel.audit.page({ ...f, afterPosition: decodePositionCursor(f.cursor), take: f.limit + 1 });
    return this.page(rows, f.limit, (r) => r.global_position);
  }

  /**
   * Management decisions and automatic voids: round voids, result corrections, shoe voids,
   * commencement corrections ({@link AUDIT_DECISION_TYPES}), in global order; keyset pagination.
   */
  async decisions(f: EventFilters): Promise<Page<Record<string, unknown>>> {
    const types: readonly string[] = AUDIT_DECISION_TYPES;
    if (f.type && !types.includes(f.type)) return { items: [], nextCursor: null };
    if (f.type) return this.events(f);
    const rows = await this.readModel.audit.decisions({ ...f, afterPosition: decodePositionCursor(f.cursor), take: f.limit + 1 });
    return this.page(rows, f.limit, (r) => r.global_position);
  }

  /** Settlements by table, shoe, round, account or status, ordered by bet id; keyset pagination. */
  async settlements(f: SettlementFilters): Promise<Page<Record<string, unknown>>> {
    const rows = await this.readModel.settlements.page({ ...f, afterBetId: decodeIdCursor(f.cursor), take: f.limit + 1 });
    const page = this.page(rows, f.limit, (r) => r.bet_id);
    return { ...page, items: page.items.map(withBetTransaction) };
  }

  /** One bet with its whole settlement history. @throws ApiError 404 `BET.NOT_FOUND` */
  async settlement(betId: string) {
    const bet = await this.readModel.settlements.one(betId);
    if (!bet) throw new ApiError('BET.NOT_FOUND', `no bet ${betId} (or not projected yet)`);
    const history = await this.readModel.settlements.history(betId);
    return {
      ...withBetTransaction(camel(bet)),
      history: withWalletTransactions(
        betId,
        bet.stake,
        history.map((h) => camel<{ kind: string; revision: number; payout: string | null }>(h)),
      ),
    };
  }

  /**
   * The reconciliation report grouped by any of table, shoe, dealer, day, currency (docs/domain-rules.md §4): turnover,
   * payouts, GGR = turnover − payouts, hold, with voided stakes and correction deltas apart.
   */
  async reconciliation(f: ReconciliationFilters): Promise<ReconciliationRow[]> {
    for (const d of f.groupBy) {
      if (!RECONCILIATION_DIMENSIONS.has(d)) throw new ApiError('VALIDATION.FAILED', 'groupBy: unknown dimension', { groupBy: String(d).slice(0, 64) });
    }
    // live: the sum of every position-stamped entry (`ledger_entries`); as known at a position: the same query bounded (docs/reports.md §3)
    return (await this.readModel.reconciliation.live(f)).map(toFigures);
  }

  /** The roads of a shoe (schema `RoadsResponse`). @throws ApiError 404 `SHOE.NOT_FOUND` */
  async roads(shoeId: string) {
    const row = await this.readModel.roads.ofShoe(shoeId);
    if (!row) throw new ApiError('SHOE.NOT_FOUND', `no roads for shoe ${shoeId} (or not projected yet)`);
    // the big road as its type (libs/projections/src/roads/roads.ts `BigRoad`): the table holds its columns and leading ties apart
    return { ...camel(row), bigRoad: { leadingTies: row.leading_ties, columns: row.big_road } };
  }

  /** The projected state of a shoe. @throws ApiError 404 `SHOE.NOT_FOUND` */
  async shoeState(shoeId: string) {
    const row = await this.readModel.shoes.one(shoeId);
    if (!row) throw new ApiError('SHOE.NOT_FOUND', `no shoe ${shoeId} (or not projected yet)`);
    return camel(row);
  }

  /**
   * The console's tables page in one read (schema `TablesOverviewResponse`): for each configured
   * table (in the order of `config/tables.json`), its latest shoe by `opened_at` (null before the
   * first), that shoe's last {@link OVERVIEW_LAST_RESULTS} rounds newest first, and its bead plate and
   * big road (from `roads`; empty / null until its first round is resulted and projected). Three
   * statements whatever the number of tables, each on an index (`shoe_state_table_idx`,
   * `hand_outcomes_shoe_hand_idx`, the roads' key).
   */
  async tablesOverview(tables: readonly OverviewTable[]) {
    const shoes = await this.readModel.shoes.latestOfTables(tables.map((t) => t.tableId));
    const shoeIds = shoes.map((s) => s.shoe_id);
    const rounds = shoeIds.length ? await this.readModel.outcomes.lastOfShoes(shoeIds, OVERVIEW_LAST_RESULTS) : [];
    const roads = shoeIds.length ? await this.readModel.roads.summaries(shoeIds) : [];
    const shoeOf = new Map(shoes.map((s) => [s.table_id, camel<Record<string, unknown>>(s)]));
    const roadsOf = new Map(roads.map((r) => [r.shoe_id, r]));
    const roundsOf = new Map<string, Record<string, unknown>[]>();
    for (const r of rounds) {
      const { shoe_id, ...rest } = r;
      roundsOf.set(shoe_id, [...(roundsOf.get(shoe_id) ?? []), camel(rest)]);
    }
    return {
      tables: tables.map((t) => {
        const shoe = shoeOf.get(t.tableId) ?? null;
        const id = shoe ? (shoe.shoeId as string) : null;
        const road = id ? roadsOf.get(id) : undefined;
        return {
          tableId: t.tableId,
          name: t.name,
          variant: t.variant,
          currency: t.currency,
          shoe,
          lastResults: id ? (roundsOf.get(id) ?? []) : [],
          beadPlate: road ? road.bead_plate : [],
          bigRoad: road ? { leadingTies: road.leading_ties, columns: road.big_road } : null,
        };
      }),
    };
  }

  /**
   * Shoes newest first (`opened_at` descending, then shoe id), by table and status; keyset
   * pagination on (opened_at, shoe_id) with microsecond keys (schema `ShoesPage`).
   * @throws ApiError 400 `VALIDATION.FAILED` for a cursor this API did not write
   */
  async shoes(f: ShoeFilters): Promise<Page<Record<string, unknown>>> {
    const key = decodeCursor<unknown>(f.cursor);
    if (key !== null && !(Array.isArray(key) && key.length === 2 && isIsoTime(key[0]) && typeof key[1] === 'string' && /^[A-Za-z0-9_.:@-]{1,128}$/.test(key[1]))) {
      throw new ApiError('VALIDATION.FAILED', 'cursor is not one this API returned');
    }
    const rows = await this.readModel.shoes.page({ tableId: f.tableId, status: f.status, before: key as [string, string] | null, take: f.limit + 1 });
    const page = this.page(rows, f.limit, (r) => [r.cursor_at, r.shoe_id]);
    for (const item of page.items) delete item.cursorAt;
    return page;
  }

  /**
   * A shoe's rounds by hand number ascending, from `hand_outcomes` (schema `RoundsPage`): each
   * with its outcome in force, its cards with their tableau positions ({@link dealtCards}) and
   * revision; keyset pagination on the hand number.
   * @throws ApiError 404 `SHOE.NOT_FOUND` for a shoe not projected; 400 `VALIDATION.FAILED` for a foreign cursor
   */
  async rounds(shoeId: string, f: { limit: number; cursor?: string | null }): Promise<Page<Record<string, unknown>>> {
    const key = decodeCursor<unknown>(f.cursor);
    if (key !== null && !(typeof key === 'number' && Number.isSafeInteger(key) && key >= 0 && key <= 2_147_483_647)) {
      throw new ApiError('VALIDATION.FAILED', 'cursor is not one this API returned');
    }
    if (!(await this.readModel.shoes.exists(shoeId))) throw new ApiError('SHOE.NOT_FOUND', `no shoe ${shoeId} (or not projected yet)`, { shoeId });
    const rows = await this.readModel.outcomes.ofShoe(shoeId, key as number | null, f.limit + 1);
    const page = this.page(rows, f.limit, (r) => r.hand_number);
    return {
      nextCursor: page.nextCursor,
      items: page.items.map((r) => {
        const { shoeId: _s, tableId: _t, currency: _c, paytableRef: _p, bettingClosed: _b, resultEventId: _r, voidEventId: _v, cards, ...rest } = r;
        return { ...rest, cards: dealtCards(cards as string[]) };
      }),
    };
  }

  /** Who looked at what: the query log (the API's own table), newest last; keyset pagination. */
  async accessLog(f: { actorId?: string | null; from?: string | null; to?: string | null; limit: number; cursor?: string | null }) {
    const rows = await sqlRows<AccessLogRow>(
      this.ds,
      `SELECT id::text AS id, at, actor_id, actor_role, route, params, result_count, status, correlation_id FROM query_log
        WHERE ($1::text IS NULL OR actor_id = $1) AND ($2::timestamptz IS NULL OR at >= $2) AND ($3::timestamptz IS NULL OR at < $3)
          AND ($4::bigint IS NULL OR id > $4)
        ORDER BY query_log.id LIMIT $5`,
      [f.actorId ?? null, f.from ?? null, f.to ?? null, decodePositionCursor(f.cursor), f.limit + 1],
    );
    return this.page(rows, f.limit, (r) => r.id);
  }

  private page<R extends Record<string, unknown>>(rows: R[], limit: number, key: (r: R) => unknown): Page<Record<string, unknown>> {
    const more = rows.length > limit;
    const items = rows.slice(0, limit);
    return { items: items.map((r) => camel(r)), nextCursor: more ? encodeCursor(key(items[items.length - 1])) : null };
  }
}

/** A row of `query_log` as the access log answers it (before camelCase). */
type AccessLogRow = {
  id: string;
  at: Date;
  actor_id: string;
  actor_role: string;
  route: string;
  params: Record<string, unknown>;
  result_count: number | null;
  status: number;
  correlation_id: string | null;
};

/** The evidence an event's data carries: its own, or its decision's. */
function evidenceOf(data: Record<string, unknown> | null | undefined): unknown {
  const d = data as { evidence?: unknown; decision?: { evidence?: unknown } | null } | null | undefined;
  return d?.evidence ?? d?.decision?.evidence;
}
