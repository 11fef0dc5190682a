/**
 * Republishes the ledger topic from PostgreSQL (docs/guarantees.md §4 and §7; docs/operations.md,
 * "Operations: republishing the ledger topic"), e.g. after the topic was lost and re-created:
 *
 *   npm run -s republish -- [--from-position N] [--to-position N] [--topic T] [--batch-size N] [--json]
 *                                                            (= npx tsx scripts/republish.ts)
 *
 * Sends every event of `events` with a global position in [N, M] (default: 1 .. the last one
 * committed at start) in position order, as the relay's very records: same key (the table id), same
 * value (the stored envelope's canonical JSON), same headers including the `ledger-sig` signature,
 * same partition. Idempotent: a second run adds only byte-identical duplicates (same `ce_id`), which
 * the projector absorbs.
 *
 * It may run while the relays run: it takes the relay's lease by force for its duration (generation
 * + 1; a leader is fenced out and stands by, its batch in flight if any being a byte-identical
 * duplicate), marks the range's unpublished outbox rows published at the end, and gives the lease
 * back; a relay takes over at its next try and continues after the range. Two republishes at once
 * fence each other: the one deposed stops with an error (run it again).
 *
 * Output (stdout): one line `republished <records> records (positions <from>..<to>) to <topic> in
 * <s> s; lease generation <g>; outbox rows marked <m>` (`--json`: one JSON object). Log lines
 * (pino JSON) go to stderr. Exit codes: 0 done, 1 error (the topic missing, PostgreSQL or Kafka
 * down: nothing is lost, run it again), 2 usage.
 *
 * Environment (`RepublishEnv`): RELAY_DATABASE_URL (default DATABASE_URL with the login
 * ledger_relay), DATABASE_URL, KAFKA_BROKERS, LEDGER_EVENTS_TOPIC, RECORD_SIGNING_KEY (the relay's:
 * the records must carry its signature), RELAY_LEASE_TTL_MS, LOG_LEVEL.
 */
import pino from 'pino';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, RepublishEnv } from '@ledger/config';
import { recordSigningKey, republishLedger } from '@ledger/event-store';
import { createKafka } from '@ledger/kafka';

interface Options {
  fromPosition?: bigint;
  toPosition?: bigint;
  topic?: string;
  batchSize: number;
  json: boolean;
}

const position = (v: string): bigint => {
  if (!/^[1-9]\d{0,18}$/.test(v)) throw new InvalidArgumentError('a global position: an integer ≥ 1');
  return BigInt(v);
};
const batch = (v: string): number => {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 5000) throw new InvalidArgumentError('an integer 1..5000');
  return Number(v);
};

function buildProgram(): Command {
  return new Command('republish')
    .description('republish the ledger topic from PostgreSQL: the relay’s records, byte for byte, in position order')
    .option('--from-position <n>', 'first global position (default 1)', position)
    .option('--to-position <n>', 'last global position (default: the last committed at start)', position)
    .option('--topic <topic>', 'topic to publish to (default LEDGER_EVENTS_TOPIC); it must exist')
    .option('--batch-size <n>', 'events per batch', batch, 500)
    .option('--json', 'print one JSON object', false)
    .exitOverride()
    .showHelpAfterError();
}

async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.parse(argv);
  const opts = program.opts<Options>();
  const env = loadConfig(RepublishEnv, process.env);
  const signing = recordSigningKey(env);
  const logger = pino({ name: 'ledger-republish', level: env.LOG_LEVEL }, pino.destination(2));
  if (signing.developmentKey) logger.warn({ variable: 'RECORD_SIGNING_KEY' }, 'RECORD_SIGNING_KEY unset: signing records with the public development key (development mode only)');
  const topic = opts.topic ?? env.LEDGER_EVENTS_TOPIC;
  const kafka = createKafka({ clientId: `ledger-republish-${process.pid}`, brokers: env.KAFKA_BROKERS, logLevel: 'error' });
  const started = Date.now();
  const result = await republishLedger({
    databaseUrl: env.RELAY_DATABASE_URL,
    kafka,
    topic,
    signingKey: signing.key,
    fromPosition: opts.fromPosition,
    toPosition: opts.toPosition,
    leaseTtlMs: env.RELAY_LEASE_TTL_MS,
    batchSize: opts.batchSize,
    logger,
  });
  const seconds = (Date.now() - started) / 1000;
  if (opts.json) process.stdout.write(`${JSON.stringify({ ...result, seconds })}\n`);
  else
    process.stdout.write(
      `republished ${result.records} records (positions ${result.from}..${result.to}) to ${result.topic} in ${seconds.toFixed(1)} s; lease generation ${result.leaseGeneration}; outbox rows marked ${result.outboxMarked}\n`,
    );
  return 0;
}

run(process.argv).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
    if (e instanceof InvalidArgumentError || e instanceof ConfigError) {
      process.stderr.write(`republish: ${e.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`republish: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
