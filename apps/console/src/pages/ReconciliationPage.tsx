import { useMemo, useState, type SubmitEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper, type ColumnDef } from '@tanstack/react-table';
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { fetchFile } from '../api/fetch-file';
import { Empty, ErrorMessage, Loading, QueryState } from '../components/States';
import { bigintSorting, DataTable } from '../components/DataTable';
import { formatMinor, formatRatioPercent } from '../lib/money';
import { dailySeries, DIMENSIONS, parseReportQuery, reportQueryString, type DayPoint, type Dimension, type ReportQuery } from '../lib/report';
import '../components/DataTable.css';

type Row = components['schemas']['ReconciliationRow'];
type Report = components['schemas']['ReconciliationReport'];

/** The API query of a report query (`groupBy` as the comma list the API takes). */
function apiQuery(q: ReportQuery) {
  const { groupBy, ...filters } = q;
  return { groupBy: groupBy.join(','), ...filters };
}

const help = createColumnHelper<Row>();

/** An amount cell: formatted from the exact string with the row's currency (a row always has one here). */
function amount(key: 'turnover' | 'payouts' | 'ggr' | 'voidedStakes' | 'correctionPayoutDelta', header: string, apart = false): ColumnDef<Row, string> {
  return help.accessor(key, {
    header,
    sortingFn: bigintSorting as never,
    meta: { numeric: true, className: apart ? 'apart' : undefined },
    cell: (c) => formatMinor(c.getValue(), c.row.original.currency ?? 'XXX'),
  });
}

function count(key: 'betsSettled' | 'betsRefunded' | 'betsResettled' | 'roundsResulted' | 'roundsVoided' | 'corrections', header: string, apart = false): ColumnDef<Row, string> {
  return help.accessor(key, { header, sortingFn: bigintSorting as never, meta: { numeric: true, className: apart ? 'apart' : undefined }, cell: (c) => c.getValue() });
}

/** The table's columns: the groups asked for, then play, then voids and corrections apart. */
function columnsFor(groupBy: readonly Dimension[]): ColumnDef<Row, any>[] {
  // eslint-disable-line @typescript-eslint/no-explicit-any -- mixed column value types
  const dims = DIMENSIONS.filter((d) => groupBy.includes(d.key)).map((d) =>
    help.accessor((r) => (r as Record<string, unknown>)[d.field] as string | undefined, { id: d.field, header: d.label, meta: { className: d.key === 'day' ? 'nowrap' : 'ids' }, cell: (c) => c.getValue() ?? '–' }),
  );
  return [
    ...(dims.length ? [help.group({ id: 'g-groups', header: 'Group', meta: { className: 'group' }, columns: dims })] : []),
    help.group({
      id: 'g-play',
      header: 'Play',
      meta: { className: 'group' },
      columns: [
        amount('turnover', 'Turnover'),
        amount('payouts', 'Payouts'),
        amount('ggr', 'GGR'),
        help.accessor('hold', {
          header: 'Hold',
          sortingFn: ((a: { original: Row }, b: { original: Row }) => {
            const x = holdMillionths(a.original.hold),
              y = holdMillionths(b.original.hold);
            return x < y ? -1 : x > y ? 1 : 0;
          }) as never,
          meta: { numeric: true },
          cell: (c) => formatRatioPercent(c.getValue()),
        }),
        count('betsSettled', 'Bets settled'),
        count('roundsResulted', 'Rounds resulted'),
      ],
    }),
    help.group({
      id: 'g-apart',
      header: 'Voids and corrections (apart)',
      meta: { className: 'group apart' },
      columns: [
        amount('voidedStakes', 'Voided stakes', true),
        count('betsRefunded', 'Bets refunded', true),
        count('roundsVoided', 'Rounds voided', true),
        amount('correctionPayoutDelta', 'Correction payout delta', true),
        count('betsResettled', 'Bets resettled', true),
        count('corrections', 'Corrections', true),
      ],
    }),
  ];
}

