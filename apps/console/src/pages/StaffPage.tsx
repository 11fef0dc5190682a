import { useMemo, type SubmitEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { Empty, QueryState } from '../components/States';
import { formatInstant } from '../lib/time';
import { usePrincipal } from '../session';

type Report = components['schemas']['StaffStatisticsReport'];
type Row = components['schemas']['StaffRowView'];
type PitManager = components['schemas']['PitManagerRowView'];
type OutlierTest = components['schemas']['OutlierTestView'];
type GroupBy = 'dealer' | 'pitManager' | 'table' | 'shift';

const GROUPS: ReadonlyArray<{ key: GroupBy; label: string }> = [
  { key: 'dealer', label: 'Dealer' },
  { key: 'shift', label: 'Shift' },
  { key: 'table', label: 'Table' },
  { key: 'pitManager', label: 'Pit manager' },
];
const FILTERS = ['groupBy', 'tableId', 'fromDay', 'toDay', 'minRounds'] as const;

/** The page's query from the URL: only the known parameters, as the API takes them. */
function queryOf(params: URLSearchParams): Record<string, string> {
  const q: Record<string, string> = {};
  for (const k of FILTERS) {
    const v = params.get(k);
    if (v) q[k] = v;
  }
  return q;
}

/** A rate (exact decimal text of the API, 4 places) as a percentage with two decimals, without parsing it to a float. */
function percent(rate: string | null | undefined): string {
  if (!rate) return '–';
  const [w, f = ''] = rate.split('.');
  const digits = (w + f.padEnd(4, '0')).replace(/^0+(?=\d)/, '');
  const int = digits.length > 2 ? digits.slice(0, -2) : '0';
  return `${int}.${digits.padStart(2, '0').slice(-2)} %`;
}

function TestCell({ t }: { t: OutlierTest | undefined }) {
  if (!t) return <span className="muted">–</span>;
  return (
    <span data-testid={`test-${t.metric}`} data-flagged={String(t.flagged)} title={t.note ?? `z = ${t.z ?? '–'} against the peers' ${percent(t.peerRate)}`}>
      {t.flagged ? <span className="badge voided">flagged</span> : null} z {t.z ?? '–'}
      <div className="tiny muted">peers {percent(t.peerRate)}</div>
    </span>
  );
}

/** The header row of {@link StaffTable}: the grouping's columns, the figures, the dealers' tests. */
function StaffHeadRow({ groupBy }: { groupBy: GroupBy }) {
  return (
    <tr>
      {groupBy !== 'table' ? <th scope="col">Dealer</th> : null}
      {groupBy !== 'dealer' ? <th scope="col">Table</th> : null}
      {groupBy === 'shift' ? <th scope="col">Shift</th> : null}
      <th scope="col" className="num">
        Rounds
      </th>
      <th scope="col" className="num">
        Voids
      </th>
      <th scope="col" className="num">
        Void rate
      </th>
      <th scope="col" className="num">
        Corrections
      </th>
      <th scope="col" className="num">
        Exposed
      </th>
      <th scope="col" className="num">
        Dropped
      </th>
      <th scope="col" className="num">
        Unneeded
      </th>
      <th scope="col" className="num">
        Tableau refusals
      </th>
      <th scope="col" className="num">
        Refusal rate
      </th>
      <th scope="col" className="num">
        Round time median / mean
      </th>
      {groupBy === 'dealer' ? <th scope="col">Voids vs peers</th> : null}
      {groupBy === 'dealer' ? <th scope="col">Refusals vs peers</th> : null}
    </tr>
  );
}

/** One row of {@link StaffTable}: a dealer, a table or a shift, by the grouping. */
function StaffRow({ r, groupBy, timeZone }: { r: Row; groupBy: GroupBy; timeZone: string }) {
  return (
    <tr data-dealer={r.dealerId ?? ''} data-flagged={String(r.flagged)}>
      {groupBy !== 'table' ? <th scope="row">{r.dealerId}</th> : null}
      {groupBy !== 'dealer' ? <td>{r.tableId}</td> : null}
      {groupBy === 'shift' ? (
        <td className="tiny">
          <code>{r.shoeId}</code> from v{r.shiftStartVersion}
          <div className="muted">
            {r.shiftStartedAt ? formatInstant(r.shiftStartedAt, timeZone) : '–'} → {r.shiftEndedAt ? formatInstant(r.shiftEndedAt, timeZone) : 'still at the table'}
          </div>
        </td>
      ) : null}
      <td className="num" data-col="rounds">
        {r.rounds}
      </td>
      <td className="num" data-col="voids">
        {r.voids}
      </td>
      <td className="num" data-col="voidRate">
        {percent(r.voidRate)}
      </td>
      <td className="num" data-col="corrections">
        {r.corrections}
      </td>
      <td className="num" data-col="exposedCards">
        {r.exposedCards}
      </td>
      <td className="num" data-col="droppedCards">
        {r.droppedCards}
      </td>
      <td className="num" data-col="unneededCards">
        {r.unneededCards}
      </td>
      <td className="num" data-col="refusals">
        {r.refusals}
      </td>
      <td className="num" data-col="refusalRate">
        {percent(r.refusalRate)}
      </td>
      <td className="num nowrap" data-col="roundTime">
        {r.roundTimeMs.median === null ? '–' : `${(r.roundTimeMs.median / 1000).toFixed(1)} s`} / {r.roundTimeMs.mean === null ? '–' : `${(r.roundTimeMs.mean / 1000).toFixed(1)} s`}
      </td>
      {groupBy === 'dealer' ? (
        <td>
          <TestCell t={r.tests.find((t) => t.metric === 'VOID_RATE')} />
        </td>
      ) : null}
      {groupBy === 'dealer' ? (
        <td>
          <TestCell t={r.tests.find((t) => t.metric === 'REFUSAL_RATE')} />
        </td>
      ) : null}
    </tr>
  );
}

function StaffTable({ rows, groupBy, timeZone }: { rows: readonly Row[]; groupBy: GroupBy; timeZone: string }) {
  if (rows.length === 0) return <Empty>No round was dealt in this period.</Empty>;
  return (
    <div className="scroll" role="region" aria-label="Staff statistics table" tabIndex={0}>
      <table className="data" data-testid="staff">
        <caption className="sr-only">Staff statistics by {groupBy}</caption>
        <thead>
          <StaffHeadRow groupBy={groupBy} />
        </thead>
        <tbody>
          {rows.map((r) => (
            <StaffRow key={[r.dealerId, r.tableId, r.shoeId, r.shiftStartVersion].join('|')} r={r} groupBy={groupBy} timeZone={timeZone} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function PitManagerTable({ rows }: { rows: readonly PitManager[] }) {
  if (rows.length === 0) return <Empty>No management decision in this period.</Empty>;
  return (
    <div className="scroll" role="region" aria-label="Pit managers table" tabIndex={0}>
      <table className="data" data-testid="pit-managers">
        <caption className="sr-only">Pit managers' decisions</caption>
        <thead>
          <tr>
            <th scope="col">Pit manager</th>
            <th scope="col" className="num">
              Requested
            </th>
            <th scope="col" className="num">
              Approved
            </th>
            <th scope="col" className="num">
              Rejected
            </th>
            <th scope="col" className="num">
              Expired
            </th>
            <th scope="col" className="num">
              Voids requested / approved
            </th>
            <th scope="col" className="num">
              Corrections requested / approved
            </th>
            <th scope="col" className="num">
              Shoe voids requested / approved
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((m) => (
            <tr key={m.managerId} data-manager={m.managerId}>
              <th scope="row">{m.managerId}</th>
              <td className="num">{m.decisionsRequested}</td>
              <td className="num">{m.decisionsApproved}</td>
              <td className="num">{m.decisionsRejected}</td>
              <td className="num">{m.decisionsExpired}</td>
              <td className="num">
                {m.voidsRequested} / {m.voidsApproved}
              </td>
              <td className="num">
                {m.correctionsRequested} / {m.correctionsApproved}
              </td>
              <td className="num">
                {m.shoeVoidsRequested} / {m.shoeVoidsApproved}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The filters form, its fields from the URL's query (keyed by it, so a new query resets them): Apply puts them in the URL (the default grouping left out), Reset clears it. */
function StaffFilters({ q, groupBy, tables, setParams }: { q: Record<string, string>; groupBy: GroupBy; tables: readonly { tableId: string }[]; setParams: (next: URLSearchParams) => void }) {
  function apply(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const k of FILTERS) {
      const v = String(f.get(k) ?? '').trim();
      if (v && !(k === 'groupBy' && v === 'dealer')) next.set(k, v);
    }
    setParams(next);
  }

  return (
    <form className="filters" onSubmit={apply} aria-label="Statistics filters">
      <div>
        <label htmlFor="s-group">Group by</label>
        <select id="s-group" name="groupBy" defaultValue={groupBy}>
          {GROUPS.map((g) => (
            <option key={g.key} value={g.key}>
              {g.label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="s-table">Table</label>
        <select id="s-table" name="tableId" defaultValue={q.tableId ?? ''}>
          <option value="">every table</option>
          {tables.map((t) => (
            <option key={t.tableId} value={t.tableId}>
              {t.tableId}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="s-from">From gaming day</label>
        <input id="s-from" name="fromDay" type="date" defaultValue={q.fromDay ?? ''} />
      </div>
      <div>
        <label htmlFor="s-to">To gaming day</label>
        <input id="s-to" name="toDay" type="date" defaultValue={q.toDay ?? ''} />
      </div>
      <div>
        <label htmlFor="s-min">Fewest rounds for a flag</label>
        <input id="s-min" name="minRounds" type="number" min={10} max={1000000} defaultValue={q.minRounds ?? ''} placeholder="30" />
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

/** The report under the filters: the flag rule and header, the flagged dealers, the table of the grouping. */
function StaffReport({ r, groupBy, timeZone }: { r: Report; groupBy: GroupBy; timeZone: string }) {
  return (
    <>
      <p className="muted" data-testid="flag-rule">
        Flag: {r.flagRule.test}, z ≥ {r.flagRule.zThreshold} with at least {r.flagRule.minRounds} rounds for the dealer and for the peers. Generated {formatInstant(r.header.generatedAt, timeZone)} by {r.header.software.name}{' '}
        {r.header.software.version}
        {r.header.noActivity ? ' · no activity in this period' : ''}.
      </p>
      {groupBy === 'dealer' ? (
        <p data-testid="flagged-summary">
          {r.items.filter((d) => d.flagged).length
            ? `Flagged: ${r.items
                .filter((d) => d.flagged)
                .map((d) => d.dealerId)
                .join(', ')}`
            : 'No dealer is flagged.'}
        </p>
      ) : null}
      {groupBy === 'pitManager' ? <PitManagerTable rows={r.pitManagers} /> : <StaffTable rows={r.items} groupBy={groupBy} timeZone={timeZone} />}
    </>
  );
}

/**
 * Staff statistics (`/staff`; docs/reports.md §6): `GET /statistics/staff` per dealer, shift,
 * table or pit manager, for gaming days and a table, the filters in the URL. Dealers whose void or
 * refusal rate stands out from their peers' (two-proportion z ≥ 3 with enough rounds) are flagged;
 * every figure is the API's (rates are its exact decimal text, shown as percentages).
 */
export function StaffPage() {
  const [params, setParams] = useSearchParams();
  const q = useMemo(() => queryOf(params), [params]);
  const groupBy = (q.groupBy ?? 'dealer') as GroupBy;
  const timeZone = usePrincipal().gamingDay.timeZone;
  const report = useQuery({
    queryKey: ['staff-statistics', JSON.stringify(q)],
    queryFn: () => unwrap(api.GET('/statistics/staff', { params: { query: q as never } })) as Promise<Report>,
  });
  const tables = useQuery({ queryKey: ['tables'], queryFn: () => unwrap(api.GET('/tables')) });

  return (
    <section aria-labelledby="staff-h">
      <h1 id="staff-h">Staff statistics</h1>
      <StaffFilters key={params.toString()} q={q} groupBy={groupBy} tables={tables.data?.tables ?? []} setParams={setParams} />
      <QueryState query={report} what="the statistics">
        {(r) => <StaffReport r={r} groupBy={groupBy} timeZone={timeZone} />}
      </QueryState>
    </section>
  );
}
