import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { fetchFile } from '../api/fetch-file';
import { usePrincipal } from '../session';
import { Empty, ErrorMessage, QueryState } from '../components/States';
import { DataTable } from '../components/DataTable';
import { formatMinor } from '../lib/money';
import { formatInstant } from '../lib/time';
import { CloseClockSkew, CloseFairness } from './CloseTables';
import '../components/DataTable.css';

type CloseRecord = components['schemas']['GamingDayCloseRecord'];
type CloseWithReport = components['schemas']['GamingDayCloseWithReport'];
type Refused = components['schemas']['RefusedCloseDto'];
type DayCloses = components['schemas']['GamingDayCloses'];
type Adjustment = components['schemas']['AdjustmentDto'];
type Row = components['schemas']['ReconciliationRow'];

/**
 * The signature status of a close as the API reports it (docs/reports.md §2): the API serves as a
 * close only an event whose frozen report's SHA-256 and Ed25519 signature check out with a key it
 * knows; any other close event is listed as refused with the problem it found.
 */
function SignatureOk({ keyId }: { keyId: string }) {
  return (
    <span className="badge resulted" data-testid="signature-status">
      signature verified by the API ({keyId})
    </span>
  );
}

/** The close events the API refused (forged, replayed, altered): never served as closes. */
function RefusedCloses({ refused }: { refused: readonly Refused[] }) {
  if (refused.length === 0) return null;
  return (
    <section aria-labelledby="refused-h">
      <h2 id="refused-h">Refused close events</h2>
      <p className="muted">These close events fail the API&apos;s check of their signed report; they are not closes.</p>
      <ul data-testid="refused">
        {refused.map((r) => (
          <li key={r.eventId}>
            <span className="badge voided">{r.problem}</span> gaming day {r.gamingDay}, event <code>{r.eventId}</code>: {r.detail}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** `/closes`: every genuine gaming-day close and the refused close events (`GET /gaming-days/closes`). */
export function ClosesPage() {
  const { gamingDay: rule } = usePrincipal();
  const list = useQuery({ queryKey: ['gaming-day-closes'], queryFn: () => unwrap(api.GET('/gaming-days/closes')) });
  const columns = [
    { id: 'day', header: 'Gaming day', accessorKey: 'gamingDay', cell: ({ row }: { row: { original: CloseRecord } }) => <Link to={`/closes/${row.original.gamingDay}`}>{row.original.gamingDay}</Link> },
    { id: 'tables', header: 'Tables', accessorFn: (c: CloseRecord) => c.tableIds.join(', ') },
    { id: 'trigger', header: 'Closed by', accessorFn: (c: CloseRecord) => `${c.trigger === 'AUTOMATIC' ? 'automatic' : c.closedBy}${c.early ? ' (early)' : ''}` },
    { id: 'closedAt', header: 'Closed at', accessorFn: (c: CloseRecord) => formatInstant(c.closedAt, rule.timeZone), meta: { className: 'nowrap' } },
    { id: 'through', header: 'Through position', accessorKey: 'throughPosition', meta: { numeric: true } },
    { id: 'signature', header: 'Signature', enableSorting: false, cell: ({ row }: { row: { original: CloseRecord } }) => <SignatureOk keyId={row.original.keyId} /> },
  ];
  return (
    <>
      <h1>Gaming-day closes</h1>
      <p className="muted">Each close freezes a gaming day&apos;s report for a table set and signs it (docs/reports.md §2). Open a day for its report, the adjustments it carries and the exact signed bytes.</p>
      <QueryState query={list} what="closes">
        {(d) => (
          <>
            {d.items.length === 0 ? <Empty>No gaming day has been closed yet.</Empty> : <DataTable data={d.items} columns={columns} caption="Closes" getRowId={(c) => c.closeId} testId="closes" />}
            <RefusedCloses refused={d.refused} />
          </>
        )}
      </QueryState>
    </>
  );
}

const FIGURES = ['turnover', 'payouts', 'ggr', 'voidedStakes', 'correctionPayoutDelta'] as const;

/** A close report's rows (per table, dealer and currency) or totals (per currency), amounts in major units. */
function ReportRows({ rows, caption }: { rows: readonly Row[]; caption: string }) {
  const columns = [
    { id: 'table', header: 'Table', accessorFn: (r: Row) => r.tableId ?? '–' },
    { id: 'dealer', header: 'Dealer', accessorFn: (r: Row) => r.dealerId ?? '–' },
    { id: 'currency', header: 'Currency', accessorFn: (r: Row) => r.currency ?? '–' },
    ...FIGURES.map((f) => ({ id: f, header: f, accessorFn: (r: Row) => formatMinor(r[f], r.currency ?? ''), meta: { numeric: true } })),
    { id: 'rounds', header: 'roundsResulted', accessorKey: 'roundsResulted', meta: { numeric: true } },
  ];
  if (rows.length === 0) return <Empty>{caption}: none (no round that day).</Empty>;
  return <DataTable data={rows} columns={columns} caption={caption} getRowId={(r, i) => `${r.tableId}|${r.dealerId}|${r.currency}|${i}`} sortable={false} />;
}

/** The adjustments a close carries: changes to rounds of earlier closed days (docs/reports.md §2). */
function Adjustments({ items }: { items: readonly Adjustment[] }) {
  const { gamingDay: rule } = usePrincipal();
  if (items.length === 0) return <Empty>This close carries no adjustment.</Empty>;
  const columns = [
    { id: 'kind', header: 'Kind', accessorKey: 'kind' },
    { id: 'round', header: 'Round', accessorKey: 'roundId' },
    { id: 'closedDay', header: 'Of closed day', accessorKey: 'closedDay' },
    { id: 'recordedAt', header: 'Recorded at', accessorFn: (a: Adjustment) => formatInstant(a.recordedAt, rule.timeZone), meta: { className: 'nowrap' } },
    { id: 'ggr', header: 'GGR change', accessorFn: (a: Adjustment) => formatMinor(a.ggr, a.currency, true), meta: { numeric: true } },
    { id: 'reason', header: 'Reason', accessorFn: (a: Adjustment) => a.reason ?? '–' },
  ];
  return <DataTable data={items} columns={columns} caption="Adjustments carried" getRowId={(a) => a.eventId} testId="adjustments" />;
}

/** Downloads of one close: the exact signed bytes (`format=raw`) and the CSV of the day. */
function CloseDownloads({ close }: { close: CloseWithReport }) {
  const [error, setError] = useState<unknown>(null);
  const day = close.gamingDay;
  const tableId = close.tableIds[0];
  async function download(kind: 'raw' | 'csv') {
    setError(null);
    try {
      const q = kind === 'raw' ? `format=raw&tableId=${encodeURIComponent(tableId)}` : 'format=csv';
      const blob = await fetchFile(`/gaming-days/${day}/close?${q}`);
      const { downloadBlob } = await import('../lib/export'); // with exceljs: loaded on demand
      downloadBlob(blob, kind === 'raw' ? `gaming-day-close-${day}-${close.closeId}.json` : `gaming-day-close-${day}.csv`, document);
    } catch (e) {
      setError(e);
    }
  }
  return (
    <div className="actions">
      <button type="button" onClick={() => void download('raw')}>
        Download the signed bytes
      </button>{' '}
      <button type="button" onClick={() => void download('csv')}>
        Download CSV (minor units)
      </button>
      {error ? <ErrorMessage error={error} /> : null}
    </div>
  );
}

/** One close of a day: who, when, signature, report rows and totals, adjustments, downloads. */
function CloseView({ close }: { close: CloseWithReport }) {
  const { gamingDay: rule } = usePrincipal();
  const r = close.report;
  return (
    <section className="panel" aria-labelledby={`close-${close.closeId}`} data-testid="close" data-close-id={close.closeId}>
      <h2 id={`close-${close.closeId}`}>Close {close.closeId}</h2>
      <dl>
        <dt>Tables</dt>
        <dd>{close.tableIds.join(', ')}</dd>
        <dt>Closed by</dt>
        <dd>
          {close.trigger === 'AUTOMATIC' ? 'automatic' : `${close.closedBy} (${close.closedByRole})`} at {formatInstant(close.closedAt, rule.timeZone)}
          {close.early ? ` — early: ${close.early.reason}, requested by ${close.early.requestedBy}, approved by ${close.early.approvedBy}` : ''}
        </dd>
        <dt>Covers events through</dt>
        <dd>position {close.throughPosition}</dd>
        <dt>Gaming-day rule</dt>
        <dd data-testid="close-rule">
          {r.gamingDayRule.timeZone}, cut-off {String(r.gamingDayRule.cutoffHour).padStart(2, '0')}:00
        </dd>
        <dt>Signature</dt>
        <dd>
          <SignatureOk keyId={close.keyId} />
        </dd>
        <dt>SHA-256</dt>
        <dd>
          <code className="wrap" data-testid="sha256">
            {close.sha256}
          </code>
        </dd>
      </dl>
      <CloseDownloads close={close} />
      <h3>Totals</h3>
      <ReportRows rows={r.totals} caption="Totals per currency" />
      <h3>Rows</h3>
      <ReportRows rows={r.rows} caption="Rows per table, dealer and currency" />
      <h3>Adjustments</h3>
      <Adjustments items={r.adjustments} />
      <h3>Device clock skew</h3>
      <CloseClockSkew items={r.clockSkew} />
      <h3>Fairness</h3>
      <CloseFairness items={r.fairness} />
    </section>
  );
}

/** `/closes/{day}`: a day's frozen close reports (`GET /gaming-days/{day}/close`). */
export function CloseDayPage() {
  const { day = '' } = useParams();
  const closes = useQuery({
    queryKey: ['gaming-day-close', day],
    queryFn: async () => (await unwrap(api.GET('/gaming-days/{day}/close', { params: { path: { day }, query: { format: 'json' } } }))) as DayCloses,
  });
  return (
    <>
      <p>
        <Link to="/closes">All closes</Link>
      </p>
      <h1>Gaming day {day}</h1>
      <QueryState query={closes} what={`the closes of ${day}`}>
        {(d) => (
          <>
            {d.closes.length === 0 ? <Empty>No genuine close for this day.</Empty> : d.closes.map((c) => <CloseView key={c.closeId} close={c} />)}
            <RefusedCloses refused={d.refused} />
          </>
        )}
      </QueryState>
    </>
  );
}
