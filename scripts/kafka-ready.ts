/**
 * Waits until the Kafka broker answers a metadata request (the Kafka port's admin `listTopics`).
 *
 *   npx tsx scripts/kafka-ready.ts [--timeout-ms 60000] [--since <epoch ms>] [--pid <broker pid>] [--log <file>]...
 *
 * Brokers from KAFKA_BROKERS (default 127.0.0.1:9092); timeout also from KAFKA_READY_TIMEOUT_MS.
 * `--since` makes the printed time count from the broker's launch rather than from this script's start;
 * `--pid` fails fast when the broker process dies; `--log` files are tailed on failure.
 * Exit 0 when ready, 1 on timeout or when the broker died.
 * Used by scripts/stack.sh; prints only to stderr.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createKafka } from '@ledger/kafka';

interface Options {
  brokers: string[];
  timeoutMs: number;
  sinceMs: number;
  pid?: number;
  logs: string[];
}

function parseArgs(argv: string[]): Options {
  const opts: Options = {
    brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092')
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
    timeoutMs: Number(process.env.KAFKA_READY_TIMEOUT_MS ?? 60_000),
    sinceMs: Date.now(),
    logs: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    switch (argv[i]) {
      case '--timeout-ms':
        opts.timeoutMs = Number(value);
        i++;
        break;
      case '--since':
        opts.sinceMs = Number(value);
        i++;
        break;
      case '--pid':
        opts.pid = Number(value);
        i++;
        break;
      case '--log':
        opts.logs.push(value);
        i++;
        break;
      default:
        throw new Error(`kafka-ready: unknown argument ${argv[i]}`);
    }
  }
  if (!Number.isFinite(opts.timeoutMs) || opts.timeoutMs <= 0) throw new Error('kafka-ready: bad timeout');
  if (!Number.isFinite(opts.sinceMs)) throw new Error('kafka-ready: bad --since');
  return opts;
}

function say(line: string): void {
  process.stderr.write(`[kafka-ready] ${line}\n`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tail(file: string, lines = 40): string {
  if (!existsSync(file)) return `(${file} does not exist)`;
  const all = readFileSync(file, 'utf8').trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2));
  const startedAt = Date.now();
  const deadline = startedAt + opts.timeoutMs;
  const kafka = createKafka({
    clientId: 'stack-ready',
    brokers: opts.brokers,
    logLevel: 'nothing',
    connectionTimeoutMs: 1_000,
    requestTimeoutMs: 3_000,
    retries: 0,
  });

  let attempts = 0;
  let lastError = 'no attempt made';
  while (Date.now() < deadline) {
    if (opts.pid !== undefined && !alive(opts.pid)) {
      lastError = `broker process ${opts.pid} exited`;
      break;
    }
    attempts++;
    const admin = kafka.admin();
    try {
      await admin.connect();
      const topics = await admin.listTopics();
      const secs = ((Date.now() - opts.sinceMs) / 1000).toFixed(1);
      say(`ready at ${opts.brokers.join(',')} after ${secs} s (${attempts} attempt(s), ${topics.length} topic(s))`);
      return 0;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    await sleep(250);
  }

  const waited = ((Date.now() - startedAt) / 1000).toFixed(1);
  say(`NOT ready at ${opts.brokers.join(',')} after ${waited} s (${attempts} attempt(s)): ${lastError}`);
  for (const file of opts.logs) {
    process.stderr.write(`----- tail of ${file} -----\n${tail(file)}\n`);
  }
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    say(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