/** The filters form, its fields from the URL's query (keyed by it, so a new query resets them): Apply puts them in the URL, Reset clears it. */
function ReportFilters({ q, tables, setParams }: { q: ReportQuery; tables: readonly { tableId: string }[]; setParams: (next: URLSearchParams) => void }) {
  function apply(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const next: Record<string, unknown> = { groupBy: DIMENSIONS.map((d) => d.key).filter((k) => k === 'currency' || f.getAll('groupBy').includes(k)) };
    for (const k of ['tableId', 'shoeId', 'dealerId', 'currency', 'fromDay', 'toDay']) {
      const v = String(f.get(k) ?? '').trim();
      if (v) next[k] = k === 'currency' ? v.toUpperCase() : v;
    }
    setParams(new URLSearchParams(reportQueryString(next as unknown as ReportQuery)));
  }

  return (
    <form className="filters" onSubmit={apply} aria-label="Report filters">
      <fieldset className="checks">
        <legend>Group by</legend>
        {DIMENSIONS.map((d) => (
          <label key={d.key}>
            <input type="checkbox" name="groupBy" value={d.key} defaultChecked={q.groupBy.includes(d.key)} disabled={d.key === 'currency'} aria-describedby={d.key === 'currency' ? 'currency-always' : undefined} />
            {d.label}
          </label>
        ))}
        <span id="currency-always" className="muted">
          (currency always: amounts of different currencies are never added)
        </span>
      </fieldset>
      <div>
        <label htmlFor="r-table">Table</label>
        <select id="r-table" name="tableId" defaultValue={q.tableId ?? ''}>
          <option value="">every table</option>
          {tables.map((t) => (
            <option key={t.tableId} value={t.tableId}>
              {t.tableId}
            </option>
          ))}
          {q.tableId && !tables.some((t) => t.tableId === q.tableId) ? <option value={q.tableId}>{q.tableId}</option> : null}
        </select>
      </div>
      <div>
        <label htmlFor="r-shoe">Shoe</label>
        <input id="r-shoe" name="shoeId" defaultValue={q.shoeId ?? ''} size={22} />
      </div>
      <div>
        <label htmlFor="r-dealer">Dealer</label>
        <input id="r-dealer" name="dealerId" defaultValue={q.dealerId ?? ''} size={14} />
      </div>
      <div>
        <label htmlFor="r-currency">Currency</label>
        <input id="r-currency" name="currency" defaultValue={q.currency ?? ''} size={4} maxLength={3} pattern="[A-Za-z]{3}" title="ISO 4217 code, e.g. EUR" />
      </div>
      <div>
        <label htmlFor="r-from">From gaming day</label>
        <input id="r-from" name="fromDay" type="date" defaultValue={q.fromDay ?? ''} />
      </div>
      <div>
        <label htmlFor="r-to">To gaming day</label>
        <input id="r-to" name="toDay" type="date" defaultValue={q.toDay ?? ''} />
      </div>
      <button type="submit" className="primary">
        Apply
      </button>
      <button type="button" onClick={() => setParams(new URLSearchParams())}>
        Reset
      </button>
    </form>
  );
}

/**
 * Reconciliation (`/reconciliation`; docs/http-api.md "Reads and writes", docs/domain-rules.md §4): the
 * report of `GET /reports/reconciliation` grouped by any of table, shoe, dealer, gaming day (and
 * always currency: amounts of different currencies are never added), filtered by table, shoe,
 * dealer, currency and gaming days — all in the URL's query string, so a view can be shared. The
 * rows with the API's totals per currency (the same filters grouped by currency), voids and corrections in their own
 * columns, a chart per gaming day from a `groupBy=day,currency` call, and exports: CSV (the API's
 * own `format=csv`) and XLSX (exceljs, lib/export.ts, from the same rows the table shows).
 */
