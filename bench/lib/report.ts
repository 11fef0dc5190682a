/** The short table on stdout: figure, ours, the machine's ceiling, ours/ceiling, target, met/missed. */
import { lpad, pad } from './util';
import type { TargetRow } from './targets';

export interface Row {
  readonly figure: string;
  readonly ours: string;
  readonly ceiling: string;
  /** ours ÷ ceiling for throughputs; ceiling ÷ ours (floor ÷ ours) for latencies: ≤ 1 either way, 1 = at the machine's limit. */
  readonly ratio: number | null;
  readonly target?: string;
  readonly status?: 'met' | 'MISSED' | 'n/a' | string;
}

export function renderTable(title: string, rows: readonly Row[]): string {
  const head = ['figure', 'ours', 'ceiling (this machine, this run)', 'ratio', 'target', 'status'];
  const cells = rows.map((r) => [r.figure, r.ours, r.ceiling, r.ratio === null ? '–' : r.ratio.toFixed(3), r.target ?? '', r.status ?? '']);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((x, i) => (i === 1 || i === 3 ? lpad(x, widths[i]) : pad(x, widths[i]))).join('  ');
  const sep = widths.map((w) => '-'.repeat(w)).join('  ');
  return [title, sep, line(head), sep, ...cells.map(line), sep].join('\n') + '\n';
}

/** The targets table: one row per performance target (bench/lib/targets.ts), the same rows as `targets` in latest.json; status met, MISSED or NOT MEASURED with its reason. */
export function renderTargets(title: string, rows: readonly TargetRow[]): string {
  const num = (x: number | null) => (x === null ? '–' : Number.isInteger(x) ? x.toLocaleString('en-US') : String(x));
  return renderTable(
    title,
    rows.map((t) => ({
      figure: t.name,
      ours: `${num(t.ours)} ${t.unit.split(' (')[0]}`,
      ceiling: num(t.ceiling),
      ratio: t.ratio,
      target: t.target,
      status: (t.status === 'met' ? 'met' : t.status === 'not met' ? 'MISSED' : `NOT MEASURED: ${t.reason}`) + (t.sizeDiffers ? ` (size differs: ${t.size})` : '') + (t.note ? ` — ${t.note}` : ''),
    })),
  );
}
