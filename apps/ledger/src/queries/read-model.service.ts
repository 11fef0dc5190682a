import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import { PgEventStore } from '@ledger/event-store';
import type { LedgerApiEnv } from '@ledger/config';
import { ApiError } from '../kernel/api-error';
import { DATA_SOURCE, EVENT_STORE, HEAVY_READ_STORE } from '../kernel/tokens';
import { AUDIT_DECISION_TYPES } from '@ledger/read-model';
import { anchorVerifySettings, readPublicKeys, streamAnchorStatus, type StreamAnchorStatus } from '@ledger/anchors';
import type { KeyObject } from 'node:crypto';
import { VerifiedHeads } from './verified-heads';
import { decodeCursor, decodeIdCursor, decodePositionCursor, encodeCursor, Page } from '../kernel/pagination';
import { isIsoTime } from '../kernel/query.dto';
import { dealtCards } from './dealt-cards';
import { decisionChains, evidenceView } from './recall-chains';
import { withBetTransaction, withWalletTransactions } from '../kernel/as-of/wallet-transactions';
import { reconciliationFigures, type ReconciliationFigures } from '../kernel/as-of/reconciliation-sql';


/** snake_case row → camelCase object (values unchanged; amounts arrive as strings). */
export function camel<T = Record<string, unknown>>(row: Record<string, unknown>): T {
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

/** A dimension the reconciliation report can group by. */
export type ReconciliationDimension = 'table' | 'shoe' | 'dealer' | 'day' | 'currency';

/**
 * The column of each reconciliation dimension: the only identifiers the report puts into its SQL,
 * looked up in a `Map` (an object lookup let `constructor` through as the text of JavaScript's
 * `Object` function, which then reached the SQL).
 */
export const RECONCILIATION_DIMENSIONS: ReadonlyMap<ReconciliationDimension, string> = new Map([
  ['table', 'table_id'],
  ['shoe', 'shoe_id'],
  ['dealer', 'dealer_id'],
  ['day', 'gaming_day'],
  ['currency', 'currency'],
]);

/** Whether `name` is a {@link ReconciliationDimension} (a `Map` lookup, never an object index). */
export function isReconciliationDimension(name: string): name is ReconciliationDimension {
  return RECONCILIATION_DIMENSIONS.has(name as ReconciliationDimension);
}

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

export const SETTLEMENT_COLUMNS = `bet_id, shoe_id, round_id, table_id, dealer_id, gaming_day::text AS gaming_day, account_id, bet_code, currency,
  stake::text AS stake, status, result, winnings::text AS winnings, payout::text AS payout, net::text AS net, dropped, paytable_ref,
  revision, refunded_stake::text AS refunded_stake, placed_at, settled_at, refunded_at`;

/** The columns of a shoe in a list (`ShoeSummary`), from `shoe_state`. */
const SHOE_SUMMARY_COLUMNS = `shoe_id, table_id, variant, status, hand_number, cards_remaining, dealer_id, opened_at, closed_at, voided, rounds_played`;

/** The columns of a round in the tables page (`RoundSummary`), from `hand_outcomes`. */
const ROUND_SUMMARY_COLUMNS = `round_id, hand_number, status, winner, player_total, banker_total, player_pair, banker_pair, is_natural`;

/** Every column of `hand_outcomes`, the gaming day as `YYYY-MM-DD` (not a JavaScript Date at local midnight). */
export const ROUND_COLUMNS = `round_id, shoe_id, table_id, hand_number, dealer_id, dealing_dealer_id, gaming_day::text AS gaming_day, currency, paytable_ref, opened_at,
  status, betting_closed, cards, unneeded_cards, player_cards, banker_cards, player_total, banker_total, winner, is_natural, player_pair, banker_pair,
  last_hand, current_revision, result_event_id, resulted_at, corrected_at, void_cause, voided_at, void_event_id`;

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
 * Queries over the projections (schema `read`) and the event store, for back office and
 * regulators. Amounts are strings of minor units; nothing passes through floating point.
 */
@Injectable()
export class ReadModelService {
  /** Read-model schema the API reads: `PROJECTIONS_SCHEMA` (as the projector; validated at start). */
  private readonly S: string;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(HEAVY_READ_STORE) private readonly store: PgEventStore,
    private readonly heads: VerifiedHeads,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.S = config.get('PROJECTIONS_SCHEMA', { infer: true });
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
    const [round] = await this.ds.query(`SELECT ${ROUND_COLUMNS} FROM ${this.S}.hand_outcomes WHERE shoe_id = $1 AND round_id = $2`, [shoeId, roundId]);
    if (!round) throw new ApiError('ROUND.NOT_FOUND', `no round ${roundId} in shoe ${shoeId} (or not projected yet)`);
    const revisions = await this.ds.query(`SELECT * FROM ${this.S}.hand_outcome_revisions WHERE round_id = $1 ORDER BY revision`, [roundId]);
    const events = await this.ds.query(
      `SELECT global_position::text AS global_position, event_id, stream_version, type, actor_id, actor_role, occurred_at, recorded_at,
              correlation_id, causation_id, reason, acting_manager_id, approver_id, compensates, hash, prev_hash, data
         FROM ${this.S}.audit_events
        WHERE global_position IN (
              -- each part reads an index of libs/read-model/src/migrations/1797020000000-audit-keyset-indexes.ts
              -- (a shoe of 10,000-bet rounds holds ~10^6 rows: never walk all of them)
              SELECT r.global_position FROM ${this.S}.audit_events r WHERE r.round_id = $2 AND r.shoe_id = $1
              UNION SELECT v.global_position FROM ${this.S}.audit_events v WHERE v.type IN ('ShoeVoided', 'ShoeClosed') AND v.shoe_id = $1
              -- the four-eyes chain of every decision that concerns the round (docs/domain-rules.md §6)
              UNION SELECT c.global_position FROM ${this.S}.audit_events c
               WHERE c.type IN ('DecisionRequested', 'DecisionApproved', 'DecisionRejected', 'DecisionExpired') AND c.shoe_id = $1
                 AND c.data ->> 'decisionId' IN (
                    SELECT d.data ->> 'decisionId' FROM ${this.S}.audit_events d
                     WHERE d.type = 'DecisionRequested' AND d.shoe_id = $1
                       AND (d.data -> 'roundIds' ? $2 OR d.data -> 'proposal' ->> 'roundId' = $2)))
        ORDER BY stream_version`,
      [shoeId, roundId],
    );
    const bets = await this.ds.query(`SELECT ${SETTLEMENT_COLUMNS} FROM ${this.S}.bet_settlements WHERE round_id = $1 ORDER BY bet_id`, [roundId]);
    const betRevisions = await this.ds.query(
      `SELECT bet_id, seq, kind, revision, result, stake::text AS stake, winnings::text AS winnings, payout::text AS payout, net::text AS net,
              dropped, paytable_ref, compensates, event_id, actor_id, actor_role, reason, approver_id, occurred_at
         FROM ${this.S}.bet_settlement_revisions WHERE round_id = $1 ORDER BY bet_id, seq`,
      [roundId],
    );
    const chain = await this.heads.verify(this.store, `shoe-${shoeId}`);
    const anchor = await this.anchorStatus(`shoe-${shoeId}`);
    const byBet = new Map<string, unknown[]>();
    for (const r of betRevisions) byBet.set(r.bet_id, [...(byBet.get(r.bet_id) ?? []), camel(r)]);
    return {
      round: camel(round),
      revisions: revisions.map((r: Record<string, unknown>) => camel(r)),
      events: events.map((e: Record<string, any>) => ({ ...camel(e), evidence: evidenceView(e.data?.evidence ?? e.data?.decision?.evidence) })),
      decisions: decisionChains(events),
      bets: bets.map((b: Record<string, unknown>) => ({
        ...withBetTransaction(camel(b)),
        history: withWalletTransactions(b.bet_id as string, b.stake as string, (byBet.get(b.bet_id as string) ?? []) as { kind: string; revision: number; payout: string | null }[]),
      })),
      chain: { ok: chain.ok, eventsChecked: chain.eventsChecked, problems: chain.problems, verifiedFrom: chain.verifiedFrom, headVersion: chain.head.version },
      anchor,
    };
  }

  /** Events by table, shoe, round, type, actor and time range, in global order; keyset pagination. */
  async events(f: EventFilters): Promise<Page<Record<string, unknown>>> {
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (sql: string, v: unknown) => {
      if (v === null || v === undefined) return;
      args.push(v);
      where.push(sql.replace('?', `$${args.length}`));
    };
    add('table_id = ?', f.tableId);
    add('shoe_id = ?', f.shoeId);
    add('round_id = ?', f.roundId);
    add('type = ?', f.type);
    add('actor_id = ?', f.actorId);
    add('occurred_at >= ?', f.from);
    add('occurred_at < ?', f.to);
    add('global_position > ?', decodePositionCursor(f.cursor));
    args.push(f.limit + 1);
    const rows = await this.ds.query(
      `SELECT global_position::text AS global_position, event_id, stream_id, stream_version, table_id, shoe_id, round_id, bet_id, type, schema_version,
              actor_id, actor_role, occurred_at, recorded_at, correlation_id, causation_id, reason, acting_manager_id, approver_id, compensates, hash, data
         FROM ${this.S}.audit_events AS audit_events ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
        ORDER BY audit_events.global_position LIMIT $${args.length}`,
      args,
    );
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
    // The type list is spelled out in the SQL (constants, not input): PostgreSQL can then prove the
    // partial index of these types (libs/read-model/src/migrations/1797020000000-audit-keyset-indexes.ts)
    // holds every row asked for, and reads the page from it in keyset order.
    const pages = await this.ds.query(
      `SELECT global_position::text AS global_position, event_id, table_id, shoe_id, round_id, type, actor_id, actor_role, occurred_at, recorded_at,
              reason, acting_manager_id, approver_id, compensates, data
         FROM ${this.S}.audit_events AS audit_events
        WHERE type IN (${types.map((t) => `'${t}'`).join(', ')}) AND ($1::text IS NULL OR table_id = $1) AND ($2::text IS NULL OR shoe_id = $2)
          AND ($3::timestamptz IS NULL OR occurred_at >= $3) AND ($4::timestamptz IS NULL OR occurred_at < $4)
          AND ($5::bigint IS NULL OR global_position > $5) AND ($6::text IS NULL OR actor_id = $6)
        ORDER BY audit_events.global_position LIMIT $7`,
      [f.tableId ?? null, f.shoeId ?? null, f.from ?? null, f.to ?? null, decodePositionCursor(f.cursor), f.actorId ?? null, f.limit + 1],
    );
    return this.page(pages, f.limit, (r) => r.global_position);
  }

  /** Settlements by table, shoe, round, account or status, ordered by bet id; keyset pagination. */
  async settlements(f: SettlementFilters): Promise<Page<Record<string, unknown>>> {
    const rows = await this.ds.query(
      `SELECT ${SETTLEMENT_COLUMNS} FROM ${this.S}.bet_settlements
        WHERE ($1::text IS NULL OR table_id = $1) AND ($2::text IS NULL OR shoe_id = $2) AND ($3::text IS NULL OR round_id = $3)
          AND ($4::text IS NULL OR account_id = $4) AND ($5::text IS NULL OR status = $5) AND ($6::text IS NULL OR bet_id > $6)
        ORDER BY bet_id LIMIT $7`,
      [f.tableId ?? null, f.shoeId ?? null, f.roundId ?? null, f.accountId ?? null, f.status ?? null, decodeIdCursor(f.cursor), f.limit + 1],
    );
    const page = this.page(rows, f.limit, (r) => r.bet_id);
    return { ...page, items: page.items.map(withBetTransaction) };
  }

  /** One bet with its whole settlement history. @throws ApiError 404 `BET.NOT_FOUND` */
  async settlement(betId: string) {
    const [bet] = await this.ds.query(`SELECT ${SETTLEMENT_COLUMNS} FROM ${this.S}.bet_settlements WHERE bet_id = $1`, [betId]);
    if (!bet) throw new ApiError('BET.NOT_FOUND', `no bet ${betId} (or not projected yet)`);
    const history = await this.ds.query(
      `SELECT seq, kind, revision, result, stake::text AS stake, winnings::text AS winnings, payout::text AS payout, net::text AS net, dropped,
              paytable_ref, compensates, event_id, actor_id, actor_role, reason, approver_id, occurred_at
         FROM ${this.S}.bet_settlement_revisions WHERE bet_id = $1 ORDER BY seq`,
      [betId],
    );
    return { ...withBetTransaction(camel(bet)), history: withWalletTransactions(betId, bet.stake, history.map((h: Record<string, unknown>) => camel<{ kind: string; revision: number; payout: string | null }>(h))) };
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
    return reconciliationFigures(this.ds, this.S, f, null);
  }

  /** The roads of a shoe (schema `RoadsResponse`). @throws ApiError 404 `SHOE.NOT_FOUND` */
  async roads(shoeId: string) {
    const [row] = await this.ds.query(`SELECT * FROM ${this.S}.roads WHERE shoe_id = $1`, [shoeId]);
    if (!row) throw new ApiError('SHOE.NOT_FOUND', `no roads for shoe ${shoeId} (or not projected yet)`);
    // the big road as its type (libs/read-model/src/roads/roads.ts `BigRoad`): the table holds its columns and leading ties apart
    return { ...camel(row), bigRoad: { leadingTies: row.leading_ties, columns: row.big_road } };
  }

  /** The projected state of a shoe. @throws ApiError 404 `SHOE.NOT_FOUND` */
  async shoeState(shoeId: string) {
    const [row] = await this.ds.query(`SELECT * FROM ${this.S}.shoe_state WHERE shoe_id = $1`, [shoeId]);
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
    const ids = tables.map((t) => t.tableId);
    const shoes: Record<string, unknown>[] = await this.ds.query(
      `SELECT s.* FROM unnest($1::text[]) AS t(table_id)
         CROSS JOIN LATERAL (SELECT ${SHOE_SUMMARY_COLUMNS} FROM ${this.S}.shoe_state x
                              WHERE x.table_id = t.table_id ORDER BY x.opened_at DESC, x.shoe_id DESC LIMIT 1) AS s`,
      [ids],
    );
    const shoeIds = shoes.map((s) => s.shoe_id as string);
    const rounds: Record<string, unknown>[] = shoeIds.length
      ? await this.ds.query(
          `SELECT h.* FROM unnest($1::text[]) AS s(shoe_id)
             CROSS JOIN LATERAL (SELECT x.shoe_id, ${ROUND_SUMMARY_COLUMNS.split(', ').map((c) => `x.${c}`).join(', ')} FROM ${this.S}.hand_outcomes x
                                  WHERE x.shoe_id = s.shoe_id ORDER BY x.hand_number DESC LIMIT ${OVERVIEW_LAST_RESULTS}) AS h`,
          [shoeIds],
        )
      : [];
    const roads: Record<string, unknown>[] = shoeIds.length
      ? await this.ds.query(`SELECT shoe_id, leading_ties, bead_plate, big_road FROM ${this.S}.roads WHERE shoe_id = ANY($1::text[])`, [shoeIds])
      : [];
    const shoeOf = new Map(shoes.map((s) => [s.table_id as string, camel<Record<string, unknown>>(s)]));
    const roadsOf = new Map(roads.map((r) => [r.shoe_id as string, r]));
    const roundsOf = new Map<string, Record<string, unknown>[]>();
    for (const r of rounds) {
      const { shoe_id, ...rest } = r;
      roundsOf.set(shoe_id as string, [...(roundsOf.get(shoe_id as string) ?? []), camel(rest)]);
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
    const [at, id] = (key as [string, string] | null) ?? [null, null];
    const rows = await this.ds.query(
      `SELECT ${SHOE_SUMMARY_COLUMNS}, to_char(opened_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
         FROM ${this.S}.shoe_state
        WHERE ($1::text IS NULL OR table_id = $1) AND ($2::text IS NULL OR status = $2)
          AND ($3::timestamptz IS NULL OR (opened_at, shoe_id) < ($3::timestamptz, $4::text))
        ORDER BY opened_at DESC, shoe_id DESC LIMIT $5`,
      [f.tableId ?? null, f.status ?? null, at, id, f.limit + 1],
    );
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
    const [shoe] = await this.ds.query(`SELECT 1 FROM ${this.S}.shoe_state WHERE shoe_id = $1`, [shoeId]);
    if (!shoe) throw new ApiError('SHOE.NOT_FOUND', `no shoe ${shoeId} (or not projected yet)`, { shoeId });
    const rows = await this.ds.query(
      `SELECT ${ROUND_COLUMNS} FROM ${this.S}.hand_outcomes
        WHERE shoe_id = $1 AND ($2::integer IS NULL OR hand_number > $2) ORDER BY hand_number LIMIT $3`,
      [shoeId, key, f.limit + 1],
    );
    const page = this.page(rows, f.limit, (r) => r.hand_number);
    return {
      nextCursor: page.nextCursor,
      items: page.items.map((r) => {
        const { shoeId: _s, tableId: _t, currency: _c, paytableRef: _p, bettingClosed: _b, resultEventId: _r, voidEventId: _v, cards, ...rest } = r;
        return { ...rest, cards: dealtCards(cards as string[]) };
      }),
    };
  }


  /** Who looked at what: the query log, newest last; keyset pagination. */
  async accessLog(f: { actorId?: string | null; from?: string | null; to?: string | null; limit: number; cursor?: string | null }) {
    const rows = await this.ds.query(
      `SELECT id::text AS id, at, actor_id, actor_role, route, params, result_count, status, correlation_id FROM query_log
        WHERE ($1::text IS NULL OR actor_id = $1) AND ($2::timestamptz IS NULL OR at >= $2) AND ($3::timestamptz IS NULL OR at < $3)
          AND ($4::bigint IS NULL OR id > $4)
        ORDER BY query_log.id LIMIT $5`,
      [f.actorId ?? null, f.from ?? null, f.to ?? null, decodePositionCursor(f.cursor), f.limit + 1],
    );
    return this.page(rows, f.limit, (r) => r.id);
  }

  private page(rows: Record<string, unknown>[], limit: number, key: (r: any) => unknown): Page<Record<string, unknown>> {
    const more = rows.length > limit;
    const items = rows.slice(0, limit);
    return { items: items.map((r) => camel(r)), nextCursor: more ? encodeCursor(key(items[items.length - 1])) : null };
  }
}