export function ReconciliationPage() {
  const [params, setParams] = useSearchParams();
  const q = useMemo(() => parseReportQuery(params), [params]);
  const report = useQuery({
    queryKey: ['reconciliation', reportQueryString(q)],
    queryFn: () => unwrap(api.GET('/reports/reconciliation', { params: { query: apiQuery(q) } })) as Promise<Report>,
  });
  const daily = useQuery({
    queryKey: ['reconciliation', reportQueryString({ ...q, groupBy: ['day', 'currency'] })],
    queryFn: () => unwrap(api.GET('/reports/reconciliation', { params: { query: apiQuery({ ...q, groupBy: ['day', 'currency'] }) } })) as Promise<Report>,
  });
  // the totals per currency are the API's own (the same filters grouped by currency alone): the console adds no figure of its own
  const byCurrency = useQuery({
    queryKey: ['reconciliation', reportQueryString({ ...q, groupBy: ['currency'] })],
    queryFn: () => unwrap(api.GET('/reports/reconciliation', { params: { query: apiQuery({ ...q, groupBy: ['currency'] }) } })) as Promise<Report>,
  });
  const tables = useQuery({ queryKey: ['tables'], queryFn: () => unwrap(api.GET('/tables')) });

  return (
    <section aria-labelledby="rec-h">
      <h1 id="rec-h">Reconciliation</h1>
      <ReportFilters key={reportQueryString(q)} q={q} tables={tables.data?.tables ?? []} setParams={setParams} />
      <QueryState query={report} what="the report">
        {(r) => (r.items.length ? <ReportView report={r} query={q} currencyRows={byCurrency.data?.items ?? null} /> : <Empty>No settled play matches these filters.</Empty>)}
      </QueryState>
      <h2>Per gaming day</h2>
      {daily.isPending ? <Loading what="the per-day figures" /> : daily.error ? <ErrorMessage error={daily.error} /> : <DailyChart rows={daily.data?.items ?? []} />}
    </section>
  );
}

/** The hold ratio string (6 decimals, or null) as an integer of millionths, for sorting. */
function holdMillionths(v: string | null | undefined): bigint {
  if (v === null || v === undefined) return -(10n ** 30n);
  const [w, f = ''] = v.split('.');
  const neg = w.startsWith('-');
  const abs = BigInt(w.replace('-', '') + f.padEnd(6, '0').slice(0, 6));
  return neg ? -abs : abs;
}

/**
 * The report's rows and, per currency, the API's own totals (`currencyRows`: the same filters grouped
 * by currency alone; null while they load), with the voids and corrections apart.
 */
function ReportView({ report, query, currencyRows }: { report: Report; query: ReportQuery; currencyRows: readonly Row[] | null }) {
  const columns = useMemo(() => columnsFor(query.groupBy), [query.groupBy]);
  const totals = useMemo(
    () =>
      (currencyRows ?? []).map((t) => ({
        ...t,
        currency: t.currency ?? 'XXX',
        rows: report.items.filter((r) => r.currency === t.currency).length,
      })),
    [currencyRows, report.items],
  );
  const dims = DIMENSIONS.filter((d) => query.groupBy.includes(d.key));
  const footer = totals.map((t) => <TotalRow key={t.currency} t={t} span={Math.max(dims.length, 1)} />);

  return (
    <>
      <ExportBar report={report} query={query} />
      <DataTable
        testId="report"
        caption={`Reconciliation by ${query.groupBy.join(', ')}`}
        data={report.items}
        columns={columns}
        getRowId={(r, i) => dims.map((d) => (r as Record<string, unknown>)[d.field]).join('|') || String(i)}
        footer={footer}
      />
      <h2>Voids and corrections</h2>
      <ApartTable totals={totals} />
      <p className="muted">Voided stakes were refunded and are not in turnover; a correction’s payout delta is the change of payouts its re-settlement made (already in payouts).</p>
    </>
  );
}

/** A currency's totals row of the API, with the number of report rows in that currency. */
type CurrencyTotal = Row & { currency: string; rows: number };

