/**
 * Checks PostgreSQL against the signed anchors and against the Kafka copy of the ledger
 * (docs/guarantees.md §8, docs/anchors.md):
 *
 *   npm run -s verify                                  # defaults from the environment
 *   npm run -s verify -- --json                        # the report as JSON
 *   npm run -s verify -- --no-kafka                    # PostgreSQL against the anchor file only
 *
 * Prints `streams checked, events checked, anchors checked, divergences` and the first divergence
 * (stream, version, event id, reason). Exit 0: consistent; 1: a divergence; 2: could not check
 * (a connection, a file or a key missing, or a bad configuration).
 *
 * Configuration: `VerifyEnv` of `@ledger/config` (docs/architecture.md §5; docs/configuration.md):
 * `DATABASE_URL`, `KAFKA_BROKERS`, `LEDGER_EVENTS_TOPIC`, `ANCHOR_FILE`, `ANCHOR_TOPIC`,
 * `ANCHOR_PUBLIC_KEY_FILE`, `LEDGER_ID`, `GAMING_DAY_TZ`, `GAMING_DAY_CUTOFF_HOUR` (the fairness alerts a
 * shoe's close owes), read once here and validated (a bad value stops it with exit
 * code 2 and a message naming the variable); they are the defaults of the flags below, and a flag
 * given takes precedence.
 */
import { Command, Option } from 'commander';
import { Client } from 'pg';
import { parseBrokers } from '@ledger/event-store';
import { ConfigError, loadConfig, VerifyEnv } from '@ledger/config';
import { configureDatabaseSessions, pgClientConfig } from '@ledger/infra';
import { anchorVerifySettings, DEFAULT_VERIFY_GRACE_MS, formatReport, kafkaClient, pgSession, readPublicKeys, verifyLedger } from '@ledger/anchors';

interface Options {
  databaseUrl: string;
  brokers: string;
  kafka: boolean;
  anchorFile: string | false;
  publicKey: string[];
  topic: string;
  anchorsTopic: string | false;
  ledgerId?: string;
  graceMs: string;
  maxDivergences: string;
  json?: boolean;
}

async function run(o: Options): Promise<number> {
  const graceMs = Number(o.graceMs);
  const maxDivergences = Number(o.maxDivergences);
  if (!Number.isSafeInteger(graceMs) || graceMs < 0) throw new Error(`--grace-ms must be an integer >= 0, got ${o.graceMs}`);
  if (!Number.isSafeInteger(maxDivergences) || maxDivergences < 1) throw new Error(`--max-divergences must be an integer >= 1, got ${o.maxDivergences}`);
  const publicKeys = readPublicKeys(o.publicKey);
  const kafka = o.kafka ? kafkaClient(parseBrokers(o.brokers), 'ledger-verify') : null;
  const client = new Client(pgClientConfig(o.databaseUrl, 'ledger-verify'));
  await client.connect();
  try {
    const report = await verifyLedger({
      session: pgSession(client),
      ledgerId: o.ledgerId ?? null,
      publicKeys,
      anchorFile: o.anchorFile || null,
      kafka,
      anchorsTopic: o.anchorsTopic || null,
      eventsTopic: o.topic,
      graceMs,
      maxDivergences,
      dayRule: { timeZone: config.GAMING_DAY_TZ, cutoffHour: config.GAMING_DAY_CUTOFF_HOUR },
    });
    process.stdout.write((o.json ? JSON.stringify(report, null, 2) : formatReport(report)) + '\n');
    return report.ok ? 0 : 1;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let config: VerifyEnv;
try {
  config = loadConfig(VerifyEnv, process.env);
  configureDatabaseSessions(config);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`verify: ${err.message}\n`);
  process.exit(2);
}
const env = anchorVerifySettings(config);
const program = new Command('verify')
  .description('check PostgreSQL against the signed anchors (file and topic) and against the Kafka copy of the ledger')
  .option('--database-url <url>', 'PostgreSQL (env DATABASE_URL)', config.DATABASE_URL)
  .option('--brokers <list>', 'Kafka brokers, comma-separated (env KAFKA_BROKERS)', config.KAFKA_BROKERS.join(','))
  .option('--no-kafka', 'read neither topic: PostgreSQL against the anchor file only')
  .option('--anchor-file <file>', 'the anchor file (env ANCHOR_FILE)', env.anchorFile)
  .option('--no-anchor-file', 'do not read the anchor file (the anchors topic only)')
  .option('--public-key <files...>', 'public key file(s), PEM (env ANCHOR_PUBLIC_KEY_FILE, comma-separated)', env.publicKeyFiles)
  .option('--topic <topic>', 'the ledger topic holding the Kafka copy (env LEDGER_EVENTS_TOPIC)', env.eventsTopic)
  .option('--anchors-topic <topic>', 'the anchors topic (env ANCHOR_TOPIC)', env.anchorsTopic)
  .option('--no-anchors-topic', 'do not read the anchors topic')
  .option('--ledger-id <id>', 'the ledger whose anchors to check (env LEDGER_ID; default <database>@<oid>)', env.ledgerId ?? undefined)
  .option('--grace-ms <ms>', 'events younger than this may be unanchored or not on Kafka yet', String(DEFAULT_VERIFY_GRACE_MS))
  .option('--max-divergences <n>', 'most divergences listed (all are counted)', '1000')
  .addOption(new Option('--json', 'print the report as JSON'))
  .action(async (o: Options) => {
    let code: number;
    try {
      code = await run(o);
    } catch (err) {
      process.stderr.write(`verify: could not check: ${err instanceof Error ? err.message : String(err)}\n`);
      code = 2;
    }
    process.exit(code);
  });
program.parseAsync().catch((err) => {
  process.stderr.write(`verify: ${String(err)}\n`);
  process.exit(2);
});
