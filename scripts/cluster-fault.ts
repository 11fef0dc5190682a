/**
 * `npm run cluster:fault`: the cluster fault run (test/cluster/cluster-fault.ts;
 * docs/operations.md, "The production topology"): the whole topology of `npm run cluster` in a
 * folder and on ports of its own, seeded shoes dealt through HAProxy, and one after the other under
 * that load, SIGKILL of the leading broker, an API instance, a projector, the relay leader and the
 * PostgreSQL primary (the standby promoted). Needs `dist/` (`npm run -s build`). Progress on stderr;
 * the last line on stdout is `CLUSTER FIGURES …`. Exit 0 when every check passed, 1 otherwise
 * (the run's folder, with every log, is then kept).
 *
 *   npm run cluster:fault -- [--seed <s>] [--shoes <n>] [--rounds <n>] [--port-base <n>] [--keep]
 *
 * The bounded form in CI (test/cluster/cluster-fault.int.spec.ts) deals 6 shoes of 16 rounds; the
 * defaults here deal 12 shoes of 40.
 */
import { join } from 'node:path';
import { Command } from 'commander';
import { runCli } from '@ledger/cli';
import { clusterFailures, clusterFigures, runClusterFault } from '../test/cluster/cluster-fault';
import { REPO_ROOT } from './cluster/topology';

const program = new Command('cluster-fault')
  .option('--seed <s>', 'seed of the shoes', 'cluster-fault')
  .option('--shoes <n>', 'shoes dealt', '12')
  .option('--rounds <n>', 'rounds per shoe', '40')
  .option('--port-base <n>', 'CLUSTER_PORT_BASE of the run', '28000')
  .option('--keep', "keep the run's folder after a passing run")
  .exitOverride()
  .action(async (o: { seed: string; shoes: string; rounds: string; portBase: string; keep?: boolean }) => {
    const t0 = Date.now();
    const log = (line: string) => process.stderr.write(`[cluster-fault +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
    const stackDir = join(REPO_ROOT, '.stack', `cluster-fault-${Date.now().toString(36)}`);
    const report = await runClusterFault({ seed: o.seed, shoes: Number(o.shoes), rounds: Number(o.rounds), stackDir, portBase: Number(o.portBase), keep: !!o.keep }, log);
    const failed = clusterFailures(report);
    for (const line of failed) log(`FAILED: ${line}`);
    if (failed.length > 0) log(`the run's folder is kept: ${stackDir}`);
    process.stdout.write(`${clusterFigures(report)}\n`);
    if (failed.length > 0) process.exitCode = 1;
  });

void runCli(program);