/** The report's row count and its exports: CSV (the API's own) and XLSX (from the rows shown). */
function ExportBar({ report, query }: { report: Report; query: ReportQuery }) {
  const [exportError, setExportError] = useState<unknown>(null);
  const [busy, setBusy] = useState<'csv' | 'xlsx' | null>(null);

  async function exportAs(kind: 'csv' | 'xlsx') {
    setBusy(kind);
    setExportError(null);
    try {
      const x = await import('../lib/export');
      if (kind === 'csv') {
        const blob = await fetchFile(`/reports/reconciliation?${reportQueryString(query, { format: 'csv' })}`);
        x.downloadBlob(blob, x.exportFilename(query, 'csv'), document);
      } else {
        const bytes = await x.workbookBytes(x.reconciliationWorkbook(report.items, query, new Date().toISOString()));
        x.downloadBlob(new Blob([bytes as BlobPart], { type: x.XLSX_TYPE }), x.exportFilename(query, 'xlsx'), document);
      }
    } catch (e) {
      setExportError(e);
    } finally {
      setBusy(null);
    }
  }

  return (
    <>
      <div className="toolbar">
        <span className="muted">
          {report.items.length} row{report.items.length === 1 ? '' : 's'}, amounts in {report.unit} (shown in major units)
        </span>
        <button type="button" onClick={() => void exportAs('csv')} disabled={busy !== null}>
          {busy === 'csv' ? 'Exporting…' : 'Export CSV (minor units)'}
        </button>
        <button type="button" onClick={() => void exportAs('xlsx')} disabled={busy !== null}>
          {busy === 'xlsx' ? 'Exporting…' : 'Export XLSX (minor units)'}
        </button>
      </div>
      {exportError ? <ErrorMessage error={exportError} /> : null}
    </>
  );
}

/** A currency's totals (the API's own) under the report's rows. */
function TotalRow({ t, span }: { t: CurrencyTotal; span: number }) {
  return (
    <tr data-testid={`total-${t.currency}`}>
      <th scope="row" colSpan={span}>
        Total {t.currency} ({t.rows} row{t.rows === 1 ? '' : 's'})
      </th>
      <td className="num" data-col="turnover">
        {formatMinor(t.turnover, t.currency)}
      </td>
      <td className="num" data-col="payouts">
        {formatMinor(t.payouts, t.currency)}
      </td>
      <td className="num" data-col="ggr">
        {formatMinor(t.ggr, t.currency)}
      </td>
      <td className="num">{formatRatioPercent(t.hold)}</td>
      <td className="num">{t.betsSettled}</td>
      <td className="num">{t.roundsResulted}</td>
      <td className="num apart" data-col="voidedStakes">
        {formatMinor(t.voidedStakes, t.currency)}
      </td>
      <td className="num apart">{t.betsRefunded}</td>
      <td className="num apart">{t.roundsVoided}</td>
      <td className="num apart" data-col="correctionPayoutDelta">
        {formatMinor(t.correctionPayoutDelta, t.currency)}
      </td>
      <td className="num apart">{t.betsResettled}</td>
      <td className="num apart">{t.corrections}</td>
    </tr>
  );
}

