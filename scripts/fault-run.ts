/**
 * Fault injection as a standalone command for longer soaks (docs/guarantees.md §13): the same run as
 * test/fault/fault-injection.int.spec.ts (shared code in test/fault/scenario.ts). Needs `dist/`
 * (`npm run -s build`) and the local PostgreSQL; starts its own Kafka broker on other ports.
 *
 *   npx tsx scripts/fault-run.ts [--seed <hex>] [--kills <n>] [--shoes <n>] [--rounds <n>] [--skip-pg-restart] [--skip-kafka-restart] [--keep]
 *
 * Flags override the environment (FAULT_SEED, FAULT_KILLS, FAULT_SHOES, FAULT_ROUNDS,
 * FAULT_SKIP_PG_RESTART=1, FAULT_SKIP_KAFKA_RESTART=1, FAULT_KEEP_RUN_DIR=1, FAULT_DB_NAME,
 * FAULT_KAFKA_PORT, FAULT_KAFKA_CONTROLLER_PORT). Progress on stderr, the report on stdout.
 * Exit 0 when every check passed, 1 otherwise (the logs stay in .stack/fault/<run>/).
 * Ctrl-C stops everything it started (services, broker) and starts PostgreSQL again if it was stopped.
 */
import { Command } from 'commander';
import { failures, faultOptionsFromEnv, formatReport, runFaultScenario } from '../test/fault/scenario';

const program = new Command('fault-run')
  .option('--seed <hex>', 'seed of the run (printed; pass it back to replay the same shoes and fault schedule)')
  .option('--kills <n>', 'SIGKILLs in all (API, relay, projector)')
  .option('--shoes <n>', 'shoes dealt, one per table at a time')
  .option('--rounds <n>', 'rounds per shoe')
  .option('--skip-pg-restart', 'leave PostgreSQL running (it is shared with the rest of the machine)')
  .option('--skip-kafka-restart', 'do not stop the private broker')
  .option('--keep', 'keep .stack/fault/<run>/ (logs) after a passing run')
  .parse();
const flags = program.opts<{ seed?: string; kills?: string; shoes?: string; rounds?: string; skipPgRestart?: boolean; skipKafkaRestart?: boolean; keep?: boolean }>();

async function main(): Promise<number> {
  const env = { ...process.env };
  if (flags.seed) env.FAULT_SEED = flags.seed;
  if (flags.kills) env.FAULT_KILLS = flags.kills;
  if (flags.shoes) env.FAULT_SHOES = flags.shoes;
  if (flags.rounds) env.FAULT_ROUNDS = flags.rounds;
  if (flags.skipPgRestart) env.FAULT_SKIP_PG_RESTART = '1';
  if (flags.skipKafkaRestart) env.FAULT_SKIP_KAFKA_RESTART = '1';
  if (flags.keep) env.FAULT_KEEP_RUN_DIR = '1';
  const options = faultOptionsFromEnv(env);
  const t0 = Date.now();
  const log = (line: string) => process.stderr.write(`[fault +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
  // Ctrl-C: exit; the 'exit' hook kills the services, and the watchdog (which outlives this
  // process) starts PostgreSQL if the run had stopped it and stops the private broker
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
