import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components, paths } from '../api/schema';
import { api, unwrap } from '../api/client';
import { usePrincipal } from '../session';
import { Empty, ErrorMessage, QueryState } from '../components/States';
import { DataTable } from '../components/DataTable';
import { formatInstant } from '../lib/time';
import '../components/DataTable.css';

type SignificantEvent = components['schemas']['SignificantEventView'];
type Query = Omit<NonNullable<paths['/significant-events']['get']['parameters']['query']>, 'limit' | 'cursor'>;

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;

/** The filters of the list: severity, acknowledged or not, table, dealer, code (docs/significant-events.md). */
function Filters({ onApply }: { onApply: (q: Query) => void }) {
  const [q, setQ] = useState<Query>({ acknowledged: 'false' });
  const set = (k: keyof Query) => (e: { target: { value: string } }) => setQ({ ...q, [k]: e.target.value || undefined });
  function submit(e: { preventDefault(): void }) {
    e.preventDefault();
    onApply(q);
  }
  return (
    <form className="filters" onSubmit={submit} aria-label="Filters">
      <label>
        Severity{' '}
        <select value={q.severity ?? ''} onChange={set('severity')}>
          <option value="">any</option>
          {SEVERITIES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label>
        Acknowledged{' '}
        <select value={q.acknowledged ?? ''} onChange={set('acknowledged')}>
          <option value="">either</option>
          <option value="false">not yet</option>
          <option value="true">yes</option>
        </select>
      </label>
      <label>
        Table <input value={q.tableId ?? ''} onChange={set('tableId')} size={14} />
      </label>
      <label>
        Dealer <input value={q.dealerId ?? ''} onChange={set('dealerId')} size={12} />
      </label>
      <label>
        Code <input value={q.code ?? ''} onChange={set('code')} size={22} placeholder="catalogue code" />
      </label>
      <button type="submit">Show</button>
    </form>
  );
}

/** Acknowledge one significant event with a reason, as the signed-in pit manager or auditor (refused by the API when they had a hand in it). */
function Acknowledge({ event }: { event: SignificantEvent }) {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const mutation = useMutation({
    mutationFn: () => unwrap(api.POST('/significant-events/{significantEventId}/acknowledgements', { params: { path: { significantEventId: event.significantEventId } }, body: { reason } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['significant-events'] }),
  });
  if (event.acknowledgedAt) return <span className="muted">by {event.acknowledgedBy}</span>;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        mutation.mutate();
      }}
      aria-label={`Acknowledge ${event.code}`}
    >
      <input value={reason} onChange={(e) => setReason(e.target.value)} placeholder="reason" aria-label="Reason" minLength={3} maxLength={500} required size={18} />
      <button type="submit" disabled={mutation.isPending}>
        Acknowledge
      </button>
      {mutation.error ? <ErrorMessage error={mutation.error} /> : null}
    </form>
  );
}

/** `/significant-events`: the significant events, newest first, with filters and the acknowledgement (`GET /significant-events`). */
export function SignificantEventsPage() {
  const { gamingDay: rule } = usePrincipal();
  const [query, setQuery] = useState<Query>({ acknowledged: 'false' });
  const list = useQuery({ queryKey: ['significant-events', query], queryFn: () => unwrap(api.GET('/significant-events', { params: { query: { ...query, limit: '200' } } })), refetchInterval: 2000 });
  const columns = [
    { id: 'raisedAt', header: 'Raised at', accessorFn: (e: SignificantEvent) => formatInstant(e.raisedAt, rule.timeZone), meta: { className: 'nowrap' } },
    { id: 'severity', header: 'Severity', cell: ({ row }: { row: { original: SignificantEvent } }) => <span className={`badge ${row.original.severity}`}>{row.original.severity}</span> },
    { id: 'code', header: 'Code', accessorKey: 'code' },
    { id: 'table', header: 'Table', accessorFn: (e: SignificantEvent) => e.tableId ?? '–' },
    { id: 'round', header: 'Shoe / round', accessorFn: (e: SignificantEvent) => [e.shoeId, e.roundId].filter(Boolean).join(' / ') || '–' },
    { id: 'dealer', header: 'Dealer', accessorFn: (e: SignificantEvent) => e.dealerId ?? '–' },
    { id: 'actor', header: 'Raised by the act of', accessorKey: 'actorId' },
    {
      id: 'details',
      header: 'Details',
      accessorFn: (e: SignificantEvent) =>
        Object.entries(e.details)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
    },
    { id: 'ack', header: 'Acknowledgement', enableSorting: false, cell: ({ row }: { row: { original: SignificantEvent } }) => <Acknowledge event={row.original} /> },
  ];
  return (
    <>
      <h1>Significant events</h1>
      <p className="muted">Voids, corrections, large wins, clock skews, early closes… raised as ledger facts (docs/significant-events.md). Those of severity high or above wait for a second person&apos;s acknowledgement.</p>
      <Filters onApply={setQuery} />
      <QueryState query={list} what="significant events">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No significant event matches.</Empty>
          ) : (
            <DataTable data={d.items as SignificantEvent[]} columns={columns} caption="Significant events" getRowId={(e) => e.significantEventId} testId="significant-events" />
          )
        }
      </QueryState>
    </>
  );
}
