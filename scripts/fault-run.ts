/**
 * Fault injection as a standalone command for longer soaks (docs/guarantees.md §13): the same run as
 * test/fault/fault-injection.int.spec.ts (shared code in test/fault/scenario.ts). Needs `dist/`
 * (`npm run -s build`) and the PostgreSQL server binaries (initdb, pg_ctl: it runs a cluster of its
 * own, as the `postgres` OS user when run as root); starts its own Kafka broker on other ports.
 * The machine's PostgreSQL service is never touched.
 *
 *   npx tsx scripts/fault-run.ts [--seed <hex>] [--kills <n>] [--shoes <n>] [--rounds <n>] [--skip-kafka-restart]
 *                                [--skip-hard-steps] [--outage-s <n>] [--long] [--keep]
 *
 * Flags override the environment (FAULT_SEED, FAULT_KILLS, FAULT_SHOES, FAULT_ROUNDS,
 * FAULT_SKIP_KAFKA_RESTART=1, FAULT_SKIP_HARD_STEPS=1, FAULT_OUTAGE_S, FAULT_LONG=1,
 * FAULT_KEEP_RUN_DIR=1, FAULT_DB_NAME, FAULT_KAFKA_PORT, FAULT_KAFKA_CONTROLLER_PORT, FAULT_PG_PORT,
 * FAULT_PG_BIN). Progress on stderr, the report on stdout.
 * Exit 0 when every check passed, 1 otherwise (the logs stay in .stack/fault/<run>/).
 * Ctrl-C stops everything it started (services, broker, the private PostgreSQL cluster).
 */
import { Command } from 'commander';
import { failures, faultOptionsFromEnv, formatReport, runFaultScenario } from '../test/fault/scenario';

const program = new Command('fault-run')
  .option('--seed <hex>', 'seed of the run (printed; pass it back to replay the same shoes and fault schedule)')
  .option('--kills <n>', 'SIGKILLs in all (API, relay, projector)')
  .option('--shoes <n>', 'shoes dealt, one per table at a time')
  .option('--rounds <n>', 'rounds per shoe')
  .option('--skip-kafka-restart', 'neither stop nor SIGKILL the private broker')
  .option('--skip-hard-steps', 'not the relay freeze, the long broker outage and the topic loss + republish')
  .option('--outage-s <n>', 'length of the long broker outage, in seconds (0: none)')
  .option('--long', 'a long broker outage of 15 min')
  .option('--keep', 'keep .stack/fault/<run>/ (logs) after a passing run')
  .parse();
const flags = program.opts<{ seed?: string; kills?: string; shoes?: string; rounds?: string; skipKafkaRestart?: boolean; skipHardSteps?: boolean; outageS?: string; long?: boolean; keep?: boolean }>();

async function main(): Promise<number> {
  const env = { ...process.env };
  if (flags.seed) env.FAULT_SEED = flags.seed;
  if (flags.kills) env.FAULT_KILLS = flags.kills;
  if (flags.shoes) env.FAULT_SHOES = flags.shoes;
  if (flags.rounds) env.FAULT_ROUNDS = flags.rounds;
  if (flags.skipKafkaRestart) env.FAULT_SKIP_KAFKA_RESTART = '1';
  if (flags.skipHardSteps) env.FAULT_SKIP_HARD_STEPS = '1';
  if (flags.outageS) env.FAULT_OUTAGE_S = flags.outageS;
  if (flags.long) env.FAULT_LONG = '1';
  if (flags.keep) env.FAULT_KEEP_RUN_DIR = '1';
  const options = faultOptionsFromEnv(env);
  const t0 = Date.now();
  const log = (line: string) => process.stderr.write(`[fault +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
  // Ctrl-C: exit; the 'exit' hook kills the services, and the watchdog (which outlives this
  // process) stops the private PostgreSQL cluster and the private broker
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
  const report = await runFaultScenario(options, log);
  process.stdout.write(formatReport(report) + '\n');
  return failures(report).length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`fault-run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
