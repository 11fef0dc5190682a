import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { CAN, usePrincipal } from '../session';
import { Empty, QueryState } from '../components/States';
import { BeadPlate, BigRoad } from '../components/Roads';
import { useLiveTables } from '../lib/live';
import { LiveIndicator, OVERVIEW_KEY, useLiveInvalidation } from '../components/Live';
import { formatMinor } from '../lib/money';
import '../components/scoreboard.css';

type TableOverview = components['schemas']['TableOverview'];
type RoundSummary = components['schemas']['RoundSummary'];
type TableConfig = components['schemas']['TableConfig'];

const WIN_LETTER: Record<string, string> = { PLAYER: 'P', BANKER: 'B', TIE: 'T' };

/** The last results of a shoe, oldest to newest (the API sends them newest first). */
function LastResults({ rounds }: { rounds: readonly RoundSummary[] }) {
  if (rounds.length === 0) return <p className="muted tiny">No round yet.</p>;
  const ordered = [...rounds].reverse();
  return (
    <ol className="results" aria-label="Last results, oldest to newest" data-testid="last-results">
      {ordered.map((r) => {
        const w = r.status === 'VOIDED' ? 'NONE' : (r.winner ?? 'NONE');
        const label =
          r.status === 'VOIDED'
            ? `hand ${r.handNumber}: voided`
            : r.winner
              ? `hand ${r.handNumber}: ${r.winner.toLowerCase()} ${r.playerTotal ?? '–'} to ${r.bankerTotal ?? '–'}`
              : `hand ${r.handNumber}: ${r.status.toLowerCase()}`;
        return (
          <li key={r.roundId} className={`r-${w}`} title={label} aria-label={label}>
            <span aria-hidden="true">{r.status === 'VOIDED' ? 'V' : (WIN_LETTER[w] ?? '·')}</span>
          </li>
        );
      })}
    </ol>
  );
}

/** One table of the overview: its open (latest) shoe, hand, cards left, dealer, results, roads. */
function TableCard({ t }: { t: TableOverview }) {
  const shoe = t.shoe;
  const headingId = `table-${t.tableId}`;
  return (
    <section className="panel table-card" aria-labelledby={headingId} data-testid="table-card" data-table-id={t.tableId}>
      <h2 id={headingId}>{t.name}</h2>
      <div className="muted tiny">
        {t.tableId} · {t.variant} · {t.currency}
      </div>
      {shoe ? (
        <>
          <dl>
            <dt>Shoe</dt>
            <dd>
              <Link to={`/shoes/${encodeURIComponent(shoe.shoeId)}`} data-testid="shoe-link">
                {shoe.shoeId}
              </Link>{' '}
              <span className={`badge ${shoe.status === 'VOIDED' ? 'voided' : shoe.status === 'CLOSED' ? 'pending' : 'resulted'}`}>{shoe.status}</span>
            </dd>
            <dt>Hand</dt>
            <dd data-testid="hand-number">{shoe.handNumber}</dd>
            <dt>Cards left</dt>
            <dd data-testid="cards-left">{shoe.cardsRemaining}</dd>
            <dt>Dealer</dt>
            <dd>{shoe.dealerId}</dd>
          </dl>
          <LastResults rounds={t.lastResults} />
          <div className="roads roads-mini" aria-label={`Roads of ${t.name}`} role="group">
            <figure>
              <figcaption>Bead plate</figcaption>
              <BeadPlate beads={t.beadPlate} size="mini" />
            </figure>
            <figure>
              <figcaption>Big road</figcaption>
              <BigRoad columns={t.bigRoad?.columns ?? []} leadingTies={t.bigRoad?.leadingTies ?? 0} size="mini" />
            </figure>
          </div>
        </>
      ) : (
        <Empty>No shoe opened at this table yet.</Empty>
      )}
    </section>
  );
}

/** Pit managers and auditors: every table with its latest shoe and roads, updated live. */
function Overview() {
  const query = useQuery({ queryKey: OVERVIEW_KEY, queryFn: () => unwrap(api.GET('/tables/overview')) });
  const onTable = useLiveInvalidation();
  const live = useLiveTables(onTable);
  return (
    <>
      <div className="head-row">
        <h1>Tables</h1>
        <LiveIndicator status={live} />
      </div>
      <QueryState query={query} what="tables">
        {(data) =>
          data.tables.length === 0 ? (
            <Empty>No table is configured (config/tables.json).</Empty>
          ) : (
            <div className="grid">
              {data.tables.map((t) => (
                <TableCard key={t.tableId} t={t} />
              ))}
            </div>
          )
        }
      </QueryState>
    </>
  );
}

/** Table devices and betting platforms: the tables' configuration only (`GET /tables`). */
function ConfigOnly() {
  const query = useQuery({ queryKey: ['tables', 'config'], queryFn: () => unwrap(api.GET('/tables')) });
  return (
    <>
      <h1>Tables</h1>
      <p className="muted">Roads, shoes and results need an audit role (pit manager or auditor); your role sees the tables’ configuration.</p>
      <QueryState query={query} what="tables">
        {(data) =>
          data.tables.length === 0 ? (
            <Empty>No table is configured.</Empty>
          ) : (
            <div className="grid">
              {data.tables.map((t) => (
                <ConfigCard key={t.tableId} t={t} />
              ))}
            </div>
          )
        }
      </QueryState>
    </>
  );
}

function ConfigCard({ t }: { t: TableConfig }) {
  const id = `cfg-${t.tableId}`;
  return (
    <section className="panel table-card" aria-labelledby={id} data-testid="table-card" data-table-id={t.tableId}>
      <h2 id={id}>{t.name}</h2>
      <div className="muted tiny">
        {t.tableId} · {t.variant} · {t.currency}
      </div>
      <div className="scroll">
        <table className="data">
          <caption className="muted tiny" style={{ textAlign: 'left' }}>
            Bet limits ({t.currency})
          </caption>
          <thead>
            <tr>
              <th scope="col">Bet</th>
              <th scope="col" className="num">
                Min
              </th>
              <th scope="col" className="num">
                Max
              </th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(t.limits).map(([code, l]) => (
              <tr key={code}>
                <td>{code}</td>
                <td className="num">{formatMinor(l.min, t.currency)}</td>
                <td className="num">{formatMinor(l.max, t.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Tables page (`/tables`, apps/console/README.md "Pages"): what the role may see of every table. */
export function TablesPage() {
  const { role } = usePrincipal();
  return CAN.readAudit(role) ? <Overview /> : <ConfigOnly />;
}