/** The voids and corrections per currency, apart from play. */
function ApartTable({ totals }: { totals: readonly CurrencyTotal[] }) {
  return (
    <div className="scroll" role="region" aria-label="Voids and corrections per currency" tabIndex={0}>
      <table className="data" data-testid="apart">
        <caption className="sr-only">Voids and corrections per currency</caption>
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <th scope="col" className="num">
              Voided stakes (refunded)
            </th>
            <th scope="col" className="num">
              Bets refunded
            </th>
            <th scope="col" className="num">
              Rounds voided
            </th>
            <th scope="col" className="num">
              Correction payout delta
            </th>
            <th scope="col" className="num">
              Bets resettled
            </th>
            <th scope="col" className="num">
              Corrections
            </th>
          </tr>
        </thead>
        <tbody>
          {totals.map((t) => (
            <tr key={t.currency}>
              <th scope="row">{t.currency}</th>
              <td className="num">{formatMinor(t.voidedStakes, t.currency, true)}</td>
              <td className="num">{t.betsRefunded}</td>
              <td className="num">{t.roundsVoided}</td>
              <td className="num">{formatMinor(t.correctionPayoutDelta, t.currency, true)}</td>
              <td className="num">{t.betsResettled}</td>
              <td className="num">{t.corrections}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Tooltip of the chart: every figure printed from the exact strings of the day, never from the plotted numbers. */
function DayTooltip({ active, payload, currency }: { active?: boolean; payload?: readonly { payload?: DayPoint }[]; currency: string }) {
  const p = payload?.[0]?.payload;
  if (!active || !p) return null;
  return (
    <div className="chart-tooltip">
      <p>
        <strong>{p.gamingDay}</strong>
      </p>
      <p>Turnover {formatMinor(p.turnover, currency, true)}</p>
      <p>Payouts {formatMinor(p.payouts, currency, true)}</p>
      <p>GGR {formatMinor(p.ggr, currency, true)}</p>
      <p>Hold {formatRatioPercent(p.hold)}</p>
    </div>
  );
}

/** An axis tick of minor units (a position chosen by the chart) formatted as money of the currency. */
function tick(currency: string) {
  return (v: number) => formatMinor(BigInt(Math.round(v)), currency);
}

function DailyChart({ rows }: { rows: readonly Row[] }) {
  const series = useMemo(() => dailySeries(rows), [rows]);
  const currencies = [...series.keys()];
  const [chosen, setChosen] = useState<string | null>(null);
  const currency = chosen && series.has(chosen) ? chosen : currencies[0];
  if (!currency) return <Empty>No settled play per day for these filters.</Empty>;
  const points = series.get(currency) ?? [];
  return (
    <figure className="chart" aria-labelledby="chart-cap" style={{ margin: 0 }}>
      <figcaption id="chart-cap">
        Turnover, payouts, GGR and hold per gaming day ({currency})
        {currencies.length > 1 ? (
          <label style={{ marginLeft: 12, fontWeight: 400 }}>
            Currency{' '}
            <select value={currency} onChange={(e) => setChosen(e.target.value)}>
              {currencies.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </label>
        ) : null}
      </figcaption>
      <div style={{ width: '100%', height: 300 }} aria-hidden="true" data-testid="chart">
        <ResponsiveContainer>
          <ComposedChart accessibilityLayer={false} data={points} margin={{ top: 8, right: 16, bottom: 8, left: 16 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="gamingDay" />
            <YAxis yAxisId="money" tickFormatter={tick(currency)} width={90} />
            <YAxis yAxisId="hold" orientation="right" tickFormatter={(v: number) => `${v} %`} width={60} />
            <Tooltip content={<DayTooltip currency={currency} />} />
            <Legend />
            <Bar yAxisId="money" name="Turnover" dataKey={(p: DayPoint) => p.plot.turnover} fill="#0b57d0" />
            <Bar yAxisId="money" name="Payouts" dataKey={(p: DayPoint) => p.plot.payouts} fill="#8a4b00" />
            <Bar yAxisId="money" name="GGR" dataKey={(p: DayPoint) => p.plot.ggr} fill="#146c2e" />
            <Line yAxisId="hold" name="Hold %" type="monotone" dataKey={(p: DayPoint) => p.plot.holdPercent} stroke="#b3261e" strokeWidth={2} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <details>
        <summary>The chart’s figures as a table</summary>
        <div className="scroll" role="region" aria-label="Per-day figures" tabIndex={0}>
          <table className="data" data-testid="daily">
            <caption className="sr-only">Per gaming day ({currency})</caption>
            <thead>
              <tr>
                <th scope="col">Gaming day</th>
                <th scope="col" className="num">
                  Turnover
                </th>
                <th scope="col" className="num">
                  Payouts
                </th>
                <th scope="col" className="num">
                  GGR
                </th>
                <th scope="col" className="num">
                  Hold
                </th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={p.gamingDay}>
                  <th scope="row">{p.gamingDay}</th>
                  <td className="num">{formatMinor(p.turnover, currency, true)}</td>
                  <td className="num">{formatMinor(p.payouts, currency, true)}</td>
                  <td className="num">{formatMinor(p.ggr, currency, true)}</td>
                  <td className="num">{formatRatioPercent(p.hold)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
