import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as load } from 'yaml';
import { parser } from '@prometheus-io/lezer-promql';
import { METRICS, catalogueMarkdown, inCatalogue } from '@ledger/metrics';
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
  it('names every metric ledger_*, with help, and no label that would carry money or ids', () => {
    for (const m of Object.values(METRICS)) {
      expect(m.name).toMatch(/^ledger_[a-z_]+$/);
      expect(m.help.length).toBeGreaterThan(10);
      for (const l of m.labels) expect(l).not.toMatch(/id$|amount|stake|payout|payload/i);
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
  it('cover halted projections, projector lag, outbox growth, missing anchors, refusal spikes, stalled synchronous commits and overdue significant events', () => {
    const text = rules.map((r) => r.expr).join('\n');
    for (const m of [
      'ledger_projection_halted_partitions',
      'ledger_outbox_unpublished_rows',
      'ledger_anchor_last_signed_timestamp_seconds',
      'ledger_refusals_total',
      'ledger_projector_lag_records',
      'ledger_sync_commit_stalled',
      'ledger_significant_events_overdue',
    ]) {
      expect(text).toContain(m);
    }
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
