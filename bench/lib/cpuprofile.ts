/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and says where the time went: self time by
 * function and by package (node_modules/<pkg>, node internals, our libs/apps, GC, idle).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  readonly file: string;
  readonly totalMs: number;
  readonly busyMs: number;
  readonly byPackage: { name: string; ms: number; pct: number }[];
  readonly topFunctions: { fn: string; ms: number; pct: number }[];
}

function packageOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node internals';
  const m = /\/(libs|apps)\/([^/]+)\//.exec(url);
  if (m) return `${m[1]}/${m[2]}`;
  return url.split('/').slice(-2).join('/');
}

export function summarizeProfile(file: string, top = 15): ProfileSummary {
  const p: Profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const fns = new Map<string, number>();
  const pkgs = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    total += us;
    if (functionName === '(idle)') idle += us;
    const short = url ? url.replace(/^.*\/(node_modules|libs|apps|bench)\//, '$1/') : '';
    const key = `${functionName || '(anonymous)'} ${short}${url ? `:${lineNumber + 1}` : ''}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    const pkg = packageOf(url, functionName);
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
  }
  const busy = total - idle;
  const list = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .filter(([k]) => !k.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => ({ k, ms: Math.round(us / 1000), pct: busy > 0 ? Math.round((us / busy) * 1000) / 10 : 0 }));
  return {
    file,
    totalMs: Math.round(total / 1000),
    busyMs: Math.round(busy / 1000),
    byPackage: list(pkgs, 12).map(({ k, ms, pct }) => ({ name: k, ms, pct })),
    topFunctions: list(fns, top).map(({ k, ms, pct }) => ({ fn: k, ms, pct })),
  };
}

/** Summaries of every `.cpuprofile` in `dir` whose name starts with `prefix`. */
export function summarizeDir(dir: string): ProfileSummary[] {
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  } catch {
    return [];
  }
  return files.map((f) => summarizeProfile(join(dir, f)));
}
