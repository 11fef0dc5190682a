import type { components } from '../api/schema';
import { Empty } from '../components/States';
import { DataTable } from '../components/DataTable';

type Skew = components['schemas']['TableClockSkewDto'];
type Fairness = components['schemas']['TableDayFairnessDto'];

/** A signed skew in ms as `+1 234 ms` / `−20 000 ms` (positive: the device was ahead of the ledger). */
function signedMs(ms: number): string {
  return `${ms > 0 ? '+' : ms < 0 ? '−' : ''}${Math.abs(ms).toLocaleString('en-GB').replace(/,/g, ' ')} ms`;
}

/**
 * Per table of a close (layout 2 on; docs/reports.md §2): the largest device clock skew of the day,
 * signed in ms, with its device and position. Nothing for a close of layout 1.
 */
export function CloseClockSkew({ items }: { items: readonly Skew[] | undefined }) {
  if (!items) return <Empty>This close was signed before closes stated the clock skew (layout 1).</Empty>;
  const columns = [
    { id: 'table', header: 'Table', accessorKey: 'tableId' },
    { id: 'events', header: 'Device events', accessorKey: 'deviceEvents', meta: { numeric: true } },
    { id: 'skew', header: 'Largest skew (occurredAt − recordedAt)', accessorFn: (s: Skew) => (s.largest ? signedMs(s.largest.skewMs) : '–'), meta: { numeric: true } },
    { id: 'device', header: 'Device', accessorFn: (s: Skew) => s.largest?.deviceId ?? '–' },
    { id: 'position', header: 'Position', accessorFn: (s: Skew) => s.largest?.globalPosition ?? '–', meta: { numeric: true } },
  ];
  return <DataTable data={items} columns={columns} caption="Device clock skew per table" getRowId={(s) => s.tableId} sortable={false} testId="close-clock-skew" />;
}

/**
 * Per table of a close (layout 3 on; docs/fairness.md §8): the fairness verdict of its gaming day from
 * the events — each statistic's test, p-value and whether it alerted — and the alerts raised that day.
 */
export function CloseFairness({ items }: { items: readonly Fairness[] | undefined }) {
  if (!items) return <Empty>This close was signed before closes stated the fairness verdict (layouts 1 and 2).</Empty>;
  const rows = items.flatMap((f) =>
    f.statistics.length === 0 ? [{ key: `${f.tableId}|none`, f, statistic: '–', method: '–', pValue: '–', alert: false }] : f.statistics.map((s) => ({ key: `${f.tableId}|${s.statistic}`, f, ...s })),
  );
  type R = (typeof rows)[number];
  const columns = [
    { id: 'table', header: 'Table', accessorFn: (r: R) => r.f.tableId },
    { id: 'rounds', header: 'Rounds', accessorFn: (r: R) => r.f.rounds, meta: { numeric: true } },
    { id: 'statistic', header: 'Statistic', accessorKey: 'statistic' },
    { id: 'method', header: 'Test', accessorKey: 'method' },
    { id: 'p', header: 'p-value', accessorKey: 'pValue', meta: { numeric: true } },
    { id: 'alpha', header: 'α', accessorFn: (r: R) => r.f.alpha, meta: { numeric: true } },
    { id: 'alert', header: 'Verdict', accessorFn: (r: R) => (r.alert ? 'ALERT' : 'within bounds') },
    { id: 'raised', header: 'Alerts raised that day', accessorFn: (r: R) => r.f.alertsRaised, meta: { numeric: true } },
  ];
  return <DataTable data={rows} columns={columns} caption="Fairness verdict per table" getRowId={(r) => r.key} sortable={false} testId="close-fairness" />;
}
