/**
 * Test support: the JSON log lines (pino) of a process's output, and what a graceful stop of the
 * projector (apps/projector/src/main.ts; docs/architecture.md §6) must show. The fatal path logs the
 * same message text (`projector stopped`, at error level, from the runner; then `projection failed;
 * exiting` at fatal level, then `projector stopped` at info level with exit code 1), so a graceful
 * stop is matched exactly: parsed lines, the level, the signal and the exit code, never a substring.
 */

/** One pino line: `level` 10 trace … 30 info, 40 warn, 50 error, 60 fatal; `msg`; any other fields. */
export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** Every line of `output` that parses as a pino JSON object; other text (npx, tsx) is skipped. */
export function logLines(output: string): LogLine[] {
  const out: LogLine[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('{')) continue;
    try {
      const o = JSON.parse(line);
      if (typeof o.level === 'number' && typeof o.msg === 'string') out.push(o);
    } catch {
      /* not a log line */
    }
  }
  return out;
}

/** What a projector's output says about how it stopped (compare with {@link GRACEFUL_SIGTERM_STOP}). */
export function projectorStop(output: string, exitCode: number | null): { exitCode: number | null; stoppingOn: unknown; stoppedAtInfo: boolean; fatalOrError: string[] } {
  const lines = logLines(output);
  return {
    exitCode,
    stoppingOn: lines.find((l) => l.msg === 'projector stopping')?.signal ?? null,
    stoppedAtInfo: lines.some((l) => l.msg === 'projector stopped' && l.level === 30),
    // the fatal path: the runner's error-level "projector stopped", the fatal "projection failed; exiting"
    fatalOrError: lines.filter((l) => l.level >= 60 || (l.level >= 50 && /^projector stopped$|^projection failed/.test(l.msg))).map((l) => l.msg),
  };
}

/** A graceful stop on SIGTERM: asked by the signal, said at info level, exit 0, no fatal-path line. */
export const GRACEFUL_SIGTERM_STOP = { exitCode: 0, stoppingOn: 'SIGTERM', stoppedAtInfo: true, fatalOrError: [] as string[] };
