import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { CAN, usePrincipal } from '../session';
import { Empty, ErrorMessage, QueryState } from '../components/States';
import { Hand } from '../components/PlayingCard';
import { RoundBadges } from './ShoePage';
import { formatMinor } from '../lib/money';
import { formatInstant } from '../lib/time';
import { handLabel, parseCard } from '../lib/cards';
import { recallKey, Requests } from '../components/DecisionRequests';
import '../components/scoreboard.css';

type Recall = components['schemas']['RecallResponse'];
type Revision = components['schemas']['RoundRevision'];
type RecallEvent = components['schemas']['RecallEvent'];
type RecallBet = components['schemas']['RecallBet'];
type Decision = components['schemas']['RecallDecision'];
type EvidenceView = components['schemas']['EvidenceView'];

/**
 * The video evidence of an event or a decision (docs/reports.md §7): camera, SMPTE timecode and
 * segment reference, each when given; nothing when there is none.
 */
export function Evidence({ evidence }: { evidence: EvidenceView | null | undefined }) {
  if (!evidence) return null;
  const parts: Array<[string, string]> = [];
  if (evidence.cameraId) parts.push(['camera', evidence.cameraId]);
  if (evidence.timecode) parts.push(['timecode', evidence.timecode]);
  if (evidence.segmentRef) parts.push(['segment', evidence.segmentRef]);
  return (
    <div className="tiny evidence" data-testid="evidence">
      <span aria-hidden="true">🎥 </span>
      <span className="muted">evidence:</span>{' '}
      {parts.map(([k, v], i) => (
        <span key={k} data-field={k}>
          {i > 0 ? ' · ' : ''}
          {k} <code>{v}</code>
        </span>
      ))}
    </div>
  );
}

/** An amount of minor units or a dash (a settlement's null winnings before it is settled). */
function money(minor: string | null | undefined, currency: string): string {
  return minor === null || minor === undefined ? '–' : formatMinor(minor, currency);
}

/**
 * A one-line reading of an event's data for the event list: the card, the bet and stake, the
 * decision… Amounts stay strings of minor units (formatted, never parsed to a number).
 */
function summarize(e: RecallEvent, currency: string): string {
  const d = e.data as Record<string, unknown>;
  const parts: string[] = [];
  const str = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : null);
  const card = str('card');
  if (card) parts.push(`${parseCard(card)?.label ?? card}${str('position') ? ` to ${str('position')}` : ''}`);
  if (Array.isArray(d.cards) && d.cards.every((c) => typeof c === 'string')) parts.push(`cards ${handLabel(d.cards as string[])}`);
  if (str('betId')) parts.push(`bet ${str('betId')}`);
  if (str('betCode')) parts.push(str('betCode')!);
  if (str('stake')) parts.push(`stake ${formatMinor(str('stake')!, str('currency') ?? currency)}`);
  if (str('payout')) parts.push(`payout ${formatMinor(str('payout')!, str('currency') ?? currency)}`);
  const outcome = d.outcome as Record<string, unknown> | undefined;
  if (outcome && typeof outcome.winner === 'string') parts.push(`${outcome.winner} ${String(outcome.playerTotal ?? '–')}–${String(outcome.bankerTotal ?? '–')}`);
  if (str('winner')) parts.push(str('winner')!);
  if (str('cause')) parts.push(`cause ${str('cause')}`);
  if (str('decisionId')) parts.push(`decision ${str('decisionId')}`);
  if (e.reason) parts.push(`“${e.reason}”`);
  return parts.join(' · ');
}

