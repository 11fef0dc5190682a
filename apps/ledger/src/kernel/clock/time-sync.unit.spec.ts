import { NO_TIME_SYNC, parseChronyTracking, parseTimedatectl, readTimeSync, TIMESYNCD_FLAG, type TimeSyncProbes } from './time-sync';

const TIMEDATECTL = 'Timezone=UTC\nLocalRTC=no\nCanNTP=yes\nNTP=yes\nNTPSynchronized=yes\nTimeUSec=Mon 2026-12-07 13:00:00 UTC\n';
const CHRONY = ['Reference ID    : C0A80101 (192.168.1.1)', 'Stratum         : 3', 'System time     : 0.000012345 seconds fast of NTP time', 'Leap status     : Normal'].join('\n');

const probes = (answers: Record<string, string | null>, files: string[] = []): TimeSyncProbes => ({
  run: async (file) => answers[file] ?? null,
  exists: async (path) => files.includes(path),
});

describe('the time-sync report (docs/architecture.md §9, "Time the ledger vouches for")', () => {
  it('reads timedatectl show', () => {
    expect(parseTimedatectl(TIMEDATECTL)).toEqual({ source: 'timedatectl: NTP=yes NTPSynchronized=yes Timezone=UTC', synchronised: true });
    expect(parseTimedatectl(TIMEDATECTL.replace('NTPSynchronized=yes', 'NTPSynchronized=no'))?.synchronised).toBe(false);
    expect(parseTimedatectl('System has not been booted with systemd as init system (PID 1).')).toBeNull();
  });

  it('reads chronyc tracking: synchronised unless the leap status says not, or there is no reference', () => {
    expect(parseChronyTracking(CHRONY)).toEqual({
      source: 'chrony: reference C0A80101 (192.168.1.1); leap status Normal; system time 0.000012345 seconds fast of NTP time',
      synchronised: true,
    });
    expect(parseChronyTracking(CHRONY.replace('Normal', 'Not synchronised'))?.synchronised).toBe(false);
    expect(parseChronyTracking(CHRONY.replace('C0A80101 (192.168.1.1)', '00000000 ()').replace('Normal', 'Not synchronised'))?.synchronised).toBe(false);
    expect(parseChronyTracking('506 Cannot talk to daemon')).toBeNull();
  });

  it('takes timedatectl, else chrony, else the timesyncd flag, else says no service was found; never throws', async () => {
    expect((await readTimeSync(probes({ timedatectl: TIMEDATECTL, chronyc: CHRONY }))).source).toMatch(/^timedatectl:/);
    expect((await readTimeSync(probes({ timedatectl: 'Failed to connect to bus', chronyc: CHRONY }))).source).toMatch(/^chrony:/);
    expect(await readTimeSync(probes({}, [TIMESYNCD_FLAG]))).toEqual({ source: `systemd-timesyncd: ${TIMESYNCD_FLAG} present`, synchronised: true });
    expect(await readTimeSync(probes({}))).toEqual({ source: NO_TIME_SYNC, synchronised: false });
    const throwing: TimeSyncProbes = { run: async () => Promise.reject(new Error('spawn EACCES')), exists: async () => false };
    expect(await readTimeSync(throwing)).toEqual({ source: NO_TIME_SYNC, synchronised: false });
  });

  it('on this machine: some report, whatever it has', async () => {
    const r = await readTimeSync();
    expect(r.source.length).toBeGreaterThan(0);
    expect(typeof r.synchronised).toBe('boolean');
  });
});
