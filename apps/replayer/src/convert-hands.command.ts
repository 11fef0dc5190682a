import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { convertHandsFile, ConvertReport, DEFAULT_TABLES_CONFIG, expectedPathOf, loadTables } from './convert-hands';
import { positiveInt } from './replay.command';

const fmt = (n: number) => n.toLocaleString('en-US');

/** The human-readable report of a conversion (stdout). */
export function formatConvertReport(r: ConvertReport): string {
  const secs = Math.max(r.elapsedMs / 1000, 1e-9);
  const lines = [
    `source:          ${r.file}`,
    `table log:       ${r.out} (${fmt(r.lines)} lines)`,
    `expected:        ${r.expectedOut}`,
    `hands:           ${fmt(r.hands)} in ${fmt(r.shoes)} shoe(s) (${r.handsPerShoe.min}–${r.handsPerShoe.max} hands a shoe, ${r.cardsBehindCut.min}–${r.cardsBehindCut.max} cards behind the cut card)`,
    `bets:            ${fmt(r.bets)}`,
    `malformed lines: ${fmt(r.malformed)}`,
  ];
  for (const m of r.firstMalformed) lines.push(`  line ${m.line}: ${m.message}: ${m.text}`);
  lines.push(`time:            ${secs.toFixed(2)} s (${fmt(Math.round(r.hands / secs))} hands/s)`);
  return lines.join('\n') + '\n';
}

interface ConvertCliOptions {
  file: string;
  out: string;
  expected?: string;
  hands?: number;
  skip: number;
  tables: string;
  tablesConfig: string;
  seed: string;
  shoePrefix: string;
  dealer: string;
  accounts: number;
  betLines: string;
  json?: boolean;
}

const nonNegativeInt = (v: string): number => (v === '0' ? 0 : positiveInt(v));

/** Registers `convert-hands` on the program. */
export function registerConvertHandsCommand(program: Command): Command {
  return program
    .command('convert-hands')
    .description('turn the third-party hand history into a table log (whole 8-deck shoes, seeded bets) and an expected file')
    .requiredOption('--file <archive or text>', 'one-million-hands.txt.tar.xz, or the extracted simulation_million.output')
    .requiredOption('--out <log.jsonl>', 'the table log to write')
    .option('--expected <expected.jsonl>', 'the expected file to write (default: <out without .jsonl>.expected.jsonl)')
    .option('--hands <n>', 'hands to convert (default: all)', positiveInt)
    .option('--skip <n>', 'hands of the file to pass over first', nonNegativeInt, 0)
    .option('--tables <ids>', 'comma-separated table ids; shoes go to them in turn', 'T-CLASSIC-01')
    .option('--tables-config <file>', 'tables file', DEFAULT_TABLES_CONFIG)
    .option('--seed <s>', 'seed of suits, commencement, burns and bets', 'convert-hands')
    .option('--shoe-prefix <p>', 'shoe ids are <prefix>-h<first hand>', 'MH')
    .option('--dealer <id>', 'dealer of every shoe', 'dealer-1')
    .option('--accounts <n>', 'betting accounts (at least 3)', positiveInt, 4)
    .option('--bet-lines <batch|single>', 'one bets line per round, or one bet line per bet', 'batch')
    .option('--json', 'print the report as JSON')
    .action(async (o: ConvertCliOptions) => {
      if (!existsSync(o.file)) {
        process.stderr.write(`replayer convert-hands: no such file ${o.file}\n`);
        process.exitCode = 2;
        return;
      }
      if (o.betLines !== 'batch' && o.betLines !== 'single') {
        process.stderr.write(`replayer convert-hands: --bet-lines must be batch or single\n`);
        process.exitCode = 2;
        return;
      }
      try {
        const tables = loadTables(
          o.tables
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
          o.tablesConfig,
        );
        const report = await convertHandsFile({
          file: o.file,
          out: o.out,
          expectedOut: o.expected ?? expectedPathOf(o.out),
          hands: o.hands,
          skip: o.skip,
          tables,
          seed: o.seed,
          shoePrefix: o.shoePrefix,
          dealerId: o.dealer,
          accounts: o.accounts,
          betLines: o.betLines,
          onProgress: (n) => {
            if (process.stderr.isTTY) process.stderr.write(`\rconverted ${fmt(n)} hands`);
          },
        });
        if (process.stderr.isTTY) process.stderr.write('\n');
        process.stdout.write(o.json ? JSON.stringify(report) + '\n' : formatConvertReport(report));
        process.exitCode = report.malformed > 0 ? 1 : 0;
      } catch (e) {
        process.stderr.write(`replayer convert-hands: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exitCode = 1;
      }
    });
}
