import { GRACEFUL_SIGTERM_STOP, logLines, projectorStop } from './log-lines';

/** What apps/projector/src/main.ts writes on each path (pino lines, abridged). */
const line = (level: number, msg: string, extra: Record<string, unknown> = {}) => JSON.stringify({ level, time: 1, pid: 7, name: 'projector', ...extra, msg });
const graceful = [line(30, 'projector running'), line(30, 'projector stopping', { signal: 'SIGTERM' }), line(30, 'analytics publisher stopped'), line(30, 'projector stopped')].join('\n');
// a data error: the runner's error-level "projector stopped", the fatal line, then the same shutdown
const fatal = [
  line(30, 'projector running'),
  line(50, 'projector stopped', { err: 'ProjectionError: …', code: 'PROJECTION.INCONSISTENT_EVENT' }),
  line(60, 'projection failed; exiting', { code: 'PROJECTION.INCONSISTENT_EVENT' }),
  line(30, 'projector stopping', { signal: 'fatal' }),
  line(30, 'projector stopped'),
].join('\n');

describe('the graceful-stop check (exact, not a substring)', () => {
  it('accepts a SIGTERM stop: exit 0, info level, no fatal-path line', () => {
    expect(projectorStop(graceful, 0)).toEqual(GRACEFUL_SIGTERM_STOP);
  });

  it('refuses the fatal path, which a substring match on "projector stopped" took for a graceful stop', () => {
    expect(fatal).toMatch(/"msg":"projector stopped"/); // the old check passed on it
    const seen = projectorStop(fatal, 1);
    expect(seen).not.toEqual(GRACEFUL_SIGTERM_STOP);
    expect(seen).toEqual({ exitCode: 1, stoppingOn: 'fatal', stoppedAtInfo: true, fatalOrError: ['projector stopped', 'projection failed; exiting'] });
    // even with the exit code hidden (a wrapper that reports none), the lines give it away
    expect(projectorStop(fatal, 0)).not.toEqual(GRACEFUL_SIGTERM_STOP);
  });

  it('refuses an output without the stop lines, and skips what is not a pino line', () => {
    expect(projectorStop(line(30, 'projector running'), 0)).not.toEqual(GRACEFUL_SIGTERM_STOP);
    expect(logLines(`npx: installed\n${line(30, 'a')}\n{not json\n`)).toEqual([expect.objectContaining({ level: 30, msg: 'a' })]);
  });
});
