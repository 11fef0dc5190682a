import { Fragment, useState, type ReactNode } from 'react';
import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type Row, type RowData, type SortingFn, type SortingState } from '@tanstack/react-table';

declare module '@tanstack/react-table' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the generics are TanStack's
  interface ColumnMeta<TData extends RowData, TValue> {
    /** Right-aligned tabular figures (amounts, counts), never wrapped. */
    numeric?: boolean;
    /** Extra class of the column's header and cells (e.g. `apart`, `nowrap`). */
    className?: string;
  }
}

/**
 * Sorts columns of integer strings (minor units, counts, global positions) by their value with
 * BigInt, not as text (`"-10"` < `"9"` < `"10"`); empty values sort first.
 */
export const bigintSorting: SortingFn<unknown> = (a, b, id) => {
  const x = a.getValue<string | null | undefined>(id);
  const y = b.getValue<string | null | undefined>(id);
  if (x === y) return 0;
  if (x === null || x === undefined || x === '') return -1;
  if (y === null || y === undefined || y === '') return 1;
  const bx = BigInt(x);
  const by = BigInt(y);
  return bx < by ? -1 : bx > by ? 1 : 0;
};

function cellClass(meta: { numeric?: boolean; className?: string } | undefined): string | undefined {
  const c = [meta?.numeric ? 'num' : '', meta?.className ?? ''].filter(Boolean).join(' ');
  return c || undefined;
}

/** Props of {@link DataTable}. */
export interface DataTableProps<T> {
  readonly data: readonly T[];
  readonly columns: ColumnDef<T, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- TanStack's column value types vary per column
  /** The table's accessible name, shown as its caption. */
  readonly caption: string;
  /** Hide the caption visually (still read by screen readers). */
  readonly captionHidden?: boolean;
  /** A stable id per row (React keys, expansion state). */
  readonly getRowId: (row: T, index: number) => string;
  /** Rows for a `<tfoot>` (totals), rendered as given. */
  readonly footer?: ReactNode;
  /** Detail under a row (a `<td colSpan>` of the whole width) while it is expanded; toggled with `toggleRow`. */
  readonly renderDetail?: (row: T) => ReactNode;
  /** Ids of expanded rows (controlled by the page, which renders the toggle button in a cell). */
  readonly expanded?: ReadonlySet<string>;
  /** Allow sorting by clicking headers (default true). */
  readonly sortable?: boolean;
  readonly testId?: string;
}

/**
 * A small TanStack Table v8 wrapper for the console's tables: a `<table class="data">` inside a
 * horizontally scrolling `.scroll` region (readable at 768 px), a caption naming it, sortable
 * headers as real `<button>`s (keyboard: Tab + Enter/Space) with `aria-sort` on the `<th>`, numeric
 * columns right-aligned (`meta.numeric`), an optional totals `<tfoot>` and an optional detail row
 * under an expanded row. Client-side sorting only sorts the rows on the page; the figures are the
 * API's as given.
 */
export function DataTable<T>({ data, columns, caption, captionHidden, getRowId, footer, renderDetail, expanded, sortable = true, testId }: DataTableProps<T>) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const table = useReactTable<T>({
    data: data as T[],
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    enableSorting: sortable,
    getRowId,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
  });
  const width = table.getVisibleLeafColumns().length;
  return (
    <div className="scroll" role="region" aria-label={caption} tabIndex={0}>
      <table className="data" data-testid={testId}>
        <caption className={captionHidden ? 'sr-only' : 'caption'}>{caption}</caption>
        <thead>
          {table.getHeaderGroups().map((hg) => (
            <tr key={hg.id}>
              {hg.headers.map((h) => {
                const sorted = h.column.getIsSorted();
                const label = h.isPlaceholder ? null : flexRender(h.column.columnDef.header, h.getContext());
                return (
                  <th
                    key={h.id}
                    scope="col"
                    colSpan={h.colSpan}
                    className={cellClass(h.column.columnDef.meta)}
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : h.column.getCanSort() ? 'none' : undefined}
                  >
                    {h.column.getCanSort() && !h.isPlaceholder ? (
                      <button type="button" className="sort" onClick={h.column.getToggleSortingHandler()}>
                        {label}
                        <span aria-hidden="true" className="sort-mark">
                          {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ' ↕'}
                        </span>
                      </button>
                    ) : (
                      label
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row: Row<T>) => (
            <Fragment key={row.id}>
              <tr>
                {row.getVisibleCells().map((c) => (
                  <td key={c.id} className={cellClass(c.column.columnDef.meta)}>
                    {flexRender(c.column.columnDef.cell, c.getContext())}
                  </td>
                ))}
              </tr>
              {renderDetail && expanded?.has(row.id) ? (
                <tr className="detail">
                  <td colSpan={width}>{renderDetail(row.original)}</td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
        {footer ? <tfoot>{footer}</tfoot> : null}
      </table>
    </div>
  );
}
