import { useId, useState, type SubmitEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { CAN, usePrincipal, type Principal } from '../session';
import { Empty, ErrorMessage, QueryState } from '../components/States';
import { formatMinor, sumMinor } from '../lib/money';
import { formatInstant } from '../lib/time';
import '../components/DataTable.css';

type DecisionView = components['schemas']['DecisionView'];
type DecisionAnswer = components['schemas']['DecisionAnswer'];
type AffectedBet = components['schemas']['AffectedBet'];
type DecisionStatus = DecisionView['status'];

/** The statuses of a decided decision (the "Decided" tab's filter). */
const DECIDED = ['APPROVED', 'REJECTED', 'EXPIRED'] as const;

const KIND_LABEL: Readonly<Record<string, string>> = {
  VOID_ROUND: 'Void a round',
  CORRECT_RESULT: 'Correct a round’s result',
  VOID_SHOE: 'Void a shoe',
  CORRECT_COMMENCEMENT: 'Correct the commencement card',
};

/** A management reason's bounds (docs/http-api.md "Reads and writes": 3–500 characters). */
export const REASON_MIN = 3;
export const REASON_MAX = 500;

/** Whether a remark or reason has an acceptable length (trimmed); an empty optional remark is fine. */
function reasonProblem(text: string, required: boolean): string | null {
  const t = text.trim();
  if (!t) return required ? `A reason is required (${REASON_MIN}–${REASON_MAX} characters).` : null;
  if (t.length < REASON_MIN || t.length > REASON_MAX) return `${REASON_MIN}–${REASON_MAX} characters (now ${t.length}).`;
  return null;
}

/** What an approval or rejection answered, shown after the list refreshed. */
interface Outcome {
  readonly decisionId: string;
  readonly action: 'approve' | 'reject';
  readonly answer?: DecisionAnswer;
  readonly error?: unknown;
}

/**
 * Approvals (`/approvals`; docs/domain-rules.md §6, docs/http-api.md "Management decisions (four eyes)"):
 * tab "Pending" lists the decisions waiting for a second pit manager with what each would change
 * (the bets and amounts affected); tab "Decided" the approved, rejected and expired ones. A pit
 * manager may approve (optional remark) or reject (reason required) another manager's request after
 * a confirmation; their own requests are marked and offer no action; an auditor sees the same lists
 * and no action at all. The API refuses anyway (`MANAGEMENT.SAME_APPROVER`, 403 for an auditor).
 * Filters (`tab`, `status`, `tableId`, `shoeId`, `requestedBy`) live in the URL.
 */
export function ApprovalsPage() {
  const principal = usePrincipal();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'decided' ? 'decided' : 'pending';
  const decidedStatus = DECIDED.find((s) => s === params.get('status')) ?? null;
  const filters = { tableId: params.get('tableId') ?? '', shoeId: params.get('shoeId') ?? '', requestedBy: params.get('requestedBy') ?? '' };
  const status: DecisionStatus | null = tab === 'pending' ? 'PENDING_APPROVAL' : decidedStatus;
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const query = {
    ...(status ? { status } : {}),
    ...(filters.tableId ? { tableId: filters.tableId } : {}),
    ...(filters.shoeId ? { shoeId: filters.shoeId } : {}),
    ...(filters.requestedBy ? { requestedBy: filters.requestedBy } : {}),
  };
  const decisions = useQuery({
    queryKey: ['decisions', query],
    queryFn: () => unwrap(api.GET('/decisions', { params: { query } })),
  });

  const tabLink = (t: 'pending' | 'decided') => {
    const p = new URLSearchParams(params);
    p.set('tab', t);
    if (t === 'pending') p.delete('status');
    return `?${p.toString()}`;
  };

  const mayDecide = CAN.decide(principal.role);
  return (
    <section aria-labelledby="approvals-h">
      <h1 id="approvals-h">Approvals</h1>
      <p className="muted">
        Voids and corrections take two pit managers: one requests, a different one approves or rejects.
        {mayDecide ? null : ` Your role (${principal.role}) sees the decisions read-only.`}
      </p>
      <ul className="tabs" aria-label="Decisions">
        <li>
          <Link to={tabLink('pending')} aria-current={tab === 'pending' ? 'page' : undefined}>
            Pending
          </Link>
        </li>
        <li>
          <Link to={tabLink('decided')} aria-current={tab === 'decided' ? 'page' : undefined}>
            Decided
          </Link>
        </li>
      </ul>
      <DecisionFilters key={params.toString()} tab={tab} decidedStatus={decidedStatus} filters={filters} setParams={setParams} />
      {outcome ? <OutcomeMessage outcome={outcome} onDismiss={() => setOutcome(null)} /> : null}
      <QueryState query={decisions} what="decisions">
        {(page) => <DecisionList decisions={page.decisions} tab={tab} principal={principal} onOutcome={setOutcome} />}
      </QueryState>
    </section>
  );
}

/** The filters form, its fields from the URL (keyed by it, so a new query resets them): Apply puts them in the URL, on the same tab. */
function DecisionFilters({
  tab,
  decidedStatus,
  filters,
  setParams,
}: {
  tab: 'pending' | 'decided';
  decidedStatus: DecisionStatus | null;
  filters: { tableId: string; shoeId: string; requestedBy: string };
  setParams: (next: URLSearchParams) => void;
}) {
  function applyFilters(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const p = new URLSearchParams();
    if (tab === 'decided') p.set('tab', 'decided');
    for (const k of ['status', 'tableId', 'shoeId', 'requestedBy']) {
      const v = String(f.get(k) ?? '').trim();
      if (v) p.set(k, v);
    }
    setParams(p);
  }

  return (
    <form className="filters" onSubmit={applyFilters} aria-label="Filter decisions">
      {tab === 'decided' ? (
        <div>
          <label htmlFor="f-status">Status</label>
          <select id="f-status" name="status" defaultValue={decidedStatus ?? ''}>
            <option value="">approved, rejected or expired</option>
            {DECIDED.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div>
        <label htmlFor="f-table">Table</label>
        <input id="f-table" name="tableId" defaultValue={filters.tableId} size={14} />
      </div>
      <div>
        <label htmlFor="f-shoe">Shoe</label>
        <input id="f-shoe" name="shoeId" defaultValue={filters.shoeId} size={22} />
      </div>
      <div>
        <label htmlFor="f-req">Requested by</label>
        <input id="f-req" name="requestedBy" defaultValue={filters.requestedBy} size={10} />
      </div>
      <button type="submit">Apply</button>
    </form>
  );
}

/** The decisions of the tab: the pending ones in the order the API lists them, the decided ones in reverse. */
function DecisionList({ decisions, tab, principal, onOutcome }: { decisions: readonly DecisionView[]; tab: 'pending' | 'decided'; principal: Principal; onOutcome: (o: Outcome) => void }) {
  const list = decisions.filter((d) => (tab === 'pending' ? d.status === 'PENDING_APPROVAL' : d.status !== 'PENDING_APPROVAL'));
  const ordered = tab === 'pending' ? list : [...list].reverse();
  if (!ordered.length) return <Empty>{tab === 'pending' ? 'No decision is waiting for approval.' : 'No decided decision matches these filters.'}</Empty>;
  return (
    <div className="cards" data-testid="decisions">
      <p className="muted" role="status">
        {ordered.length} {tab === 'pending' ? 'pending' : 'decided'} decision{ordered.length === 1 ? '' : 's'}
      </p>
      {ordered.map((d) => (
        <DecisionCard key={d.decisionId} decision={d} principal={principal} onOutcome={onOutcome} />
      ))}
    </div>
  );
}

function OutcomeMessage({ outcome, onDismiss }: { outcome: Outcome; onDismiss: () => void }) {
  const verb = outcome.action === 'approve' ? 'approval' : 'rejection';
  return (
    <div data-testid="outcome">
      {outcome.error ? (
        <>
          <p>
            The {verb} of decision <code>{outcome.decisionId}</code> was refused:
          </p>
          <ErrorMessage error={outcome.error} />
        </>
      ) : (
        <p className="notice" role="status">
          Decision <code>{outcome.decisionId}</code> is now <strong>{outcome.answer?.status}</strong>; the ledger recorded {countTypes(outcome.answer?.events ?? [])}.
        </p>
      )}
      <button type="button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}

/** `[DecisionApproved, RoundVoided, BetRefunded, BetRefunded]` → "DecisionApproved, RoundVoided, 2 × BetRefunded". */
function countTypes(events: readonly { type: string }[]): string {
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  if (!counts.size) return 'no event';
  return [...counts.entries()].map(([t, n]) => (n === 1 ? t : `${n} × ${t}`)).join(', ');
}

/** Totals of the affected bets' stakes and payouts after the decision, per currency (BigInt). */
function affectedTotals(bets: readonly AffectedBet[]): { currency: string; stake: string; payoutAfter: string; count: number }[] {
  const by = new Map<string, AffectedBet[]>();
  for (const b of bets) by.set(b.currency, [...(by.get(b.currency) ?? []), b]);
  return [...by.entries()].map(([currency, list]) => ({
    currency,
    count: list.length,
    stake: sumMinor(list.map((b) => b.stake)).toString(),
    payoutAfter: sumMinor(list.map((b) => b.payoutAfter)).toString(),
  }));
}

function DecisionCard({ decision: d, principal, onOutcome }: { decision: DecisionView; principal: Principal; onOutcome: (o: Outcome) => void }) {
  const tz = principal.gamingDay.timeZone;
  const own = d.requestedBy === principal.sub;
  const dealt = d.dealerIds.includes(principal.sub);
  const pending = d.status === 'PENDING_APPROVAL';
  const canAct = pending && CAN.decide(principal.role) && !own && !dealt;
  const titleId = useId();
  const roundIds = d.roundIds.length ? d.roundIds : d.proposal.roundId ? [d.proposal.roundId] : [];
  return (
    <article className="decision" aria-labelledby={titleId} data-testid={`decision-${d.decisionId}`}>
      <header>
        <h2 id={titleId} style={{ margin: 0 }}>
          {KIND_LABEL[d.kind] ?? d.kind}
        </h2>
        <span className={`badge ${pending ? 'pending' : d.status === 'APPROVED' ? 'resulted' : 'voided'}`}>{d.status}</span>
        <span className="muted">
          table {d.tableId} · shoe <Link to={`/shoes/${encodeURIComponent(d.shoeId)}`}>{d.shoeId}</Link>
        </span>
        {own && pending ? <span className="own">your request — another pit manager must approve</span> : null}
        {own && !pending ? <span className="own">your request</span> : null}
      </header>
      <DecisionFacts decision={d} roundIds={roundIds} tz={tz} />
      <DecisionBets decision={d} />
      {dealt && pending ? <p className="own">You dealt a round of this decision: you may not decide it.</p> : null}
      {canAct ? <DecideControls decision={d} onOutcome={onOutcome} /> : null}
    </article>
  );
}

/** What a decision is about and its history: rounds, corrected cards, reason, request, expiry, decision, steps. */
function DecisionFacts({ decision: d, roundIds, tz }: { decision: DecisionView; roundIds: readonly string[]; tz: string }) {
  const pending = d.status === 'PENDING_APPROVAL';
  return (
    <dl>
      <dt>Round{roundIds.length === 1 ? '' : 's'}</dt>
      <dd>
        {roundIds.length
          ? roundIds.map((r, i) => (
              <span key={r}>
                {i ? ', ' : ''}
                <Link to={`/shoes/${encodeURIComponent(d.shoeId)}/rounds/${encodeURIComponent(r)}`}>{r}</Link>
              </span>
            ))
          : 'the whole shoe'}
      </dd>
      {d.proposal.cards ? (
        <>
          <dt>Corrected cards</dt>
          <dd>
            <code>{d.proposal.cards.join(' ')}</code>
          </dd>
        </>
      ) : null}
      {d.proposal.card ? (
        <>
          <dt>Corrected card</dt>
          <dd>
            <code>{d.proposal.card}</code>
          </dd>
        </>
      ) : null}
      <dt>Reason</dt>
      <dd>{d.reason}</dd>
      <dt>Requested</dt>
      <dd>
        by <strong>{d.requestedBy}</strong> at {formatInstant(d.requestedAt, tz)}
      </dd>
      <dt>{pending ? 'Expires' : 'Expired at'}</dt>
      <dd>{formatInstant(d.expiresAt, tz)}</dd>
      {d.decidedBy || d.decidedAt ? (
        <>
          <dt>Decided</dt>
          <dd>
            {d.decidedBy ? (
              <>
                by <strong>{d.decidedBy}</strong>{' '}
              </>
            ) : null}
            {d.decidedAt ? `at ${formatInstant(d.decidedAt, tz)}` : null}
            {d.decisionReason ? ` — “${d.decisionReason}”` : null}
          </dd>
        </>
      ) : null}
      <dt>Steps</dt>
      <dd>
        <ol style={{ margin: 0, paddingLeft: 18 }}>
          {d.steps.map((s) => (
            <li key={s.eventId}>
              {s.type} by {s.actorId} ({s.actorRole}) at {formatInstant(s.recordedAt, tz)}
            </li>
          ))}
        </ol>
      </dd>
    </dl>
  );
}

/** The bets a decision would change (pending), or changed or would have changed (folded once decided). */
function DecisionBets({ decision: d }: { decision: DecisionView }) {
  return d.status === 'PENDING_APPROVAL' ? (
    <AffectedBets bets={d.affectedBets} caption={`Bets it would change (${d.affectedBets.length})`} />
  ) : (
    <details className="bets">
      <summary>
        Bets it {d.status === 'APPROVED' ? 'changed' : 'would have changed'} ({d.affectedBets.length}
        {affectedTotals(d.affectedBets)
          .map((t) => `; stakes ${formatMinor(t.stake, t.currency, true)}`)
          .join('')}
        )
      </summary>
      <AffectedBets bets={d.affectedBets} caption={`Bets of decision ${d.decisionId}`} />
    </details>
  );
}

function AffectedBets({ bets, caption }: { bets: readonly AffectedBet[]; caption: string }) {
  if (!bets.length) return <p className="muted">No bet is affected.</p>;
  return (
    <div className="scroll" role="region" aria-label={caption} tabIndex={0}>
      <table className="data">
        <caption className="caption">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Bet</th>
            <th scope="col">Account</th>
            <th scope="col">Bet code</th>
            <th scope="col">Effect</th>
            <th scope="col" className="num">
              Stake
            </th>
            <th scope="col" className="num">
              Paid after
            </th>
          </tr>
        </thead>
        <tbody>
          {bets.map((b) => (
            <tr key={b.betId}>
              <td>
                <code>{b.betId}</code>
              </td>
              <td>{b.accountId}</td>
              <td>{b.betCode}</td>
              <td>{b.effect}</td>
              <td className="num">{formatMinor(b.stake, b.currency, true)}</td>
              <td className="num">{formatMinor(b.payoutAfter, b.currency, true)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          {affectedTotals(bets).map((t) => (
            <tr key={t.currency}>
              <th scope="row" colSpan={4}>
                Total {t.currency} ({t.count} bet{t.count === 1 ? '' : 's'})
              </th>
              <td className="num">{formatMinor(t.stake, t.currency, true)}</td>
              <td className="num">{formatMinor(t.payoutAfter, t.currency, true)}</td>
            </tr>
          ))}
        </tfoot>
      </table>
    </div>
  );
}

/** Approve (optional remark) or reject (reason required), each after a confirmation step. */
function DecideControls({ decision, onOutcome }: { decision: DecisionView; onOutcome: (o: Outcome) => void }) {
  const client = useQueryClient();
  const [mode, setMode] = useState<'approve' | 'reject' | null>(null);
  const [text, setText] = useState('');
  const [touched, setTouched] = useState(false);
  const fieldId = useId();
  const hintId = useId();
  const mutation = useMutation({
    mutationFn: async (action: 'approve' | 'reject') => {
      const reason = text.trim();
      const path = { decisionId: decision.decisionId };
      return action === 'approve'
        ? unwrap(api.POST('/decisions/{decisionId}/approve', { params: { path }, body: reason ? { reason } : {} }))
        : unwrap(api.POST('/decisions/{decisionId}/reject', { params: { path }, body: { reason } }));
    },
    onSuccess: (answer, action) => onOutcome({ decisionId: decision.decisionId, action, answer }),
    onError: (error, action) => onOutcome({ decisionId: decision.decisionId, action, error }),
    onSettled: () => {
      setMode(null);
      setText('');
      void client.invalidateQueries({ queryKey: ['decisions'] });
      void client.invalidateQueries({ queryKey: ['settlements'] });
      void client.invalidateQueries({ queryKey: ['recall'] });
    },
  });
  const problem = mode ? reasonProblem(text, mode === 'reject') : null;
  if (!mode)
    return (
      <div className="actions">
        <button type="button" className="primary" onClick={() => setMode('approve')}>
          Approve…
        </button>
        <button type="button" className="danger" onClick={() => setMode('reject')}>
          Reject…
        </button>
      </div>
    );
  return (
    <form
      className="confirm"
      aria-label={mode === 'approve' ? 'Confirm the approval' : 'Confirm the rejection'}
      onSubmit={(e) => {
        e.preventDefault();
        setTouched(true);
        if (!problem) mutation.mutate(mode);
      }}
    >
      <p style={{ margin: 0 }}>
        {mode === 'approve'
          ? `Approve “${KIND_LABEL[decision.kind] ?? decision.kind}”: the ledger records it at once and changes the ${decision.affectedBets.length} bet(s) listed. This cannot be undone.`
          : 'Reject: nothing changes; the request is closed.'}
      </p>
      <label htmlFor={fieldId}>{mode === 'approve' ? 'Remark (optional)' : 'Reason for the rejection (required)'}</label>
      <textarea
        id={fieldId}
        rows={2}
        maxLength={REASON_MAX}
        value={text}
        required={mode === 'reject'}
        aria-invalid={touched && problem ? true : undefined}
        aria-describedby={hintId}
        onChange={(e) => setText(e.target.value)}
        // autofocus on purpose (jsx-a11y's no-autofocus would flag it): the confirmation was just opened by the user
        autoFocus
      />
      <span id={hintId} className={touched && problem ? 'bad' : 'muted'}>
        {touched && problem ? problem : `${REASON_MIN}–${REASON_MAX} characters${mode === 'approve' ? ', or none' : ''}.`}
      </span>
      <div className="actions">
        <button type="submit" className={mode === 'approve' ? 'primary' : 'danger'} disabled={mutation.isPending}>
          {mutation.isPending ? 'Sending…' : mode === 'approve' ? 'Confirm approval' : 'Confirm rejection'}
        </button>
        <button type="button" onClick={() => setMode(null)} disabled={mutation.isPending}>
          Cancel
        </button>
      </div>
    </form>
  );
}
