import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as load } from 'yaml';
import { parser } from '@prometheus-io/lezer-promql';
import { METRICS, catalogueMarkdown, inCatalogue, type MetricSpec } from '@ledger/metrics';
import { typedDashboard } from './dashboard-typed';

// docs/architecture.md §8: the dashboard and the alert rules name only catalogue metrics, in valid PromQL.
const root = join(__dirname, '..', '..');

/** Parses `expr`; throws on a syntax error; returns the metric names its selectors name. */
function metricNames(expr: string): string[] {
  const tree = parser.parse(expr);
  const names: string[] = [];
  let error: number | null = null;
  tree.iterate({
    enter(n) {
      if (n.type.isError) error = n.from;
      if (n.name === 'Identifier' && n.node.parent?.name === 'VectorSelector') names.push(expr.slice(n.from, n.to));
    },
  });
  if (error !== null) throw new Error(`PromQL syntax error at ${error}: ${expr}`);
  return names;
}

const exprs = typedDashboard.panels!.flatMap((p) => ('targets' in p ? (p.targets ?? []) : []).map((t) => (t as { expr?: string }).expr ?? ''));
const alerts = load(readFileSync(join(root, 'docker/prometheus/alerts.yml'), 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
const rules = alerts.groups.flatMap((g) => g.rules);

describe('metric catalogue', () => {
  it('names every metric ledger_*, with help, and no label that would carry money or ids (device and table ids only on a metric with a series cap)', () => {
    for (const m of Object.values(METRICS) as MetricSpec[]) {
      expect(m.name).toMatch(/^ledger_[a-z_]+$/);
      expect(m.help.length).toBeGreaterThan(10);
      for (const l of m.labels) {
        expect(l).not.toMatch(/amount|stake|payout|payload|account|bet|round|shoe/i);
        if (/id$/i.test(l)) expect([m.name, l, m.maxSeries !== undefined && ['device_id', 'table_id'].includes(l)]).toEqual([m.name, l, true]);
      }
    }
    expect(new Set(Object.values(METRICS).map((m) => m.name)).size).toBe(Object.keys(METRICS).length);
  });

  it('is the table in docs/architecture.md §8', () => {
    expect(readFileSync(join(root, 'docs/architecture.md'), 'utf8')).toContain(catalogueMarkdown());
  });
});

describe('Grafana dashboard', () => {
  it('has unique panel ids and a PromQL target on every panel', () => {
    const ids = typedDashboard.panels!.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(exprs.length).toBeGreaterThanOrEqual(typedDashboard.panels!.length);
    expect(exprs.every((e) => e.length > 0)).toBe(true);
  });

  it.each(exprs)('target %s parses and names catalogue metrics only', (expr) => {
    const names = metricNames(expr);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect([n, inCatalogue(n)]).toEqual([n, true]);
  });
});

describe('Prometheus alert rules', () => {
  it('cover halted projections, projector lag, outbox growth, missing anchors, refusal spikes, stalled synchronous commits, missing clock attestations and overdue significant events', () => {
    const text = rules.map((r) => r.expr).join('\n');
    for (const m of [
      'ledger_projection_halted_partitions',
      'ledger_outbox_unpublished_rows',
      'ledger_anchor_last_signed_timestamp_seconds',
      'ledger_refusals_total',
      'ledger_projector_lag_records',
      'ledger_sync_commit_stalled',
      'ledger_clock_last_attested_timestamp_seconds',
      'ledger_significant_events_overdue',
    ]) {
      expect(text).toContain(m);
    }
  });

  it('page when no clock attestation for more than 25 hours (90000 s), or none at all', () => {
    const rule = rules.find((r) => r.alert === 'LedgerClockAttestationMissing')!;
    expect(rule.expr).toBe('time() - max(ledger_clock_last_attested_timestamp_seconds) > 90000 or absent(ledger_clock_last_attested_timestamp_seconds)');
    expect(rule).toMatchObject({ labels: { severity: 'page' } });
  });

  it.each(rules.map((r) => [r.alert, r.expr]))('%s parses and names catalogue metrics only', (_alert, expr) => {
    const names = metricNames(expr);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect([n, inCatalogue(n)]).toEqual([n, true]);
  });

  it('a wrong expression fails the parser check and an unknown name fails the catalogue', () => {
    expect(() => metricNames('sum(rate(ledger_refusals_total[5m])')).toThrow(/syntax/);
    expect(inCatalogue('ledger_nope_total')).toBe(false);
    expect(inCatalogue('ledger_append_duration_seconds_bucket')).toBe(true);
  });
});
