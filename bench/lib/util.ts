/** Small helpers shared by the bench phases: clocks, percentiles, formatting, bounded waiting. */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** Wall clock in milliseconds with sub-millisecond resolution (same clock as PostgreSQL's now() on this machine). */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Nearest-rank percentile of an unsorted sample; NaN when empty. */
export function percentile(sample: readonly number[], p: number): number {
  if (sample.length === 0) return NaN;
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

/** p50, p90, p99, max and mean of a latency sample, milliseconds rounded to 0.1. */
export function latencySummary(sample: readonly number[]) {
  const r = (x: number) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : null);
  const mean = sample.length ? sample.reduce((a, b) => a + b, 0) / sample.length : NaN;
  return {
    count: sample.length,
    p50: r(percentile(sample, 50)),
    p90: r(percentile(sample, 90)),
    p99: r(percentile(sample, 99)),
    max: r(sample.length ? Math.max(...sample) : NaN),
    mean: r(mean),
  };
}

export type LatencySummary = ReturnType<typeof latencySummary>;

/** Rounds to `digits` decimals (null for NaN/Infinity, so JSON stays valid). */
export function round(x: number, digits = 0): number | null {
  if (!Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Waits until `check()` is truthy, polling every `intervalMs`, at most `timeoutMs`. @returns the truthy value, or throws */
export async function waitFor<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs: number, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Peak (VmHWM) and current (VmRSS) resident memory of a process in MiB, or null when it is gone. */
export function memoryOf(pid: number | 'self'): { peakMiB: number; rssMiB: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { peakMiB: round(kib('VmHWM') / 1024, 1)!, rssMiB: round(kib('VmRSS') / 1024, 1)! };
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process used so far, from /proc/<pid>/stat; null when gone. */
export function cpuSecondsOf(pid: number | 'self'): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11] = utime, fields[12] = stime (0-based after the command), in clock ticks (100 Hz on Linux)
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Machine-wide busy and total CPU seconds (all cores) from /proc/stat. */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = line.reduce((a, b) => a + b, 0) / 100;
  const idle = (line[3] + (line[4] ?? 0)) / 100;
  return { busy: total - idle, total };
}

/** 1-minute load average, rounded. */
export function load1(): number {
  return round(loadavg()[0], 2)!;
}

/** Left/right padding for the table. */
export const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
export const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

/** A number with thousands separators. */
export function fmtInt(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return Math.round(x).toLocaleString('en-US');
}

/** Logs progress to stderr (stdout carries the table). */
export function say(msg: string): void {
  const t = new Date().toISOString().slice(11, 19);
  process.stderr.write(`[bench ${t}] ${msg}\n`);
}
