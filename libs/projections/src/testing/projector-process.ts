import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** A projector process a test started (see {@link startProjectorProcess}). */
export interface ProjectorProcess {
  readonly child: ChildProcess;
  /** The exit code; null when a signal ended it. */
  readonly exited: Promise<number | null>;
  /** Everything it wrote so far (stdout and stderr). */
  output(): string;
}

/**
 * `apps/projector/src/main.ts` as a child process of a test: node itself with tsx as a loader (not
 * npx → tsx → node: the exit code is the projector's own), in its own process group (signal it as a
 * supervisor would: `process.kill(-child.pid, …)`). Its output goes to a file in the OS temp
 * directory (never back-pressured by a test busy elsewhere); read {@link ProjectorProcess.output}
 * after awaiting `exited` to see the last lines.
 */
export function startProjectorProcess(env: Record<string, string>): ProjectorProcess {
  const file = join(mkdtempSync(join(tmpdir(), 'projector-')), 'output.log');
  const fd = openSync(file, 'w');
  const root = resolve(__dirname, '../../../..');
  // the orphan guard ends it when the test process is gone (a killed jest leaves no projector behind
  // to lead the next run's analytics outbox)
  const child = spawn(process.execPath, ['-r', join(root, 'test/fault/orphan-guard.js'), '--import', 'tsx', 'apps/projector/src/main.ts'], {
    cwd: root,
    env: { ...process.env, PROJECTOR_HTTP_PORT: '0', FAULT_PARENT_PID: String(process.pid), ...env },
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | null>((r) => child.on('exit', (code, signal) => r(signal ? null : code)));
  return { child, exited, output: () => readFileSync(file, 'utf8') };
}