/** Every revision side by side, one column each (resulted → corrected → voided). */
function Revisions({ revisions, current, timeZone }: { revisions: readonly Revision[]; current: number; timeZone: string }) {
  if (revisions.length === 0) return <Empty>The round has no result yet.</Empty>;
  return (
    <div className="revisions" data-testid="revisions">
      {revisions.map((r) => (
        <section key={r.revision} className="panel" aria-labelledby={`rev-${r.revision}`} data-testid="revision" data-kind={r.kind}>
          <h3 id={`rev-${r.revision}`}>
            <span className={`badge ${r.kind.toLowerCase()}`}>{r.kind}</span> revision {r.revision}
            {r.revision === current ? <span className="muted tiny"> (in force)</span> : null}
          </h3>
          <dl>
            {r.kind === 'VOIDED' ? (
              <>
                <dt>Void cause</dt>
                <dd>{r.voidCause ?? '–'}</dd>
                {r.causedBy ? (
                  <>
                    <dt>Caused by</dt>
                    <dd className="tiny">
                      <code>{r.causedBy}</code>
                    </dd>
                  </>
                ) : null}
              </>
            ) : (
              <>
                <dt>Player</dt>
                <dd>
                  <Hand cards={r.playerCards} label={`Player's cards, revision ${r.revision}`} size="sm" />
                </dd>
                <dt>Banker</dt>
                <dd>
                  <Hand cards={r.bankerCards} label={`Banker's cards, revision ${r.revision}`} size="sm" />
                </dd>
                <dt>Totals</dt>
                <dd>
                  Player {r.playerTotal ?? '–'} · Banker {r.bankerTotal ?? '–'}
                </dd>
                <dt>Winner</dt>
                <dd className={r.winner ? `winner-${r.winner}` : ''}>
                  {r.winner ?? '–'}
                  {r.playerPair ? ', player pair' : ''}
                  {r.bankerPair ? ', banker pair' : ''}
                  {r.isNatural ? ', natural' : ''}
                </dd>
              </>
            )}
            <dt>By</dt>
            <dd data-testid="revision-actor">
              {r.actorId} <span className="muted">({r.actorRole})</span>
            </dd>
            <dt>Requested by</dt>
            <dd>{r.actingManagerId ?? '–'}</dd>
            <dt>Approver</dt>
            <dd data-testid="revision-approver">{r.approverId ?? '–'}</dd>
            <dt>Reason</dt>
            <dd data-testid="revision-reason">{r.reason ?? '–'}</dd>
            <dt>When</dt>
            <dd>{formatInstant(r.occurredAt, timeZone)}</dd>
          </dl>
        </section>
      ))}
    </div>
  );
}

