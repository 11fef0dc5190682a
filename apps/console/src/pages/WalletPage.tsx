import { useState, type SubmitEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../api/schema';
import { api, ConsoleApiError, currentBearer, unwrap } from '../api/client';
import { Empty, ErrorMessage, QueryState } from '../components/States';
import { formatMinor } from '../lib/money';
import { CAN, usePrincipal, useSession } from '../session';
import { formatInstant } from '../lib/time';
import { zonedToIso } from '../lib/zoned';
import '../components/DataTable.css';

type Run = components['schemas']['WalletRunReport'];
type Item = components['schemas']['WalletItem'];

/** The statuses that are findings (everything but MATCHED), in the order the page lists them. */
const FINDINGS = ['MISSING_IN_WALLET', 'MISSING_IN_LEDGER', 'AMOUNT_DIFFERS', 'FIELDS_DIFFER', 'DUPLICATED'] as const;
const LABEL: Record<string, string> = {
  MATCHED: 'Matched',
  MISSING_IN_WALLET: 'Missing in the wallet',
  MISSING_IN_LEDGER: 'Missing in the ledger',
  AMOUNT_DIFFERS: 'Amount differs',
  FIELDS_DIFFER: 'Fields differ',
  DUPLICATED: 'Duplicated',
};
/** The fields whose column the upload may rename (`map.<field>`, docs/reports.md §4). */
const FIELDS = ['transactionId', 'roundId', 'betId', 'accountId', 'type', 'amount', 'currency', 'time'] as const;

/** The Content-Type of a wallet file by its name: `.jsonl`/`.ndjson` JSONL, else CSV. */
function contentTypeOf(name: string): string {
  return /\.(jsonl|ndjson)$/i.test(name) ? 'application/x-ndjson' : 'text/csv';
}

/** An API refusal with its first bad lines (`WALLET.FILE_INVALID`'s `details.problems`). */
function problemsOf(e: unknown): { line: number; problem: string }[] {
  const d = e instanceof ConsoleApiError ? (e.details as { problems?: unknown } | undefined) : undefined;
  return Array.isArray(d?.problems) ? (d!.problems as unknown[]).filter((p): p is { line: number; problem: string } => typeof p === 'object' && p !== null && 'line' in p).slice(0, 10) : [];
}

/** Uploads `file` as the raw body of `POST /reconciliation/wallet-files` (not JSON: openapi-fetch would serialise it). */
async function uploadFile(file: File, query: URLSearchParams): Promise<Run> {
  let res: Response;
  try {
    const token = currentBearer();
    res = await fetch(`/reconciliation/wallet-files?${query}`, {
      method: 'POST',
      headers: { 'content-type': contentTypeOf(file.name), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: file,
    });
  } catch (e) {
    throw new ConsoleApiError(0, 'UNREACHABLE', `the ledger API could not be reached (${(e as Error).message})`);
  }
  const body = (await res.json().catch(() => null)) as (Run & { error?: { code?: string; message?: string; details?: unknown } }) | null;
  if (!res.ok) throw new ConsoleApiError(res.status, body?.error?.code ?? `HTTP.${res.status}`, body?.error?.message ?? res.statusText, body?.error?.details);
  return body as Run;
}

/**
 * The upload's query from the form: the gaming days, or a time period instead (`from`, `to`: wall
 * times of the gaming day's zone, sent as instants), and the renamed columns given.
 */
function uploadQuery(f: FormData, timeZone: string): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of ['fromDay', 'toDay']) {
    const v = String(f.get(k) ?? '').trim();
    if (v) q.set(k, v);
  }
  for (const k of ['from', 'to']) {
    const v = zonedToIso(String(f.get(k) ?? ''), timeZone);
    if (v) q.set(k, v);
  }
  for (const field of FIELDS) {
    const v = String(f.get(`map.${field}`) ?? '').trim();
    if (v) q.set(`map.${field}`, v);
  }
  return q;
}

/** The upload form: the file, the gaming days it covers (default: those of its rows), the column names if they differ. */
function UploadForm({ busy, onSubmit }: { busy: boolean; onSubmit: (e: SubmitEvent<HTMLFormElement>) => void }) {
  return (
    <form className="filters" onSubmit={onSubmit} aria-label="Upload a wallet file">
      <div>
        <label htmlFor="w-file">Wallet file (CSV or JSONL)</label>
        <input id="w-file" name="file" type="file" accept=".csv,.jsonl,.ndjson,text/csv,application/x-ndjson" />
      </div>
      <div>
        <label htmlFor="w-from">From gaming day</label>
        <input id="w-from" name="fromDay" type="date" />
      </div>
      <div>
        <label htmlFor="w-to">To gaming day</label>
        <input id="w-to" name="toDay" type="date" />
      </div>
      <div>
        <label htmlFor="w-from-time">Or a time period from</label>
        <input id="w-from-time" name="from" type="datetime-local" />
      </div>
      <div>
        <label htmlFor="w-to-time">to (exclusive)</label>
        <input id="w-to-time" name="to" type="datetime-local" />
      </div>
      <details>
        <summary>Column names (if the file&apos;s differ)</summary>
        {FIELDS.map((field) => (
          <div key={field}>
            <label htmlFor={`w-map-${field}`}>{field}</label>
            <input id={`w-map-${field}`} name={`map.${field}`} placeholder={field} size={14} maxLength={64} />
          </div>
        ))}
      </details>
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Matching…' : 'Upload and match'}
      </button>
    </form>
  );
}

