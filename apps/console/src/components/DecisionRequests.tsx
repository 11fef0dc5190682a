import { useState, type SubmitEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { usePrincipal } from '../session';
import { ErrorMessage, QueryState } from './States';
import { formatMinor } from '../lib/money';
import { formatInstant } from '../lib/time';
import { parseCard } from '../lib/cards';

/**
 * A pit manager's decision requests on the recall page (void the round, correct its result), and
 * the 202 answer each gets: nothing changes until a second pit manager approves it (docs/http-api.md
 * "Management decisions (four eyes)"; docs/domain-rules.md §6). Rendered for pit managers only.
 */

type Answer = components['schemas']['DecisionAnswer'];

/** Query key of a round's recall: under the shoe's key, so a live event of the shoe refreshes it. */
export const recallKey = (shoeId: string, roundId: string) => ['shoe', shoeId, 'recall', roundId] as const;

/** What a decision request answered (202), with the bets it would change (`GET /decisions/{id}`). */
function AnswerView({ answer }: { answer: Answer }) {
  const { gamingDay } = usePrincipal();
  const view = useQuery({
    queryKey: ['decision', answer.decisionId],
    queryFn: () => unwrap(api.GET('/decisions/{decisionId}', { params: { path: { decisionId: answer.decisionId } } })),
  });
  return (
    <div className="panel" role="status" data-testid="decision-answer">
      <p>
        Decision <code>{answer.decisionId}</code>: <span className="badge pending">{answer.status}</span>
        {answer.expiresAt ? <span className="muted tiny"> · expires {formatInstant(answer.expiresAt, gamingDay.timeZone)}</span> : null}. A second pit manager approves it on the <Link to="/approvals">Approvals</Link> page.
      </p>
      <QueryState query={view} what="the bets it would change">
        {(d) =>
          d.affectedBets.length === 0 ? (
            <p className="muted tiny">It changes no bet.</p>
          ) : (
            <div className="scroll">
              <table className="data">
                <caption className="tiny" style={{ textAlign: 'left' }}>
                  Bets it would change
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Bet</th>
                    <th scope="col">Code</th>
                    <th scope="col">Effect</th>
                    <th scope="col" className="num">
                      Stake
                    </th>
                    <th scope="col" className="num">
                      Payout after
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {d.affectedBets.map((b) => (
                    <tr key={b.betId}>
                      <td className="tiny">{b.betId}</td>
                      <td>{b.betCode}</td>
                      <td>{b.effect}</td>
                      <td className="num">{formatMinor(b.stake, b.currency)}</td>
                      <td className="num">{formatMinor(b.payoutAfter, b.currency)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryState>
    </div>
  );
}

/** Dealing order of the cards a correction gives (docs/domain-rules.md §2). */
const POSITIONS = ['1st · Player', '2nd · Banker', '3rd · Player', '4th · Banker', '5th · third card', '6th · Banker third card'] as const;

/** The pit manager's requests: void the round, or correct its result (each needs a second manager). */
export function Requests({ shoeId, roundId, cards }: { shoeId: string; roundId: string; cards: readonly string[] }) {
  const client = useQueryClient();
  const [voidReason, setVoidReason] = useState('');
  const [fixReason, setFixReason] = useState('');
  const [codes, setCodes] = useState<string[]>(() => POSITIONS.map((_, i) => cards[i] ?? ''));
  const done = () => client.invalidateQueries({ queryKey: recallKey(shoeId, roundId) });
  const voidReq = useMutation({
    mutationFn: () => unwrap(api.POST('/shoes/{shoeId}/rounds/{roundId}/void', { params: { path: { shoeId, roundId } }, body: { reason: voidReason.trim() } })),
    onSuccess: done,
  });
  const fixReq = useMutation({
    mutationFn: () => {
      const given = codes.map((c) => c.trim().toUpperCase());
      while (given.length && !given[given.length - 1]) given.pop();
      return unwrap(api.POST('/shoes/{shoeId}/rounds/{roundId}/result-corrections', { params: { path: { shoeId, roundId } }, body: { reason: fixReason.trim(), cards: given } }));
    },
    onSuccess: done,
  });
  const submit = (m: { mutate: () => void }) => (e: SubmitEvent) => {
    e.preventDefault();
    m.mutate();
  };
  return (
    <section aria-labelledby="req-h">
      <h2 id="req-h">Request a decision</h2>
      <p className="muted tiny">Each request waits for a second pit manager’s approval; nothing changes until then.</p>
      <div className="actions">
        <form className="panel" onSubmit={submit(voidReq)} aria-labelledby="void-h">
          <h3 id="void-h">Request void</h3>
          <label htmlFor="void-reason">Reason for the void</label>
          <textarea id="void-reason" rows={2} required value={voidReason} onChange={(e) => setVoidReason(e.target.value)} />
          <div>
            <button type="submit" className="danger" disabled={voidReq.isPending || !voidReason.trim()}>
              Request void
            </button>
          </div>
          {voidReq.error ? <ErrorMessage error={voidReq.error} /> : null}
          {voidReq.data ? <AnswerView answer={voidReq.data} /> : null}
        </form>
        <form className="panel" onSubmit={submit(fixReq)} aria-labelledby="fix-h">
          <h3 id="fix-h">Request result correction</h3>
          <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
            <legend className="tiny">Corrected cards in dealing order (codes like 9S, TH, KD; leave the unneeded third cards empty)</legend>
            <div className="card-inputs">
              {POSITIONS.map((p, i) => (
                <label key={p}>
                  {p}
                  <input
                    value={codes[i]}
                    maxLength={3}
                    aria-invalid={codes[i] !== '' && !parseCard(codes[i]) ? true : undefined}
                    onChange={(e) => setCodes((c) => c.map((v, j) => (j === i ? e.target.value : v)))}
                    data-testid={`card-${i + 1}`}
                  />
                </label>
              ))}
            </div>
          </fieldset>
          <label htmlFor="fix-reason">Reason for the correction</label>
          <textarea id="fix-reason" rows={2} required value={fixReason} onChange={(e) => setFixReason(e.target.value)} />
          <div>
            <button type="submit" className="primary" disabled={fixReq.isPending || !fixReason.trim()}>
              Request result correction
            </button>
          </div>
          {fixReq.error ? <ErrorMessage error={fixReq.error} /> : null}
          {fixReq.data ? <AnswerView answer={fixReq.data} /> : null}
        </form>
      </div>
    </section>
  );
}
