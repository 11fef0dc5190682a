import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { DisagreementReport, isTarXz, PUBLISHED_MILLION_HANDS, PUBLISHED_MILLION_TOTALS, replayHandHistoryFile, ReplaySummary } from '@ledger/hand-history';

/**
 * `baccarat replay-hands --file <path> [--json] [--max-report N]`
 *
 * Replays the third-party hand history (outside the repository, format: `libs/hand-history/src/hand-history.ts`; either the
 * extracted `simulation_million.output` or the `.tar.xz` streamed through `tar -xJOf`) through the
 * rules engine and reports agreement (see `hand-history.ts` for how a hand becomes a shoe
 * sequence). Exit 0 when every hand agrees, 1 when any disagrees or a line is malformed (or the
 * archive cannot be read), 2 for invalid options.
 */

/** The JSON printed by `replay-hands --json`. */
export interface ReplayReport extends ReplaySummary {
  /** The file replayed, as given. */
  readonly file: string;
  /** Wall time of the replay (open, stream, deal, compare), milliseconds. */
  readonly elapsedMs: number;
  /** README totals, and whether the engine's totals equal them; only for a 1,000,000-hand file. */
  readonly published?: { readonly totals: Readonly<Record<string, number>>; readonly engineTotalsMatch: boolean };
}

const fmt = (n: number) => n.toLocaleString('en-US');

function describe(d: DisagreementReport): string {
  const head = `  line ${d.line}: ${d.text}  [${d.reasons.join(', ')}]`;
  const parts = [head];
  if (d.shoe) parts.push(`    shoe:     ${d.shoe.join(' ')}`);
  if (d.expected) parts.push(`    expected: P ${d.expected.player.join(' ')} | B ${d.expected.banker.join(' ')} | ${d.expected.winner}`);
  if (d.got) parts.push(`    engine:   P ${d.got.player.join(' ')} | B ${d.got.banker.join(' ')} | ${d.got.winner}`);
  if (d.message) parts.push(`    ${d.message}`);
  return parts.join('\n');
}

/** The human-readable report (stdout without `--json`). */
export function formatReplayReport(r: ReplayReport): string {
  const t = (x: Record<string, number>) => `BANKER ${fmt(x.BANKER)}  PLAYER ${fmt(x.PLAYER)}  TIE ${fmt(x.TIE)}`;
  const secs = r.elapsedMs / 1000;
  const lines = [
    `file:           ${r.file}`,
    `hands:          ${fmt(r.hands)}`,
    `agree:          ${fmt(r.agree)}`,
    `disagree:       ${fmt(r.disagree)}`,
    `malformed:      ${fmt(r.malformed)}`,
    `engine totals:  ${t(r.engineTotals)}`,
    `file totals:    ${t(r.fileTotals)}`,
  ];
  if (r.published) {
    lines.push(`published:      ${t(r.published.totals)}  (${r.published.engineTotalsMatch ? 'match' : 'MISMATCH'})`);
  }
  lines.push(`time:           ${secs.toFixed(2)} s (${fmt(Math.round(r.hands / Math.max(secs, 1e-9)))} hands/s)`);
  if (r.firstDisagreements.length > 0) {
    lines.push(`first ${r.firstDisagreements.length} disagreement(s) or malformed line(s):`);
    for (const d of r.firstDisagreements) lines.push(describe(d));
  }
  lines.push(r.disagree === 0 && r.malformed === 0 ? 'result:         all hands agree' : 'result:         DISAGREEMENT');
  return lines.join('\n') + '\n';
}

/** Registers `replay-hands` on the program. */
export function registerReplayHandsCommand(program: Command): Command {
  return program
    .command('replay-hands')
    .description('replay a third-party hand history (text or .tar.xz) through the rules engine and compare')
    .requiredOption('--file <path>', 'simulation_million.output, or one-million-hands.txt.tar.xz')
    .option('--json', 'print the summary as JSON')
    .option('--max-report <n>', 'disagreements to show in detail', '10')
    .action(async (opts: { file: string; json?: boolean; maxReport: string }) => {
      const maxReported = Number(opts.maxReport);
      if (!Number.isInteger(maxReported) || maxReported < 0) {
        process.stderr.write(`baccarat replay-hands: --max-report must be a non-negative integer, got ${opts.maxReport}\n`);
        process.exitCode = 2;
        return;
      }
      if (!existsSync(opts.file)) {
        process.stderr.write(`baccarat replay-hands: no such file ${opts.file}\n`);
        process.exitCode = 2;
        return;
      }
      let bar: SingleBar | undefined;
      let barTotal = 0;
      const started = performance.now();
      let summary: ReplaySummary;
      try {
        summary = await replayHandHistoryFile(opts.file, {
          maxReported,
          onOpen: (source) => {
            if (!process.stderr.isTTY) return;
            barTotal = Math.max(1, Math.round((source.totalBytes ?? 0) / 1e6));
            bar = new SingleBar({
              stream: process.stderr,
              format: `replay ${isTarXz(opts.file) ? '(tar.xz) ' : ''}[{bar}] {percentage}% | {value}/{total} MB | {hands} hands`,
              hideCursor: true,
              clearOnComplete: true,
            });
            bar.start(barTotal, 0, { hands: '0' });
          },
          onProgress: (bytes, hands) => bar?.update(Math.min(barTotal, Math.round(bytes / 1e6)), { hands: fmt(hands) }),
        });
      } catch (e) {
        bar?.stop();
        process.stderr.write(`baccarat replay-hands: ${(e as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      if (bar) {
        bar.update(barTotal);
        bar.stop();
      }
      const elapsedMs = Math.round(performance.now() - started);
      const isMillion = summary.hands === PUBLISHED_MILLION_HANDS;
      const report: ReplayReport = {
        file: opts.file,
        ...summary,
        elapsedMs,
        published: isMillion
          ? {
              totals: PUBLISHED_MILLION_TOTALS,
              engineTotalsMatch: (['BANKER', 'PLAYER', 'TIE'] as const).every((k) => summary.engineTotals[k] === PUBLISHED_MILLION_TOTALS[k]),
            }
          : undefined,
      };
      process.stdout.write(opts.json ? JSON.stringify(report) + '\n' : formatReplayReport(report));
      process.exitCode = summary.disagree > 0 || summary.malformed > 0 ? 1 : 0;
    });
}
