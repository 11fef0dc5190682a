/**
 * `npm run bench:cluster -- [--quick] [--port-base <n>] [--keep]`: the scaling figures on the
 * production-shaped topology (docs/development.md, "Benchmarks", "On the cluster"). Starts the whole
 * cluster of `npm run cluster` (3 brokers at RF 3, a PostgreSQL primary with a synchronous standby,
 * HAProxy, 2 APIs, 2 relays, 2 projectors) in a folder and on ports of its own, then measures
 * (bench/cluster/phases.ts) ingest through HAProxy with 1 and with 2 API instances, unbatched and
 * batched, and the projection of a backlog by 1 and by 2 projectors; from the 2-API runs, the sizing
 * table: CPU microseconds per event of the APIs, relays, projectors, PostgreSQL (both servers),
 * Kafka (three brokers) and the front (HAProxy, Redis). Writes `bench/results/cluster-latest.json`
 * and prints the figures; stops the cluster and removes its folder (unless `--keep`).
 * Needs `dist/` (`npm run -s build`) and the Kafka jars (`scripts/stack.sh fetch`).
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { CliUsageError, runCli } from '@ledger/cli';
import { createKafka } from '@ledger/kafka';
import { LEDGER_EVENTS_TOPIC } from '@ledger/infra';
import { LedgerClient, type SimTable } from '@ledger/simulator';
import { jwtSecret } from '@ledger/tokens';
import { clusterDown, clusterUp } from '../../scripts/cluster/lifecycle';
import { shareKafkaJars } from '../../scripts/cluster/kafka';
import { COUNTS, LOAD_RUN_ENV, portBaseFromEnv, REPLICATION, REPO_ROOT, topology } from '../../scripts/cluster/topology';
import { warmUp } from '../phases/ingest';
import { connect } from '../lib/pg';
import { benchTables } from '../lib/workload';
import { say } from '../lib/util';
import { idleRun, ingestRun, projectionRun, type ClusterBench, type IngestRun, type ProjectionRun } from './phases';
import type { CpuGroup } from './meter';
import { renderCluster, sizingTable } from './summary';

/** Copies of each table of config/tables.json the cluster plays on. */
const TABLE_COPIES = 4;

/**
 * The tables of config/tables.json that are not virtual, `copies` times each under new ids
 * (`<id>-C<n>`): the records of a table share a Kafka key, so a partition, so a projector, and three
 * tables would leave the projector group little to split.
 */
function manyTables(copies: number): SimTable[] {
  const base = (JSON.parse(readFileSync(join(REPO_ROOT, 'config/tables.json'), 'utf8')) as { tables: SimTable[] }).tables.filter((x) => !x.virtualTable);
  return Array.from({ length: copies }, (_, i) => base.map((x) => ({ ...x, tableId: `${x.tableId}-C${i + 1}` }))).flat();
}

/** Sizes of a run. */
function sizes(quick: boolean) {
  return quick
    ? { unbatched: { clients: 8, seconds: 10 }, batched: { clients: 4, batchSize: 500, bets: 4_000 }, backlogBets: 4_000 }
    : { unbatched: { clients: 8, seconds: 40 }, batched: { clients: 4, batchSize: 500, bets: 30_000 }, backlogBets: 30_000 };
}

/** The measurements, in order, on a running cluster. */
async function measure(b: ClusterBench, quick: boolean): Promise<{ idle: Record<CpuGroup, number>; ingest: IngestRun[]; projection: ProjectionRun[] }> {
  const z = sizes(quick);
  const idle = await idleRun(b, quick ? 10 : 30);
  const ingest: IngestRun[] = [];
  for (const kind of ['unbatched', 'batched'] as const) {
    for (const apis of [1, 2] as const) {
      ingest.push(await ingestRun(b, { apis, kind, clients: kind === 'unbatched' ? z.unbatched.clients : z.batched.clients, seconds: z.unbatched.seconds, batchSize: z.batched.batchSize, bets: z.batched.bets }));
    }
  }
  const projection: ProjectionRun[] = [];
  for (const projectors of [1, 2] as const) projection.push(await projectionRun(b, { projectors, bets: z.backlogBets, shoes: 12 }));
  return { idle, ingest, projection };
}

