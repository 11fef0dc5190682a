import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { usePrincipal } from '../session';
import { Empty, ErrorMessage, Loading, QueryState } from '../components/States';
import { BeadPlate, BigRoad, DerivedRoadView } from '../components/Roads';
import { Hand } from '../components/PlayingCard';
import { useLiveTables } from '../lib/live';
import { formatInstant } from '../lib/time';
import { LiveIndicator, useLiveInvalidation } from '../components/Live';
import '../components/scoreboard.css';

type ShoeState = components['schemas']['ShoeStateResponse'];
type Roads = components['schemas']['RoadsResponse'];
type RoundRow = components['schemas']['RoundRow'];

/** Ranks in a shoe's card accounting, in the order a dealer counts them. */
export const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'] as const;
const RANK_NAME: Record<string, string> = { A: 'A', T: '10', J: 'J', Q: 'Q', K: 'K' };

/** Most rounds of one shoe the page reads (pages of 500 from `GET /shoes/{id}/rounds`). */
const MAX_PAGES = 10;

/**
 * Every round of a shoe by hand number, following `nextCursor` (a shoe has at most ~90 rounds:
 * one page in practice).
 */
async function allRounds(shoeId: string): Promise<RoundRow[]> {
  const out: RoundRow[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await unwrap(api.GET('/shoes/{shoeId}/rounds', { params: { path: { shoeId }, query: { limit: '500', cursor } } }));
    out.push(...page.items);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return out;
}

/** The five roads of the shoe, full size, each in a horizontally scrolling strip. */
function RoadsSection({ roads }: { roads: Roads }) {
  return (
    <section aria-labelledby="roads-h">
      <h2 id="roads-h">Roads</h2>
      <p className="muted tiny">
        {roads.roundsCounted} rounds counted (voided rounds do not count; corrected ones count with their corrected result). Pairs: red dot top left = banker pair, blue dot bottom right = player pair; a green slash on the big road
        = tie.
      </p>
      <div className="roads">
        <figure>
          <figcaption>Bead plate</figcaption>
          <div className="scroll">
            <BeadPlate beads={roads.beadPlate} />
          </div>
        </figure>
        <figure>
          <figcaption>Big road</figcaption>
          <div className="scroll">
            <BigRoad columns={roads.bigRoad.columns} leadingTies={roads.bigRoad.leadingTies} />
          </div>
        </figure>
        <div className="roads-derived">
          <figure>
            <figcaption>Big eye boy</figcaption>
            <div className="scroll">
              <DerivedRoadView kind="bigEyeBoy" columns={roads.bigEyeBoy.columns} />
            </div>
          </figure>
          <figure>
            <figcaption>Small road</figcaption>
            <div className="scroll">
              <DerivedRoadView kind="smallRoad" columns={roads.smallRoad.columns} />
            </div>
          </figure>
          <figure>
            <figcaption>Cockroach pig</figcaption>
            <div className="scroll">
              <DerivedRoadView kind="cockroachPig" columns={roads.cockroachPig.columns} />
            </div>
          </figure>
        </div>
      </div>
    </section>
  );
}

/** Card accounting of the shoe (`GET /shoes/{id}/state`): counts and remaining by rank. */
function Accounting({ s }: { s: ShoeState }) {
  const rows: [string, number, string][] = [
    ['Dealt to rounds', s.cardsDealt, 'dealt'],
    ['Burned', s.cardsBurned, 'burned'],
    ['Drawn, not needed', s.cardsUnneeded, 'unneeded'],
    ['Exposed', s.cardsExposed, 'exposed'],
    ['Dropped', s.cardsDropped, 'dropped'],
    ['Out of the shoe', s.cardsOut, 'out'],
    ['Remaining', s.cardsRemaining, 'remaining'],
  ];
  return (
    <section aria-labelledby="acct-h">
      <h2 id="acct-h">Card accounting</h2>
      <div className="accounting">
        <table className="data" data-testid="card-accounting">
          <caption className="muted tiny" style={{ textAlign: 'left' }}>
            {s.decks} decks ({s.decks * 52} cards)
          </caption>
          <tbody>
            {rows.map(([label, n, key]) => (
              <tr key={key}>
                <th scope="row">{label}</th>
                <td className="num" data-count={key}>
                  {n}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="scroll">
          <table className="data" data-testid="by-rank">
            <caption className="muted tiny" style={{ textAlign: 'left' }}>
              By rank
            </caption>
            <thead>
              <tr>
                <th scope="col">Rank</th>
                <th scope="col" className="num">
                  Out
                </th>
                <th scope="col" className="num">
                  Remaining
                </th>
              </tr>
            </thead>
            <tbody>
              {RANKS.map((r) => (
                <tr key={r} data-rank={r}>
                  <th scope="row">{RANK_NAME[r] ?? r}</th>
                  <td className="num" data-out>
                    {s.cardsOutByRank[r] ?? 0}
                  </td>
                  <td className="num" data-remaining>
                    {s.cardsRemainingByRank[r] ?? 0}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}

/** A round's status as badges: voided, corrected (with its revision), resulted, open. */
export function RoundBadges({ status, revision }: { status: string; revision?: number }) {
  if (status === 'VOIDED') return <span className="badge voided">voided</span>;
  if (status === 'CORRECTED') return <span className="badge corrected">corrected{revision && revision > 1 ? ` (rev. ${revision})` : ''}</span>;
  if (status === 'RESULTED') return <span className="badge resulted">resulted</span>;
  return <span className="badge pending">{status.toLowerCase()}</span>;
}

function Rounds({ shoeId, timeZone }: { shoeId: string; timeZone: string }) {
  const query = useQuery({ queryKey: ['shoe', shoeId, 'rounds'], queryFn: () => allRounds(shoeId) });
  return (
    <section aria-labelledby="rounds-h">
      <h2 id="rounds-h">Rounds</h2>
      <QueryState query={query} what="rounds">
        {(rounds) =>
          rounds.length === 0 ? (
            <Empty>No round has been opened in this shoe yet.</Empty>
          ) : (
            <div className="scroll">
              <table className="data" data-testid="rounds">
                <thead>
                  <tr>
                    <th scope="col" className="num">
                      Hand
                    </th>
                    <th scope="col">Status</th>
                    <th scope="col">Player</th>
                    <th scope="col">Banker</th>
                    <th scope="col" className="num">
                      Totals P–B
                    </th>
                    <th scope="col">Winner</th>
                    <th scope="col">Dealer</th>
                    <th scope="col">Resulted</th>
                    <th scope="col">Recall</th>
                  </tr>
                </thead>
                <tbody>
                  {rounds.map((r) => (
                    <tr key={r.roundId} data-round-id={r.roundId} data-status={r.status} className={r.status === 'VOIDED' ? 'is-voided' : undefined}>
                      <td className="num">{r.handNumber}</td>
                      <td>
                        <RoundBadges status={r.status} revision={r.currentRevision} />
                        {r.lastHand ? <span className="badge pending"> last hand</span> : null}
                        {r.voidCause ? <div className="muted tiny">{r.voidCause}</div> : null}
                      </td>
                      <td>
                        <Hand cards={r.playerCards} label={`Player's cards, hand ${r.handNumber}`} size="sm" />
                      </td>
                      <td>
                        <Hand cards={r.bankerCards} label={`Banker's cards, hand ${r.handNumber}`} size="sm" />
                      </td>
                      <td className="num nowrap">
                        {r.playerTotal ?? '–'}–{r.bankerTotal ?? '–'}
                      </td>
                      <td className={`outcome ${r.winner && r.status !== 'VOIDED' ? `winner-${r.winner}` : ''}`}>
                        {r.status === 'VOIDED' ? <span className="visually-hidden">void: </span> : null}
                        {r.winner ?? '–'}
                        {r.playerPair ? <div className="tiny">player pair</div> : null}
                        {r.bankerPair ? <div className="tiny">banker pair</div> : null}
                        {r.isNatural ? <div className="tiny">natural</div> : null}
                      </td>
                      <td className="tiny">{r.dealingDealerId}</td>
                      <td className="tiny nowrap">{formatInstant(r.resultedAt, timeZone, false)}</td>
                      <td>
                        <Link to={`/shoes/${encodeURIComponent(shoeId)}/rounds/${encodeURIComponent(r.roundId)}`} aria-label={`Recall of hand ${r.handNumber}`}>
                          Recall
                        </Link>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryState>
    </section>
  );
}

/** Shoe page (`/shoes/:shoeId`): the five roads, card accounting and the rounds, live. */
export function ShoePage() {
  const { shoeId = '' } = useParams();
  const { gamingDay } = usePrincipal();
  const state = useQuery({ queryKey: ['shoe', shoeId, 'state'], queryFn: () => unwrap(api.GET('/shoes/{shoeId}/state', { params: { path: { shoeId } } })) });
  const roads = useQuery({ queryKey: ['shoe', shoeId, 'roads'], queryFn: () => unwrap(api.GET('/shoes/{shoeId}/roads', { params: { path: { shoeId } } })) });
  const onTable = useLiveInvalidation();
  const live = useLiveTables((e) => {
    if (e.shoeId === shoeId || e.shoeId === null) onTable(e);
  });
  const s = state.data;
  if (state.error)
    return (
      <>
        <h1>Shoe {shoeId}</h1>
        <ErrorMessage error={state.error} />
        <p>
          <Link to="/tables">Back to the tables</Link>
        </p>
      </>
    );
  return (
    <>
      <div className="head-row">
        <h1>Shoe {shoeId}</h1>
        <LiveIndicator status={live} />
      </div>
      {state.isPending ? <Loading what="shoe" /> : null}
      {s ? (
        <dl className="facts" data-testid="shoe-facts">
          <dt>Table</dt>
          <dd>
            {s.tableId} · {s.variant} · {s.currency} · {s.decks} decks{s.virtualTable ? ' · virtual' : ''}
          </dd>
          <dt>Status</dt>
          <dd>
            <span className={`badge ${s.status === 'VOIDED' ? 'voided' : s.status === 'CLOSED' ? 'pending' : 'resulted'}`}>{s.status}</span>
            {s.voidReason ? <span className="muted"> {s.voidReason}</span> : null}
          </dd>
          <dt>Hand</dt>
          <dd data-testid="hand-number">{s.handNumber}</dd>
          <dt>Dealer</dt>
          <dd>
            {s.dealerId}
            {s.openingDealerId !== s.dealerId ? <span className="muted"> (opened by {s.openingDealerId})</span> : null}
          </dd>
          <dt>Opened</dt>
          <dd>{formatInstant(s.openedAt, gamingDay.timeZone)}</dd>
          {s.closedAt ? (
            <>
              <dt>Closed</dt>
              <dd>{formatInstant(s.closedAt, gamingDay.timeZone)}</dd>
            </>
          ) : null}
          <dt>Commencement</dt>
          <dd>
            {s.commencementCard ?? '–'}
            {s.commencementBurnCount !== null ? ` (burn ${s.commencementBurnsDone} of ${s.commencementBurnCount})` : ''}
            {s.commencementCorrections ? `, corrected ${s.commencementCorrections}×` : ''}
          </dd>
          <dt>Cut card</dt>
          <dd>{s.cutCardDrawn ? `drawn ${s.cutCardTiming ? s.cutCardTiming.toLowerCase().replace(/_/g, ' ') : ''}` : 'not yet'}</dd>
        </dl>
      ) : null}
      <QueryState query={roads} what="roads">
        {(r) => <RoadsSection roads={r} />}
      </QueryState>
      {s ? <Accounting s={s} /> : null}
      <Rounds shoeId={shoeId} timeZone={gamingDay.timeZone} />
    </>
  );
}
