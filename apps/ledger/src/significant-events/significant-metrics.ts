import { catalogueCounter, catalogueGauge, catalogueHistogram } from '@ledger/metrics';
import { SEVERITIES, severityAtLeast } from '@ledger/significant-events';
import type { OpenSignificantCount } from '@ledger/event-store';

/** What the escalation gauges read at scrape: set by the module's {@link SignificantEventGauges}; null: nothing exported. */
let openCounts: (() => Promise<readonly OpenSignificantCount[]>) | null = null;

/** The severities a second person acknowledges (high, critical): each gets a series, 0 when none is open. */
const ACKED = SEVERITIES.filter((s) => severityAtLeast(s, 'high'));

/** The open counts now (none when no reader is set or the read fails: a scrape never fails on it). */
async function readOpenCounts(): Promise<readonly OpenSignificantCount[]> {
  return openCounts ? openCounts().catch(() => []) : [];
}

/**
 * The significant events' metrics (docs/architecture.md §8, docs/operations.md): raised per code and
 * severity, the raise's lag, the causes folded into a window's raise or dropped (flood bound), and
 * the escalation gauges `ledger_significant_events_unacknowledged` and
 * `ledger_significant_events_overdue` by severity (read from the event store at scrape, never from
 * the read model, which the projector's login writes), the read model's rows the event store
 * contradicted when served, the raises whose stream or id something else held (not raised),
 * whether the monitor consumes (`ledger_significant_monitor_up`) and the malformed records it passed over.
 */
export const significantMetrics = {
  raised: catalogueCounter('significantRaised'),
  raiseLag: catalogueHistogram('significantRaiseLag'),
  readModelMismatches: catalogueCounter('significantReadModelMismatches'),
  causesCoalesced: catalogueCounter('significantCausesCoalesced'),
  causesDropped: catalogueCounter('significantCausesDropped'),
  raiseConflicts: catalogueCounter('significantRaiseConflicts'),
  monitorUp: catalogueGauge('significantMonitorUp'),
  monitorMalformed: catalogueCounter('significantMonitorMalformed'),
  unacknowledged: catalogueGauge('significantUnacknowledged', async function () {
    const counts = await readOpenCounts();
    for (const s of ACKED) this.set({ severity: s }, counts.find((c) => c.severity === s)?.unacknowledged ?? 0);
  }),
  overdue: catalogueGauge('significantOverdue', async function () {
    const counts = await readOpenCounts();
    for (const s of ACKED) this.set({ severity: s }, counts.find((c) => c.severity === s)?.overdue ?? 0);
  }),
};

/** Points the escalation gauges at a reader of the open counts (the API's event store); null stops them. */
export function exportOpenCounts(read: (() => Promise<readonly OpenSignificantCount[]>) | null): void {
  openCounts = read;
}