/**
 * Wallet matching (`/wallet`; docs/reports.md §4): upload the wallet's transaction file (CSV or
 * JSONL, the columns renamed if need be), then the run's summary per currency and gaming day and
 * its findings — missing in the wallet or the ledger, amounts or fields that differ, duplicates —
 * with money formatted from the API's exact strings. The run is in the URL (`?run=`); earlier runs
 * are listed below.
 */
export function WalletPage() {
  const [params, setParams] = useSearchParams();
  const runId = params.get('run');
  const { principal } = useSession();
  const canUpload = principal ? CAN.matchWallet(principal.role) : false;
  const timeZone = principal?.gamingDay.timeZone ?? 'UTC';
  const queries = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const runs = useQuery({ queryKey: ['wallet-runs'], queryFn: () => unwrap(api.GET('/reconciliation/wallet-files', { params: { query: { limit: '20' } } })) });

  async function submit(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const file = f.get('file');
    if (!(file instanceof File) || file.size === 0) {
      setError(new ConsoleApiError(400, 'WALLET.NO_FILE', 'choose a wallet file first'));
      return;
    }
    const q = uploadQuery(f, timeZone);
    setBusy(true);
    setError(null);
    try {
      const run = await uploadFile(file, q);
      queries.setQueryData(['wallet-run', run.runId], run);
      await queries.invalidateQueries({ queryKey: ['wallet-runs'] });
      setParams(new URLSearchParams({ run: run.runId }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="wallet-h">
      <h1 id="wallet-h">Wallet matching</h1>
      {canUpload ? null : <p className="muted">Uploading a wallet file is a pit manager&apos;s act (it stores a run); you can open the runs below.</p>}
      {canUpload ? <UploadForm busy={busy} onSubmit={(e) => void submit(e)} /> : null}
      {error ? <UploadError error={error} /> : null}
      {runId ? <RunView runId={runId} /> : <p className="muted">Upload a file to match it against the ledger, or open an earlier run below.</p>}
      <h2>Earlier runs</h2>
      <QueryState query={runs} what="the runs">
        {(page) =>
          page.items.length ? (
            <ul data-testid="wallet-runs">
              {page.items.map((r) => (
                <li key={r.runId}>
                  <Link to={`/wallet?run=${r.runId}`}>{formatInstant(r.createdAt, timeZone)}</Link> by {r.actorId}: {r.file.rows} rows, {r.itemCount - r.totals.MATCHED} finding(s)
                </li>
              ))}
            </ul>
          ) : (
            <Empty>No wallet file has been matched yet.</Empty>
          )
        }
      </QueryState>
    </section>
  );
}

function UploadError({ error }: { error: unknown }) {
  const problems = problemsOf(error);
  return (
    <div data-testid="upload-error">
      <ErrorMessage error={error} />
      {problems.length ? (
        <ul aria-label="Bad lines of the file">
          {problems.map((p, i) => (
            <li key={i}>
              line {p.line}: {p.problem}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** One run: its scope, totals, the summary per currency and gaming day, and its findings. */
function RunView({ runId }: { runId: string }) {
  const timeZone = usePrincipal().gamingDay.timeZone;
  const run = useQuery({ queryKey: ['wallet-run', runId], queryFn: () => unwrap(api.GET('/reconciliation/wallet-files/{runId}', { params: { path: { runId } } })) as Promise<Run> });
  const findings = useQuery({
    queryKey: ['wallet-findings', runId],
    queryFn: async () => {
      const pages = await Promise.all(FINDINGS.map((status) => unwrap(api.GET('/reconciliation/wallet-files/{runId}/items', { params: { path: { runId }, query: { status, limit: '1000' } } }))));
      return pages.flatMap((p) => (p as { items: Item[] }).items).sort((a, b) => a.seq - b.seq);
    },
  });
  return (
    <QueryState query={run} what="the run">
      {(r) => (
        <>
          <h2>Run {r.runId}</h2>
          <p className="muted" data-testid="wallet-scope">
            {r.file.format.toUpperCase()} file of {r.file.rows} transaction(s), SHA-256 {r.file.sha256.slice(0, 16)}…; scope{' '}
            {r.scope.source === 'period' ? `the period ${formatInstant(r.scope.from, timeZone)} to ${formatInstant(r.scope.to, timeZone)}` : `gaming days ${r.scope.fromDay} to ${r.scope.toDay}`}; uploaded by {r.actorId} at{' '}
            {formatInstant(r.createdAt, timeZone)}
          </p>
          <RunTotals r={r} />
          <RunSummary r={r} />
          <h2>Findings</h2>
          <QueryState query={findings} what="the findings">
            {(items) => (items.length ? <FindingsTable items={items} /> : <Empty>Every transaction matched.</Empty>)}
          </QueryState>
        </>
      )}
    </QueryState>
  );
}

/** A run's count of transactions per status. */
function RunTotals({ r }: { r: Run }) {
  return (
    <table className="data" data-testid="wallet-totals">
      <caption>Transactions by status</caption>
      <thead>
        <tr>
          {(['MATCHED', ...FINDINGS] as const).map((s) => (
            <th key={s} scope="col" className="num">
              {LABEL[s]}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <tr>
          {(['MATCHED', ...FINDINGS] as const).map((s) => (
            <td key={s} className="num" data-col={s}>
              {r.totals[s]}
            </td>
          ))}
        </tr>
      </tbody>
    </table>
  );
}

/** A run's counts and sums per currency and gaming day. */
function RunSummary({ r }: { r: Run }) {
  return (
    <div className="scroll" role="region" aria-label="Summary per currency and gaming day" tabIndex={0}>
      <table className="data" data-testid="wallet-summary">
        <caption>Per currency and gaming day</caption>
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <th scope="col">Gaming day</th>
            <th scope="col" className="num">
              Matched
            </th>
            <th scope="col" className="num">
              Findings
            </th>
            <th scope="col" className="num">
              Ledger amount
            </th>
            <th scope="col" className="num">
              Wallet amount
            </th>
          </tr>
        </thead>
        <tbody>
          {r.summary.map((s) => (
            <tr key={`${s.currency}|${s.gamingDay}`}>
              <th scope="row">{s.currency}</th>
              <td>{s.gamingDay}</td>
              <td className="num">{s.counts.MATCHED}</td>
              <td className="num">{FINDINGS.reduce((n, f) => n + s.counts[f], 0)}</td>
              <td className="num">{formatMinor(s.ledgerAmount, s.currency)}</td>
              <td className="num">{formatMinor(s.walletAmount, s.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A run's findings: the transactions that did not match, in file order. */
function FindingsTable({ items }: { items: readonly Item[] }) {
  return (
    <div className="scroll" role="region" aria-label="Findings" tabIndex={0}>
      <table className="data" data-testid="wallet-findings">
        <caption className="sr-only">Transactions that did not match</caption>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Transaction</th>
            <th scope="col">Type</th>
            <th scope="col">Account</th>
            <th scope="col">Gaming day</th>
            <th scope="col" className="num">
              Ledger
            </th>
            <th scope="col" className="num">
              Wallet
            </th>
            <th scope="col">Line</th>
            <th scope="col">Differs in</th>
          </tr>
        </thead>
        <tbody>
          {items.map((i) => (
            <tr key={i.seq} data-status={i.status} data-txn={i.transactionId}>
              <td>{LABEL[i.status] ?? i.status}</td>
              <td className="nowrap">{i.transactionId}</td>
              <td>{i.type}</td>
              <td>{i.accountId ?? '–'}</td>
              <td>{i.gamingDay}</td>
              <td className="num" data-col="ledger">
                {i.ledgerAmount === null ? '–' : formatMinor(i.ledgerAmount, i.currency, true)}
              </td>
              <td className="num" data-col="wallet">
                {i.walletAmount === null ? '–' : formatMinor(i.walletAmount, i.currency, true)}
              </td>
              <td>{i.walletLine ?? '–'}</td>
              <td>
                <Differences item={i} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The item fields whose value the wallet may give differently (`walletValues`, docs/reports.md §4); the amount has its own columns. */
const VALUE_FIELDS = { currency: 'Currency', type: 'Type', betId: 'Bet', roundId: 'Round', accountId: 'Account' } as const;

/** Where an item differs: the amount by name (its two values are in their columns); any other field with the ledger's and the wallet's value. */
function Differences({ item }: { item: Item }) {
  if (!item.differences.length) return <>–</>;
  return (
    <ul className="differences" data-testid="wallet-differences">
      {item.differences.map((f) =>
        f in VALUE_FIELDS ? (
          <li key={f} data-field={f}>
            {VALUE_FIELDS[f as keyof typeof VALUE_FIELDS]}: ledger <code>{item[f as keyof typeof VALUE_FIELDS] ?? '–'}</code>, wallet <code data-col="wallet-value">{item.walletValues[f as keyof typeof VALUE_FIELDS] ?? '–'}</code>
          </li>
        ) : (
          <li key={f} data-field={f}>
            {f === 'amount' ? 'Amount' : f}
          </li>
        ),
      )}
    </ul>
  );
}
