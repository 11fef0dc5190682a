import { useId, useMemo, useState, type SubmitEvent, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMutation, useQuery } from '@tanstack/react-query';
import { createColumnHelper, type ColumnDef } from '@tanstack/react-table';
import type { components } from '../api/schema';
import { api, unwrap } from '../api/client';
import { usePrincipal } from '../session';
import { Empty, ErrorMessage, Loading } from '../components/States';
import { bigintSorting, DataTable } from '../components/DataTable';
import { formatInstant } from '../lib/time';
import { isoToZoned, zonedToIso } from '../lib/zoned';
import '../components/DataTable.css';

type AuditEvent = components['schemas']['AuditEvent'];
type AuditDecision = components['schemas']['AuditDecision'];
type AccessLogEntry = components['schemas']['AccessLogEntry'];
type ChainVerification = components['schemas']['ChainVerification'];

/** The event types of the catalogue (libs/events/src/catalogue.ts), offered as suggestions of the `type` filter. */
const EVENT_TYPES = [
  'ShoeOpened',
  'CommencementCardDrawn',
  'CommencementCorrected',
  'CardBurned',
  'RoundOpened',
  'BetPlaced',
  'BettingClosed',
  'CardDealt',
  'CardExposed',
  'CardDropped',
  'UnneededCardDrawn',
  'CutCardDrawn',
  'RoundResulted',
  'BetSettled',
  'RoundVoided',
  'BetRefunded',
  'ResultCorrected',
  'BetResettled',
  'ShoeVoided',
  'ShoeClosed',
  'DealerChanged',
  'DecisionRequested',
  'DecisionApproved',
  'DecisionRejected',
  'DecisionExpired',
] as const;

const TABS = [
  { key: 'events', label: 'Events' },
  { key: 'decisions', label: 'Decisions' },
  { key: 'access', label: 'Access log' },
  { key: 'chain', label: 'Chain' },
] as const;
type Tab = (typeof TABS)[number]['key'];

/** The `limit` choices of a page (the API takes 1..1000). */
const LIMITS = ['25', '50', '100', '250', '1000'];

/** The URL's non-empty values of `keys` (the API's query of a tab). */
function pick(params: URLSearchParams, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = params.get(k)?.trim();
    if (v) out[k] = v;
  }
  return out;
}

/**
 * Audit (`/audit`; docs/http-api.md "Reads and writes"): tabs **Events** (`GET /audit/events` with every
 * filter: table, shoe, round, type, actor, time range in the gaming day's zone, limit; keyset cursor
 * paging), **Decisions** (`GET /audit/decisions`, the same filters), **Access log**
 * (`GET /audit/access-log`: who looked at what) and **Chain** (`GET /shoes/{id}/chain` or
 * `/tables/{id}/chain` on demand). Reads only: an auditor sees everything and no write is offered.
 * The tab, filters and cursor are in the URL.
 */
export function AuditPage() {
  const [params] = useSearchParams();
  const tab: Tab = TABS.find((t) => t.key === params.get('tab'))?.key ?? 'events';
  return (
    <section aria-labelledby="audit-h">
      <h1 id="audit-h">Audit</h1>
      <ul className="tabs" aria-label="Audit views">
        {TABS.map((t) => (
          <li key={t.key}>
            <Link to={`?tab=${t.key}`} aria-current={tab === t.key ? 'page' : undefined}>
              {t.label}
            </Link>
          </li>
        ))}
      </ul>
      {tab === 'events' || tab === 'decisions' ? <EventsTab kind={tab} key={tab} /> : tab === 'access' ? <AccessTab /> : <ChainTab />}
    </section>
  );
}

