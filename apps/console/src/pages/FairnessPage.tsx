import { useMemo, type SubmitEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { Empty, QueryState } from '../components/States';
import { gamingDayOf } from '../lib/zoned';
import { usePrincipal } from '../session';

type Report = components['schemas']['FairnessResponse'];
type Scope = components['schemas']['FairnessScopeReport'];
type Statistic = components['schemas']['FairnessStatisticReport'];
const FILTERS = ['tableId', 'gamingDay', 'shoeId', 'dealerId'] as const;

/** The page's query from the URL: only the known parameters, as the API takes them. */
function queryOf(params: URLSearchParams): Record<string, string> {
  const q: Record<string, string> = {};
  for (const k of FILTERS) {
    const v = params.get(k);
    if (v) q[k] = v;
  }
  return q;
}

/** A float to a few significant digits (statistics are floats, docs/fairness.md §3). */
const fig = (x: number | null, digits = 3) => (x === null ? '∞' : x === 0 ? '0' : Math.abs(x) < 1e-3 ? x.toExponential(2) : x.toPrecision(digits));

function scopeName(s: Scope): string {
  return s.kind === 'shoe' ? `Shoe ${s.shoeId}` : s.kind === 'dealer' ? `Dealer ${s.dealerId}` : 'The table’s gaming day';
}

/** One statistic: each category's observed count against its expected count and band; the test and its verdict. */
function StatisticTable({ s }: { s: Statistic }) {
  return (
    <table data-testid={`statistic-${s.statistic}`} data-alert={String(s.alert)}>
      <caption>
        {s.statistic} — {s.test.method === 'none' ? 'no rounds' : `${s.test.method}, X² ${fig(s.test.statistic)} on ${s.test.degreesOfFreedom} df, p ${fig(s.test.pValue)} (α ${fig(s.alpha)})`}{' '}
        {s.alert ? <span className="badge voided">alert</span> : null}
      </caption>
      <thead>
        <tr>
          <th scope="col">Category</th>
          <th scope="col" className="num">
            Observed
          </th>
          <th scope="col" className="num">
            Expected
          </th>
          <th scope="col" className="num">
            Band
          </th>
          <th scope="col" className="num">
            Exact probability
          </th>
        </tr>
      </thead>
      <tbody>
        {s.categories.map((c) => {
          const outside = c.observed < c.band.low || c.observed > c.band.high;
          return (
            <tr key={c.category} data-outside={String(outside)}>
              <th scope="row">{c.category}</th>
              <td className="num">{outside ? <strong>{c.observed}</strong> : c.observed}</td>
              <td className="num">{fig(c.expected, 4)}</td>
              <td className="num">
                {fig(c.band.low, 4)} – {fig(c.band.high, 4)}
              </td>
              <td className="num tiny" title={`${c.probability.numerator}/${c.probability.denominator}`}>
                {fig(Number(c.probability.numerator) / Number(c.probability.denominator), 6)}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function FairnessReport({ r }: { r: Report }) {
  if (r.scopes[0].rounds === 0) return <Empty>No resulted round for this table and day.</Empty>;
  return (
    <>
      <p data-testid="fairness-verdict" data-alert={String(r.alert)}>
        {r.alert ? `Alert: ${r.failures.map((f) => `${f.kind} ${f.shoeId ?? f.dealerId ?? ''} ${f.statistic} (p ${fig(f.pValue)})`).join(', ')}` : 'No test fails.'}
      </p>
      <p className="muted">
        {r.variant}, {r.decks} decks. Each test alerts below α = {fig(r.alpha)}; an honest table alerts on at most {fig(100 * r.falseAlarmRatePerTableDay)} % of its gaming days (confidence {r.confidence.numerator}/
        {r.confidence.denominator}). Bands: the expected count ± the two-sided normal quantile at α.
      </p>
      {r.scopes.map((s) => (
        <section key={`${s.kind}-${s.shoeId ?? s.dealerId ?? ''}`} aria-label={scopeName(s)}>
          <h2>
            {scopeName(s)} · {s.rounds} rounds
          </h2>
          {s.statistics.map((st) => (
            <StatisticTable key={st.statistic} s={st} />
          ))}
        </section>
      ))}
    </>
  );
}

/**
 * Fairness statistics (`/fairness`; docs/fairness.md): `GET /statistics/fairness` for a table's
 * gaming day (optionally one shoe or one dealer), per scope and statistic the observed counts against
 * the PAR engine's exact expectations with confidence bands, the tests and the verdict; every figure
 * is the API's.
 */
export function FairnessPage() {
  const [params, setParams] = useSearchParams();
  const q = useMemo(() => queryOf(params), [params]);
  const rule = usePrincipal().gamingDay;
  const tables = useQuery({ queryKey: ['tables'], queryFn: () => unwrap(api.GET('/tables')) });
  const ready = Boolean(q.tableId && q.gamingDay);
  const report = useQuery({
    queryKey: ['fairness', JSON.stringify(q)],
    enabled: ready,
    queryFn: () => unwrap(api.GET('/statistics/fairness', { params: { query: q as never } })) as Promise<Report>,
  });
  function apply(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === 'string' && v) next.set(k, v);
    setParams(next);
  }
  return (
    <section aria-labelledby="fairness-h">
      <h1 id="fairness-h">Fairness statistics</h1>
      <form key={params.toString()} className="filters" onSubmit={apply} aria-label="Fairness filters">
        <div>
          <label htmlFor="f-table">Table</label>
          <select id="f-table" name="tableId" defaultValue={q.tableId ?? ''}>
            <option value="">choose a table</option>
            {(tables.data?.tables ?? []).map((t) => (
              <option key={t.tableId} value={t.tableId}>
                {t.tableId}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-day">Gaming day</label>
          <input id="f-day" name="gamingDay" type="date" defaultValue={q.gamingDay ?? gamingDayOf(Date.now(), rule)} />
        </div>
        <div>
          <label htmlFor="f-shoe">Shoe (optional)</label>
          <input id="f-shoe" name="shoeId" defaultValue={q.shoeId ?? ''} />
        </div>
        <div>
          <label htmlFor="f-dealer">Dealer (optional)</label>
          <input id="f-dealer" name="dealerId" defaultValue={q.dealerId ?? ''} />
        </div>
        <button type="submit" className="primary">
          Apply
        </button>
      </form>
      {ready ? (
        <QueryState query={report} what="the fairness statistics">
          {(r) => <FairnessReport r={r} />}
        </QueryState>
      ) : (
        <p className="muted">Choose a table and a gaming day.</p>
      )}
    </section>
  );
}
