import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';

/** What the machine's time synchronisation reports (docs/architecture.md §9, "Time the ledger vouches for"). */
export interface TimeSyncReport {
  /** What was read, in one line (≤ 500 characters), or {@link NO_TIME_SYNC}. */
  readonly source: string;
  /** True only when the service read says the clock is synchronised. */
  readonly synchronised: boolean;
}

/** The report when no time-sync service answers: never a reason to refuse to start. */
export const NO_TIME_SYNC = 'unsynchronised: no time-sync service found';

/** The file systemd-timesyncd creates once it has synchronised the clock. */
export const TIMESYNCD_FLAG = '/run/systemd/timesync/synchronized';

/** How the reader reaches the machine; tests give their own. */
export interface TimeSyncProbes {
  /** Runs `file args…` (no shell); its standard output, or null when it is missing, fails or takes over 2 s. */
  readonly run: (file: string, args: readonly string[]) => Promise<string | null>;
  /** Whether `path` exists. */
  readonly exists: (path: string) => Promise<boolean>;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 500);

/**
 * `timedatectl show` (key=value lines): a report when it names `NTPSynchronized`, else null (e.g.
 * "System has not been booted with systemd").
 */
export function parseTimedatectl(out: string): TimeSyncReport | null {
  const kv = new Map(
    out
      .split('\n')
      .map((l) => l.trim().split('='))
      .filter((p) => p.length >= 2)
      .map(([k, ...v]) => [k, v.join('=')] as const),
  );
  const synced = kv.get('NTPSynchronized');
  if (synced === undefined) return null;
  const parts = ['NTP', 'NTPSynchronized', 'Timezone'].filter((k) => kv.has(k)).map((k) => `${k}=${kv.get(k)}`);
  return { source: oneLine(`timedatectl: ${parts.join(' ')}`), synchronised: synced === 'yes' };
}

/**
 * `chronyc -n tracking`: a report when it names the reference and the leap status, else null.
 * Synchronised unless the leap status is `Not synchronised` or the reference is none (`0.0.0.0`/`127.127.1.1`).
 */
export function parseChronyTracking(out: string): TimeSyncReport | null {
  const field = (name: string) => out.match(new RegExp(`^${name}\\s*:\\s*(.+)$`, 'm'))?.[1]?.trim() ?? null;
  const ref = field('Reference ID');
  const leap = field('Leap status');
  if (ref === null || leap === null) return null;
  const offset = field('System time');
  const synchronised = leap !== 'Not synchronised' && !/^(0\.0\.0\.0|7F7F0101)\b/.test(ref);
  return { source: oneLine(`chrony: reference ${ref}; leap status ${leap}${offset ? `; system time ${offset}` : ''}`), synchronised };
}

/**
 * What the machine's time synchronisation reports: `timedatectl show`, else `chronyc -n tracking`,
 * else the flag file of systemd-timesyncd, else {@link NO_TIME_SYNC}. Never throws: a machine
 * without any of them is reported unsynchronised, and the API starts all the same.
 */
export async function readTimeSync(probes: TimeSyncProbes = SYSTEM_PROBES): Promise<TimeSyncReport> {
  try {
    const td = await probes.run('timedatectl', ['show']);
    const fromTd = td === null ? null : parseTimedatectl(td);
    if (fromTd) return fromTd;
    const chrony = await probes.run('chronyc', ['-n', 'tracking']);
    const fromChrony = chrony === null ? null : parseChronyTracking(chrony);
    if (fromChrony) return fromChrony;
    if (await probes.exists(TIMESYNCD_FLAG)) return { source: `systemd-timesyncd: ${TIMESYNCD_FLAG} present`, synchronised: true };
  } catch {
    // a probe that throws is a probe that did not answer
  }
  return { source: NO_TIME_SYNC, synchronised: false };
}

/** The machine itself: commands run without a shell, 2 s each at most. */
export const SYSTEM_PROBES: TimeSyncProbes = {
  run: (file, args) =>
    new Promise((resolve) => {
      execFile(file, [...args], { timeout: 2000, windowsHide: true }, (err, stdout) => resolve(err ? null : String(stdout)));
    }),
  exists: (path) =>
    access(path).then(
      () => true,
      () => false,
    ),
};
