import { first, rows, tablesIn, type Queryable } from '../sql';
import { SHOE_STATE_TABLE, type ShoeStateRow } from './tables';

/**
 * The shoe-state read model's queries (docs/architecture.md §7): a shoe's projected state, the shoe
 * list newest first, and each table's latest shoe for the console's tables page.
 */

/** The shoe-state read model's tables (their names are declared in `tables.ts`). */
export const SHOE_STATE_TABLES = { shoes: SHOE_STATE_TABLE } as const;

/** A shoe in a list (`ShoeSummary` before camelCase). */
export type ShoeSummaryRow = Pick<ShoeStateRow, 'shoe_id' | 'table_id' | 'variant' | 'status' | 'hand_number' | 'cards_remaining' | 'dealer_id' | 'opened_at' | 'closed_at' | 'voided' | 'rounds_played'>;

/** A shoe of the shoe list with its keyset key: `opened_at` as ISO-8601 UTC text with microseconds. */
export type ShoePageRow = ShoeSummaryRow & { cursor_at: string };

/** Filters of the shoe list (null: no filter). */
export interface ShoePageFilters {
  readonly tableId?: string | null;
  readonly status?: string | null;
  /** Only shoes before this key in the list's order: (`opened_at` ISO time, shoe id), a decoded cursor. */
  readonly before?: readonly [string, string] | null;
  /** Most rows read (a page's limit + 1 tells whether there is a next page). */
  readonly take: number;
}

/** The columns of {@link ShoeSummaryRow}. */
const SHOE_SUMMARY_COLUMNS = `shoe_id, table_id, variant, status, hand_number, cards_remaining, dealer_id, opened_at, closed_at, voided, rounds_played`;

/** The reads of the shoe-state read model on one connection (or pool). */
export class ShoeStateReads {
  private readonly t: { readonly shoes: string };

  /** @param q where to read; @param schema the read-model schema (checked) */
  constructor(
    private readonly q: Queryable,
    schema: string,
  ) {
    this.t = tablesIn(schema, SHOE_STATE_TABLES);
  }

  /** A shoe's projected state; `undefined` when not projected. */
  one(shoeId: string): Promise<ShoeStateRow | undefined> {
    return first<ShoeStateRow>(this.q, `SELECT * FROM ${this.t.shoes} WHERE shoe_id = $1`, [shoeId]);
  }

  /** Whether the shoe is projected. */
  async exists(shoeId: string): Promise<boolean> {
    return (await first<{ one: number }>(this.q, `SELECT 1 AS one FROM ${this.t.shoes} WHERE shoe_id = $1`, [shoeId])) !== undefined;
  }

  /** Shoes newest first (`opened_at` descending, then shoe id descending), by table and status; keyset on (opened_at, shoe_id) with microsecond keys. */
  page(f: ShoePageFilters): Promise<ShoePageRow[]> {
    const [at, id] = f.before ?? [null, null];
    return rows<ShoePageRow>(
      this.q,
      `SELECT ${SHOE_SUMMARY_COLUMNS}, to_char(opened_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
         FROM ${this.t.shoes}
        WHERE ($1::text IS NULL OR table_id = $1) AND ($2::text IS NULL OR status = $2)
          AND ($3::timestamptz IS NULL OR (opened_at, shoe_id) < ($3::timestamptz, $4::text))
        ORDER BY opened_at DESC, shoe_id DESC LIMIT $5`,
      [f.tableId ?? null, f.status ?? null, at, id, f.take],
    );
  }

  /** Each table's latest shoe by `opened_at` (then shoe id), for the tables given (none for a table without a shoe); one statement on `shoe_state_table_idx`. */
  latestOfTables(tableIds: readonly string[]): Promise<ShoeSummaryRow[]> {
    return rows<ShoeSummaryRow>(
      this.q,
      `SELECT s.* FROM unnest($1::text[]) AS t(table_id)
         CROSS JOIN LATERAL (SELECT ${SHOE_SUMMARY_COLUMNS} FROM ${this.t.shoes} x
                              WHERE x.table_id = t.table_id ORDER BY x.opened_at DESC, x.shoe_id DESC LIMIT 1) AS s`,
      [[...tableIds]],
    );
  }
}