async function main(o: { quick?: boolean; portBase: string; keep?: boolean }): Promise<void> {
  const run = `c${Date.now().toString(36)}`;
  const stackDir = join(REPO_ROOT, '.stack', `bench-cluster-${run}`);
  const tablesFile = join(stackDir, 'tables.json');
  // the same one-line refusal as CLUSTER_PORT_BASE for a port base that is not a whole number in range
  const t = (() => {
    try {
      return topology(stackDir, portBaseFromEnv(o.portBase), { ...LOAD_RUN_ENV, TABLES_FILE: tablesFile });
    } catch (e) {
      throw new CliUsageError(`--port-base ${JSON.stringify(o.portBase)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  })();
  const log = (l: string) => say(`[cluster] ${l}`);
  const started = new Date();
  const loadAtStart = loadavg()[0];
  mkdirSync(stackDir, { recursive: true });
  shareKafkaJars(stackDir);
  writeFileSync(tablesFile, JSON.stringify({ tables: manyTables(TABLE_COPIES) }, null, 2));
  process.env.BENCH_TABLES_FILE = tablesFile;
  let ok = false;
  try {
    await clusterUp(t, log);
    const pg = await connect(`postgres://ledger_owner:ledger_owner@127.0.0.1:${t.postgres.primaryPort}/ledger`, 'ledger-bench-cluster');
    const kafka = createKafka({ clientId: 'ledger-bench-cluster', brokers: t.bootstrap.split(','), logLevel: 'nothing' });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const client = new LedgerClient(`http://127.0.0.1:${t.balancer.port}`, jwtSecret(), { deviceTables: benchTables().map((x) => x.tableId) });
      await warmUp(client, `${run}w`);
      const b: ClusterBench = { t, client, pg, admin, topic: LEDGER_EVENTS_TOPIC, run, idle: { api: 0, relay: 0, projector: 0, postgres: 0, kafka: 0, front: 0 } };
      const figures = await measure(b, !!o.quick);
      const results = {
        run,
        quick: !!o.quick,
        startedAt: started.toISOString(),
        seconds: Math.round((Date.now() - started.getTime()) / 1000),
        machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? '?', memoryGiB: Math.round(totalmem() / 2 ** 30), loadAtStart: Number(loadAtStart.toFixed(2)), loadAtEnd: Number(loadavg()[0].toFixed(2)) },
        topology: { ...COUNTS, replicationFactor: REPLICATION.factor, minInsync: REPLICATION.minInsync, postgres: 'primary + synchronous standby', balancer: 'HAProxy' },
        ...figures,
        sizing: sizingTable(figures.ingest, figures.idle),
      };
      const file = join(REPO_ROOT, 'bench', 'results', 'cluster-latest.json');
      writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
      process.stdout.write(renderCluster(results));
      say(`written ${file}`);
      ok = true;
    } finally {
      await admin.disconnect();
      await pg.end();
    }
  } finally {
    await clusterDown(t, log).catch((e: unknown) => log(`down failed: ${String(e)}`));
    if (ok && !o.keep) rmSync(stackDir, { recursive: true, force: true });
    else say(`the cluster's folder is kept: ${stackDir}`);
  }
}

const program = new Command('bench-cluster')
  .description('scaling figures and the sizing table on the production-shaped topology')
  .option('--quick', 'small sizes (a few minutes)')
  .option('--port-base <n>', 'CLUSTER_PORT_BASE of the run', '27000')
  .option('--keep', "keep the cluster's folder")
  .exitOverride()
  .action(main);

void runCli(program);
