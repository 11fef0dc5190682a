import { Inject, Injectable } from '@nestjs/common';
import type { ReadModel } from '@ledger/read-model';
import { ApiError } from '../kernel/api-error';
import { camel } from '../kernel/camel';
import { decodeCursor, keysetPage, type Page } from '../kernel/pagination';
import { isIsoTime } from '../kernel/query.dto';
import { READ_MODEL } from '../kernel/tokens';
import { dealtCards } from './dealt-cards';

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
 * The reads the console's pages are built on, over the projections (`shoe_state`, `hand_outcomes`,
 * `roads`, through the read model, `READ_MODEL`): the tables page, the shoes, a shoe's rounds, in
 * camelCase keyset pages.
 */
@Injectable()
export class ConsoleReadsService {
  constructor(@Inject(READ_MODEL) private readonly readModel: ReadModel) {}

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
    const page = keysetPage(rows, f.limit, (r) => [r.cursor_at, r.shoe_id]);
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
    const page = keysetPage(rows, f.limit, (r) => r.hand_number);
    return {
      nextCursor: page.nextCursor,
      items: page.items.map((r) => {
        const { shoeId: _s, tableId: _t, currency: _c, paytableRef: _p, bettingClosed: _b, resultEventId: _r, voidEventId: _v, cards, ...rest } = r;
        return { ...rest, cards: dealtCards(cards as string[]) };
      }),
    };
  }
}
