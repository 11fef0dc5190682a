import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { SingleBar } from 'cli-progress';
import { formatTableLogError } from '@ledger/table-log';
import { ReplayAbortedError } from './post-lines';
import { ReplayRunReport, runReplay } from './replay';
import { DEFAULT_REPLAY_ACTORS } from './routes';

const fmt = (n: number) => n.toLocaleString('en-US');

/** Parses a positive integer option. @throws InvalidArgumentError */
export function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** The human-readable report of a replay (stdout). */
export function formatReplayReport(r: ReplayRunReport): string {
  const out: string[] = [`file:           ${r.file} (sha256 ${r.hashPrefix}…)`, `lines:          ${fmt(r.totalLines)} read, ${fmt(r.validLines)} valid, ${fmt(r.badLines)} bad`];
  if (r.errors.length) {
    out.push(`bad lines${r.refusedFile ? ' (nothing sent; --skip-bad sends the valid lines)' : ' (skipped)'}:`);
    for (const e of r.errors) out.push(`  ${formatTableLogError(e)}`);
    if (r.errors.length < r.badLines) out.push(`  … and more (${fmt(r.badLines)} bad lines in all)`);
  }
  const p = r.posted;
  if (p) {
    const secs = Math.max(p.elapsedMs / 1000, 1e-9);
    out.push(
      `sent:           ${fmt(p.lines)} lines in ${fmt(p.shoes.length)} shoe(s), ${fmt(p.requests)} requests`,
      `accepted:       ${fmt(p.accepted)}${p.approvals ? `  (${fmt(p.approvals)} management decision(s): requested, then approved by a second pit manager)` : ''}`,
      `refused:        ${fmt(p.refused)}${
        p.refused
          ? `  (${Object.entries(p.refusedByCode)
              .map(([c, n]) => `${c} ${fmt(n)}`)
              .join(', ')})`
          : ''
      }`,
      `events:         ${fmt(p.events)} (rounds resulted: ${fmt(p.roundsResulted)})`,
      `time:           ${secs.toFixed(2)} s, ${fmt(Math.round(p.requests / secs))} requests/s, ${fmt(Math.round(p.roundsResulted / secs))} hands/s`,
    );
    for (const f of p.firstRefusals) out.push(`  line ${f.line} (${f.kind}${f.step ? ` ${f.step}` : ''}, shoe ${f.shoeId}): ${f.status} ${f.code}: ${f.message}`);
  }
  if (r.catchUp) out.push(`catch-up:       ${r.catchUp.caughtUp ? 'projections applied' : 'TIMED OUT'} after ${(r.catchUp.elapsedMs / 1000).toFixed(1)} s`);
  if (r.settlements) out.push(`settlements:    ${fmt(r.settlements.lines)} lines → ${r.settlements.file}`);
  if (r.settlementsError) out.push(`settlements:    FAILED: ${r.settlementsError}`);
  const a = r.agreement;
  if (a) {
    out.push(`agreement:      ${fmt(a.agree)} agree, ${fmt(a.disagree)} disagree (${fmt(a.missing)} not resulted) of ${fmt(a.rounds)} rounds`);
    for (const d of a.firstDisagreements) {
      const e = d.expected;
      const got = d.got ? `${d.got.winner} P ${d.got.player.join(' ')} | B ${d.got.banker.join(' ')}` : 'no RoundResulted';
      out.push(`  ${e.shoeId}/${e.roundId}${e.sourceLine ? ` (source line ${e.sourceLine})` : ''} [${d.reasons.join(', ')}]: expected ${e.winner} P ${e.player.join(' ')} | B ${e.banker.join(' ')}; ledger ${got}`);
    }
  }
  out.push(`result:         ${r.exitCode === 0 ? 'ok' : r.refusedFile ? 'FILE REFUSED' : 'PROBLEMS (see above)'}`);
  return out.join('\n') + '\n';
}

interface ReplayCliOptions {
  file: string;
  api: string;
  out: string;
  settlements: boolean;
  concurrency: number;
  skipBad?: boolean;
  check?: string;
  catchUpTimeout: number;
  json?: boolean;
  device: string;
  platform: string;
  manager: string;
  approver: string;
}

/** Registers `replay` on the program. */
export function registerReplayCommand(program: Command): Command {
  return program
    .command('replay')
    .description('send a table log (JSONL) through the ledger HTTP API, then write the settlements and/or check outcomes')
    .requiredOption('--file <log.jsonl>', 'the table log')
    .option('--api <url>', 'ledger API base URL', 'http://127.0.0.1:3000')
    .option('--out <settlements.jsonl>', 'where to write the settlements (one line per bet)', 'settlements.jsonl')
    .option('--no-settlements', 'skip the projection catch-up and the settlements')
    .option('--concurrency <n>', 'shoes sent in parallel', positiveInt, 3)
    .option('--skip-bad', 'send the valid lines of a file that has bad ones (default: send nothing)')
    .option('--check <expected.jsonl>', 'compare each round outcome with an expected file (exit 1 on any disagreement)')
    .option('--catch-up-timeout <seconds>', 'how long to wait for the projections', positiveInt, 120)
    .option('--json', 'print the report as JSON')
    .option('--device <id>', 'table device id for lines without actor', DEFAULT_REPLAY_ACTORS.device)
    .option('--platform <id>', 'betting platform id for lines without actor', DEFAULT_REPLAY_ACTORS.platform)
    .option('--manager <id>', 'requesting pit manager id for decision lines without actor', DEFAULT_REPLAY_ACTORS.manager)
    .option('--approver <id>', 'approving pit manager id (their own token) for decision lines without approverId', DEFAULT_REPLAY_ACTORS.approver)
    .action(async (o: ReplayCliOptions) => {
      for (const f of [o.file, o.check].filter((x): x is string => !!x)) {
        if (!existsSync(f)) {
          process.stderr.write(`replayer replay: no such file ${f}\n`);
          process.exitCode = 2;
          return;
        }
      }
      let bar: SingleBar | undefined;
      try {
        const report = await runReplay({
          file: o.file,
          api: o.api,
          concurrency: o.concurrency,
          skipBad: !!o.skipBad,
          settlementsOut: o.settlements ? o.out : null,
          check: o.check ?? null,
          catchUpTimeoutMs: o.catchUpTimeout * 1000,
          actors: { device: o.device, platform: o.platform, manager: o.manager, approver: o.approver },
          onStart: (total) => {
            if (!process.stderr.isTTY) return;
            bar = new SingleBar({ stream: process.stderr, format: 'replay [{bar}] {percentage}% | {value}/{total} lines | {eta_formatted} left', hideCursor: true, clearOnComplete: true });
            bar.start(total, 0);
          },
          onLine: (done) => bar?.update(done),
          onStep: (step) => {
            bar?.stop();
            bar = undefined;
            if (process.stderr.isTTY) process.stderr.write(`${step}…\n`);
          },
        });
        bar?.stop();
        process.stdout.write(o.json ? JSON.stringify(report) + '\n' : formatReplayReport(report));
        process.exitCode = report.exitCode;
      } catch (e) {
        bar?.stop();
        process.stderr.write(`replayer replay: ${e instanceof ReplayAbortedError ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
        process.exitCode = 1;
      }
    });
}