/** A filter form whose values go to the URL (ISO instants for the zone's wall times), resetting the cursor. */
function FilterForm({ fields, label }: { fields: readonly FieldSpec[]; label: string }) {
  const [params, setParams] = useSearchParams();
  const { gamingDay } = usePrincipal();
  const listId = useId();
  function submit(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const p = new URLSearchParams();
    p.set('tab', params.get('tab') ?? 'events');
    for (const s of fields) {
      const raw = String(f.get(s.key) ?? '').trim();
      if (!raw) continue;
      const v = s.kind === 'time' ? zonedToIso(raw, gamingDay.timeZone) : raw;
      if (v) p.set(s.key, v);
    }
    setParams(p);
  }
  return (
    <form className="filters" onSubmit={submit} aria-label={label} key={params.toString()}>
      {fields.map((s) => (
        <div key={s.key}>
          <label htmlFor={`${listId}-${s.key}`}>{s.label}</label>
          {s.kind === 'limit' ? (
            <select id={`${listId}-${s.key}`} name={s.key} defaultValue={params.get(s.key) ?? '100'}>
              {LIMITS.map((l) => (
                <option key={l}>{l}</option>
              ))}
            </select>
          ) : (
            <input
              id={`${listId}-${s.key}`}
              name={s.key}
              type={s.kind === 'time' ? 'datetime-local' : 'text'}
              step={s.kind === 'time' ? 1 : undefined}
              list={s.kind === 'type' ? `${listId}-types` : undefined}
              size={s.size ?? 14}
              defaultValue={s.kind === 'time' ? isoToZoned(params.get(s.key), gamingDay.timeZone) : (params.get(s.key) ?? '')}
              aria-describedby={s.kind === 'time' ? `${listId}-tz` : undefined}
            />
          )}
        </div>
      ))}
      <datalist id={`${listId}-types`}>
        {EVENT_TYPES.map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>
      <button type="submit" className="primary">
        Search
      </button>
      <span id={`${listId}-tz`} className="muted">
        Times in {gamingDay.timeZone} (the gaming day’s zone); from inclusive, to exclusive.
      </span>
    </form>
  );
}

interface FieldSpec {
  readonly key: string;
  readonly label: string;
  readonly kind?: 'time' | 'type' | 'limit';
  readonly size?: number;
}

const EVENT_FIELDS: readonly FieldSpec[] = [
  { key: 'tableId', label: 'Table' },
  { key: 'shoeId', label: 'Shoe', size: 22 },
  { key: 'roundId', label: 'Round', size: 24 },
  { key: 'type', label: 'Type', kind: 'type', size: 18 },
  { key: 'actorId', label: 'Actor', size: 12 },
  { key: 'from', label: 'From', kind: 'time' },
  { key: 'to', label: 'To', kind: 'time' },
  { key: 'limit', label: 'Per page', kind: 'limit' },
];

const ACCESS_FIELDS: readonly FieldSpec[] = [
  { key: 'actorId', label: 'Actor', size: 12 },
  { key: 'from', label: 'From', kind: 'time' },
  { key: 'to', label: 'To', kind: 'time' },
  { key: 'limit', label: 'Per page', kind: 'limit' },
];

/** "Next page" / "First page" of a keyset-paged list: the cursor lives in the URL. */
function Pager({ nextCursor, count }: { nextCursor: string | null; count: number }) {
  const [params, setParams] = useSearchParams();
  const onFirst = !params.get('cursor');
  const go = (cursor: string | null) => {
    const p = new URLSearchParams(params);
    if (cursor) p.set('cursor', cursor);
    else p.delete('cursor');
    setParams(p);
  };
  return (
    <nav className="toolbar" aria-label="Pages">
      <span className="muted" role="status">
        {count} row{count === 1 ? '' : 's'} on this page{onFirst ? ' (first page)' : ''}
        {nextCursor ? '' : ' — the last page'}
      </span>
      <button type="button" onClick={() => go(null)} disabled={onFirst}>
        First page
      </button>
      <button type="button" onClick={() => go(nextCursor)} disabled={!nextCursor}>
        Next page
      </button>
    </nav>
  );
}

/** A show/hide button for a row's details (the event data as JSON). */
function DetailsToggle({ id, open, toggle }: { id: string; open: boolean; toggle: (id: string) => void }) {
  return (
    <button type="button" aria-expanded={open} onClick={() => toggle(id)} aria-label={`${open ? 'Hide' : 'Show'} details of ${id}`}>
      {open ? 'Hide' : 'Details'}
    </button>
  );
}

function useExpanded(): [Set<string>, (id: string) => void] {
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  return [
    open,
    (id) =>
      setOpen((s) => {
        const n = new Set(s);
        if (n.has(id)) n.delete(id);
        else n.add(id);
        return n;
      }),
  ];
}

function roundLink(shoeId: string, roundId: string | null): ReactNode {
  if (!roundId) return '–';
  return <Link to={`/shoes/${encodeURIComponent(shoeId)}/rounds/${encodeURIComponent(roundId)}`}>{roundId}</Link>;
}

function tableLink(tableId: string): ReactNode {
  return <Link to={`/audit?tab=events&tableId=${encodeURIComponent(tableId)}`}>{tableId}</Link>;
}

/** Where an event happened: its table, and its shoe and round when it has them (a ledger-wide event, a gaming day's close, has neither). */
function Where({ tableId, shoeId, roundId }: { tableId: string; shoeId: string | null; roundId: string | null }) {
  return (
    <>
      {tableLink(tableId)}
      {shoeId !== null ? (
        <>
          <br />
          <Link to={`/shoes/${encodeURIComponent(shoeId)}`}>{shoeId}</Link>
        </>
      ) : null}
      {roundId && shoeId !== null ? (
        <>
          <br />
          {roundLink(shoeId, roundId)}
        </>
      ) : null}
    </>
  );
}

function EventsTab({ kind }: { kind: 'events' | 'decisions' }) {
  const [params] = useSearchParams();
  const { gamingDay } = usePrincipal();
  const tz = gamingDay.timeZone;
  const query = pick(params, ['tableId', 'shoeId', 'roundId', 'type', 'actorId', 'from', 'to', 'limit', 'cursor']);
  type R = AuditEvent | AuditDecision;
  const list = useQuery({
    queryKey: ['audit', kind, query],
    queryFn: (): Promise<{ items: R[]; nextCursor: string | null }> => (kind === 'events' ? unwrap(api.GET('/audit/events', { params: { query } })) : unwrap(api.GET('/audit/decisions', { params: { query } }))),
  });
  const [open, toggle] = useExpanded();
  const columns = useMemo(() => {
    const h = createColumnHelper<R>();
    return [
      h.accessor('globalPosition', { header: 'Position', sortingFn: bigintSorting as never, meta: { numeric: true } }),
      h.accessor('occurredAt', { header: `Occurred (${tz})`, meta: { className: 'nowrap' }, cell: (c) => formatInstant(c.getValue(), tz) }),
      h.accessor('type', { header: 'Type', cell: (c) => <code>{c.getValue()}</code> }),
      h.accessor('actorId', { header: 'Actor' }),
      h.accessor('actorRole', { header: 'Role', meta: { className: 'nowrap' } }),
      h.accessor('tableId', {
        header: 'Table / shoe / round',
        meta: { className: 'where' },
        cell: (c) => <Where tableId={c.getValue()} shoeId={c.row.original.shoeId} roundId={c.row.original.roundId} />,
      }),
      h.accessor((r) => r.reason ?? '', { id: 'reason', header: 'Reason', meta: { className: 'reason' }, cell: (c) => c.getValue() || '–' }),
      h.accessor((r) => (r.approverId ? `${r.actingManagerId ?? '?'} → ${r.approverId}` : ''), { id: 'managers', header: 'Requested → approved', cell: (c) => c.getValue() || '–' }),
      h.display({ id: 'details', header: 'Details', cell: (c) => <DetailsToggle id={c.row.original.eventId} open={open.has(c.row.original.eventId)} toggle={toggle} /> }),
    ] as ColumnDef<R, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- mixed column value types
  }, [tz, open, toggle]);
  return (
    <>
      <p className="muted">
        {kind === 'events' ? 'Every recorded event, in global order (filters match GET /audit/events).' : 'Voids (management and automatic), result corrections, shoe voids and commencement corrections, in global order.'}
      </p>
      <FilterForm fields={EVENT_FIELDS} label={kind === 'events' ? 'Search events' : 'Search decisions'} />
      {list.isPending ? (
        <Loading what={kind} />
      ) : list.error ? (
        <ErrorMessage error={list.error} />
      ) : !list.data.items.length ? (
        <>
          <Empty>No {kind === 'events' ? 'event' : 'decision'} matches these filters.</Empty>
          <Pager nextCursor={null} count={0} />
        </>
      ) : (
        <>
          <Pager nextCursor={list.data.nextCursor} count={list.data.items.length} />
          <DataTable<R>
            testId={`audit-${kind}`}
            caption={kind === 'events' ? 'Events' : 'Decisions'}
            captionHidden
            data={list.data.items as R[]}
            columns={columns}
            getRowId={(r) => r.eventId}
            expanded={open}
            renderDetail={(r) => (
              <pre className="json" aria-label={`Event ${r.eventId}`}>
                {JSON.stringify(
                  {
                    eventId: r.eventId,
                    recordedAt: formatInstant(r.recordedAt, tz),
                    compensates: r.compensates,
                    ...('hash' in r ? { streamId: r.streamId, streamVersion: r.streamVersion, correlationId: r.correlationId, causationId: r.causationId, hash: r.hash } : {}),
                    data: r.data,
                  },
                  null,
                  2,
                )}
              </pre>
            )}
          />
          <Pager nextCursor={list.data.nextCursor} count={list.data.items.length} />
        </>
      )}
    </>
  );
}

function AccessTab() {
  const [params] = useSearchParams();
  const { gamingDay } = usePrincipal();
  const tz = gamingDay.timeZone;
  const query = pick(params, ['actorId', 'from', 'to', 'limit', 'cursor']);
  const list = useQuery({ queryKey: ['audit', 'access', query], queryFn: () => unwrap(api.GET('/audit/access-log', { params: { query } })) });
  const columns = useMemo(() => {
    const h = createColumnHelper<AccessLogEntry>();
    return [
      h.accessor('id', { header: 'No.', sortingFn: bigintSorting as never, meta: { numeric: true } }),
      h.accessor('at', { header: `At (${tz})`, meta: { className: 'nowrap' }, cell: (c) => formatInstant(c.getValue(), tz) }),
      h.accessor('actorId', { header: 'Actor' }),
      h.accessor('actorRole', { header: 'Role' }),
      h.accessor('route', { header: 'Looked at', cell: (c) => <code>{c.getValue()}</code> }),
      h.accessor((r) => JSON.stringify(r.params), { id: 'params', header: 'With', cell: (c) => <code>{c.getValue()}</code> }),
      h.accessor((r) => r.resultCount ?? null, { id: 'resultCount', header: 'Rows', meta: { numeric: true }, cell: (c) => c.getValue() ?? '–' }),
      h.accessor('status', { header: 'Status', meta: { numeric: true } }),
    ] as ColumnDef<AccessLogEntry, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- mixed column value types
  }, [tz]);
  return (
    <>
      <p className="muted">Who looked at what: every read of the audit and query API, with its filters, oldest first.</p>
      <FilterForm fields={ACCESS_FIELDS} label="Search the access log" />
      {list.isPending ? (
        <Loading what="the access log" />
      ) : list.error ? (
        <ErrorMessage error={list.error} />
      ) : !list.data.items.length ? (
        <Empty>No read matches these filters.</Empty>
      ) : (
        <>
          <Pager nextCursor={list.data.nextCursor} count={list.data.items.length} />
          <DataTable testId="audit-access" caption="Access log" captionHidden data={list.data.items} columns={columns} getRowId={(r) => r.id} />
          <Pager nextCursor={list.data.nextCursor} count={list.data.items.length} />
        </>
      )}
    </>
  );
}

/** The result of a chain verification: intact or broken, what was checked, the problems found. */
function ChainResult({ data, variables }: { data: ChainVerification; variables: { scope: 'shoe' | 'table'; id: string } | undefined }) {
  return (
    <div className="panel" data-testid="chain-result" role="status">
      <p style={{ marginTop: 0 }}>
        {data.ok ? <span className="ok">Chain intact</span> : <span className="bad">Chain broken</span>} — {data.streamsChecked} stream{data.streamsChecked === 1 ? '' : 's'}, {data.eventsChecked} events checked
        {variables ? ` (${variables.scope} ${variables.id})` : ''}.
      </p>
      {data.problems.length ? (
        <div className="scroll" role="region" aria-label="Problems found" tabIndex={0}>
          <table className="data">
            <caption className="caption">Problems found ({data.problems.length})</caption>
            <thead>
              <tr>
                <th scope="col">Kind</th>
                <th scope="col">Stream</th>
                <th scope="col" className="num">
                  Version
                </th>
                <th scope="col">Event</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {data.problems.map((p, i) => (
                <tr key={i}>
                  <td className="bad">{p.kind}</td>
                  <td>{p.streamId ?? '–'}</td>
                  <td className="num">{p.streamVersion ?? '–'}</td>
                  <td>{p.eventId ?? '–'}</td>
                  <td>{p.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted" style={{ marginBottom: 0 }}>
          No problem: every event’s hash and link to the previous one checked.
        </p>
      )}
    </div>
  );
}

function ChainTab() {
  const [params, setParams] = useSearchParams();
  const scope = params.get('scope') === 'table' ? 'table' : 'shoe';
  const [target, setTarget] = useState(params.get('id') ?? '');
  const idField = useId();
  const verify = useMutation({
    mutationFn: (v: { scope: 'shoe' | 'table'; id: string }): Promise<ChainVerification> =>
      v.scope === 'shoe' ? unwrap(api.GET('/shoes/{shoeId}/chain', { params: { path: { shoeId: v.id } } })) : unwrap(api.GET('/tables/{tableId}/chain', { params: { path: { tableId: v.id } } })),
  });
  const tables = useQuery({ queryKey: ['tables'], queryFn: () => unwrap(api.GET('/tables')) });
  return (
    <>
      <p className="muted">Re-verifies the hash chain of a shoe’s stream, or of every shoe of a table, on the ledger (docs/guarantees.md §8).</p>
      <form
        className="filters"
        aria-label="Verify a chain"
        onSubmit={(e) => {
          e.preventDefault();
          const id = target.trim();
          if (!id) return;
          setParams(new URLSearchParams({ tab: 'chain', scope, id }));
          verify.mutate({ scope, id });
        }}
      >
        <fieldset className="checks">
          <legend>Chain of</legend>
          {(['shoe', 'table'] as const).map((s) => (
            <label key={s}>
              <input type="radio" name="scope" value={s} checked={scope === s} onChange={() => setParams(new URLSearchParams({ tab: 'chain', scope: s, ...(target ? { id: target } : {}) }))} />a {s}
            </label>
          ))}
        </fieldset>
        <div>
          <label htmlFor={idField}>{scope === 'shoe' ? 'Shoe id' : 'Table id'}</label>
          <input id={idField} value={target} onChange={(e) => setTarget(e.target.value)} size={30} list={scope === 'table' ? `${idField}-tables` : undefined} required />
          <datalist id={`${idField}-tables`}>
            {(tables.data?.tables ?? []).map((t) => (
              <option key={t.tableId} value={t.tableId} />
            ))}
          </datalist>
        </div>
        <button type="submit" className="primary" disabled={verify.isPending}>
          {verify.isPending ? 'Verifying…' : 'Verify chain'}
        </button>
      </form>
      {verify.isPending ? <Loading what="the chain verification" /> : null}
      {verify.error ? <ErrorMessage error={verify.error} /> : null}
      {verify.data ? <ChainResult data={verify.data} variables={verify.variables} /> : null}
    </>
  );
}