function Events({ events, currency, timeZone }: { events: readonly RecallEvent[]; currency: string; timeZone: string }) {
  if (events.length === 0) return <Empty>No event recorded for this round.</Empty>;
  return (
    <div className="scroll">
      <table className="data" data-testid="events">
        <thead>
          <tr>
            <th scope="col" className="num">
              Version
            </th>
            <th scope="col">Time</th>
            <th scope="col">Type</th>
            <th scope="col">Actor</th>
            <th scope="col">Role</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.eventId} data-type={e.type}>
              <td className="num">{e.streamVersion}</td>
              <td className="nowrap tiny">{formatInstant(e.occurredAt, timeZone)}</td>
              <td>{e.type}</td>
              <td>
                {e.actorId}
                {e.approverId && e.approverId !== e.actorId ? <div className="tiny muted">approver {e.approverId}</div> : null}
                {e.actingManagerId ? <div className="tiny muted">requested by {e.actingManagerId}</div> : null}
              </td>
              <td className="tiny">{e.actorRole}</td>
              <td className="tiny">
                {summarize(e, currency)}
                <Evidence evidence={e.evidence} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Bets({ bets, timeZone }: { bets: readonly RecallBet[]; timeZone: string }) {
  if (bets.length === 0) return <Empty>No bet was placed on this round.</Empty>;
  return (
    <>
      {bets.map((b) => (
        <section key={b.betId} className="bet" aria-labelledby={`bet-${b.betId}`} data-testid="bet" data-bet-id={b.betId}>
          <h3 id={`bet-${b.betId}`}>
            {b.betCode} · {formatMinor(b.stake, b.currency, true)} · account {b.accountId} <span className="muted tiny">({b.betId})</span>{' '}
            <span className={`badge ${b.status === 'REFUNDED' ? 'voided' : b.status === 'RESETTLED' ? 'corrected' : 'resulted'}`}>{b.status}</span>
          </h3>
          {b.history.length === 0 ? (
            <p className="muted tiny">Not settled yet.</p>
          ) : (
            <div className="scroll">
              <table className="data" data-testid="bet-history">
                <thead>
                  <tr>
                    <th scope="col" className="num">
                      #
                    </th>
                    <th scope="col">Kind</th>
                    <th scope="col">Result</th>
                    <th scope="col" className="num">
                      Stake
                    </th>
                    <th scope="col" className="num">
                      Winnings
                    </th>
                    <th scope="col" className="num">
                      Payout
                    </th>
                    <th scope="col" className="num">
                      Net
                    </th>
                    <th scope="col">By</th>
                    <th scope="col">Reason</th>
                    <th scope="col">Time</th>
                  </tr>
                </thead>
                <tbody>
                  {b.history.map((h) => (
                    <tr key={h.seq} data-kind={h.kind}>
                      <td className="num">{h.seq}</td>
                      <td>{h.kind}</td>
                      <td>{h.result ?? '–'}</td>
                      <td className="num">{money(h.stake, b.currency)}</td>
                      <td className="num">{money(h.winnings, b.currency)}</td>
                      <td className="num">{money(h.payout, b.currency)}</td>
                      <td className="num">{money(h.net, b.currency)}</td>
                      <td className="tiny">
                        {h.actorId} ({h.actorRole}){h.approverId ? `, approver ${h.approverId}` : ''}
                      </td>
                      <td className="tiny">{h.reason ?? '–'}</td>
                      <td className="tiny nowrap">{formatInstant(h.occurredAt, timeZone)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ))}
    </>
  );
}

function Decisions({ decisions, timeZone }: { decisions: readonly Decision[]; timeZone: string }) {
  if (decisions.length === 0) return <Empty>No management decision concerns this round.</Empty>;
  return (
    <div className="scroll">
      <table className="data" data-testid="decisions">
        <thead>
          <tr>
            <th scope="col">Decision</th>
            <th scope="col">Status</th>
            <th scope="col">Requested by</th>
            <th scope="col">Reason</th>
            <th scope="col">Decided by</th>
            <th scope="col">Decision reason</th>
            <th scope="col">Evidence</th>
          </tr>
        </thead>
        <tbody>
          {decisions.map((d) => (
            <tr key={d.decisionId}>
              <td>
                {d.kind}
                <div className="tiny muted">
                  <code>{d.decisionId}</code>
                </div>
              </td>
              <td>
                <span className={`badge ${d.status === 'APPROVED' ? 'resulted' : d.status === 'PENDING_APPROVAL' ? 'pending' : 'voided'}`}>{d.status}</span>
              </td>
              <td>
                {d.requestedBy}
                <div className="tiny muted">{formatInstant(d.requestedAt, timeZone)}</div>
              </td>
              <td className="tiny">{d.reason}</td>
              <td>
                {d.decidedBy ?? '–'}
                {d.decidedAt ? <div className="tiny muted">{formatInstant(d.decidedAt, timeZone)}</div> : null}
              </td>
              <td className="tiny">{d.decisionReason ?? '–'}</td>
              <td data-testid="decision-evidence">
                {d.evidence || d.decisionEvidence ? null : <span className="tiny muted">–</span>}
                <Evidence evidence={d.evidence} />
                {d.decisionEvidence ? (
                  <div className="tiny muted">
                    decided on: <Evidence evidence={d.decisionEvidence} />
                  </div>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Words for the anchor status of the round's stream (docs/anchors.md). */
const ANCHOR_WORDS: Record<string, string> = {
  ANCHORED: 'anchored: the latest signed checkpoint naming this shoe verifies, and the ledger still holds its head',
  NOT_YET_ANCHORED: 'not anchored yet: the relay signs a checkpoint once the events are published',
  MISMATCH: 'MISMATCH',
  UNVERIFIABLE: 'cannot be checked',
};

/** The hash chain of the round's stream and its anchor status, as the API checked them. */
function Chain({ recall }: { recall: Recall }) {
  const c = recall.chain;
  const a = recall.anchor;
  const { timeZone } = usePrincipal().gamingDay;
  return (
    <div className="panel" data-testid="chain" data-ok={String(c.ok)}>
      <p>
        Hash chain: {c.ok ? <span className="ok">ok</span> : <span className="bad">{c.problems.length} problem(s)</span>} · {c.eventsChecked} events checked since version {c.verifiedFrom} · head version {c.headVersion}
      </p>
      {c.problems.length ? (
        <ul>
          {c.problems.map((p, i) => (
            <li key={i} className="bad">
              {p.kind} at version {p.streamVersion ?? '–'}: {p.detail}
            </li>
          ))}
        </ul>
      ) : null}
      <p data-testid="anchor" data-status={a.status}>
        Anchor: <span className={a.status === 'ANCHORED' ? 'ok' : a.status === 'NOT_YET_ANCHORED' ? 'muted' : 'bad'}>{ANCHOR_WORDS[a.status] ?? a.status}</span>
        {a.seq !== null ? (
          <>
            {' '}
            · checkpoint {a.seq} signed {formatInstant(a.createdAt, timeZone)} by key <code className="tiny">{a.keyId}</code> · version {a.anchoredVersion}
          </>
        ) : null}
        {a.problem ? <span className="bad"> · {a.problem}</span> : null}
      </p>
    </div>
  );
}

/** Round recall page (`/shoes/:shoeId/rounds/:roundId`): the round's whole story from the API. */
export function RecallPage() {
  const { shoeId = '', roundId = '' } = useParams();
  const { role, gamingDay } = usePrincipal();
  const tz = gamingDay.timeZone;
  const query = useQuery({
    queryKey: recallKey(shoeId, roundId),
    queryFn: () => unwrap(api.GET('/shoes/{shoeId}/rounds/{roundId}/recall', { params: { path: { shoeId, roundId } } })),
  });
  if (query.error)
    return (
      <>
        <h1>Recall of round {roundId}</h1>
        <ErrorMessage error={query.error} />
        <p>
          <Link to={`/shoes/${encodeURIComponent(shoeId)}`}>Back to shoe {shoeId}</Link>
        </p>
      </>
    );
  return (
    <QueryState query={query} what="the round's recall">
      {(data) => {
        const r = data.round;
        return (
          <>
            <p className="tiny">
              <Link to={`/shoes/${encodeURIComponent(shoeId)}`}>← Shoe {shoeId}</Link>
            </p>
            <h1>
              Recall of hand {r.handNumber} <RoundBadges status={r.status} revision={r.currentRevision} />
            </h1>
            <dl className="facts">
              <dt>Round</dt>
              <dd>
                <code>{r.roundId}</code>
              </dd>
              <dt>Table</dt>
              <dd>
                {r.tableId} · {r.currency} · {r.paytableRef}
              </dd>
              <dt>Dealer</dt>
              <dd>{r.dealingDealerId}</dd>
              <dt>Gaming day</dt>
              <dd>{r.gamingDay.slice(0, 10)}</dd>
              <dt>Opened</dt>
              <dd>{formatInstant(r.openedAt, tz)}</dd>
              <dt>In force</dt>
              <dd>
                {r.status === 'VOIDED' ? (
                  <>voided ({r.voidCause ?? '–'})</>
                ) : (
                  <>
                    <Hand cards={r.playerCards} label="Player's cards in force" size="sm" /> {r.playerTotal ?? '–'} – <Hand cards={r.bankerCards} label="Banker's cards in force" size="sm" /> {r.bankerTotal ?? '–'}{' '}
                    <span className={r.winner ? `winner-${r.winner}` : ''}>{r.winner ?? ''}</span>
                  </>
                )}
              </dd>
            </dl>
            <h2>Revisions</h2>
            <Revisions revisions={data.revisions} current={r.currentRevision} timeZone={tz} />
            <h2>Decision chain</h2>
            <Decisions decisions={data.decisions} timeZone={tz} />
            <h2>Bets and their settlement history</h2>
            <Bets bets={data.bets} timeZone={tz} />
            <h2>Events in original order</h2>
            <Events events={data.events} currency={r.currency} timeZone={tz} />
            <h2>Integrity</h2>
            <Chain recall={data} />
            {CAN.requestDecision(role) && r.status !== 'VOIDED' && r.status !== 'OPEN' ? <Requests shoeId={shoeId} roundId={roundId} cards={r.cards} /> : null}
          </>
        );
      }}
    </QueryState>
  );
}
