/**
 * Creates the ledger's Kafka topics that are missing and checks the partition count of those that exist
 * (declarations: libs/infra/src/kafka/topics.ts). Idempotent; run by `scripts/stack.sh up`.
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 npx tsx scripts/create-topics.ts
 *
 * Exit 0 when every declared topic exists as declared, 1 otherwise. Prints only to stderr.
 */
import { createKafka } from '@ledger/kafka';
import { ensureTopics, LEDGER_TOPICS } from '../libs/infra/src/kafka/topics';

async function main(): Promise<void> {
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  const kafka = createKafka({ clientId: 'stack-create-topics', brokers, logLevel: 'error' });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { created, existing } = await ensureTopics(admin, LEDGER_TOPICS);
    for (const name of created) process.stderr.write(`[topics] created ${name}\n`);
    for (const name of existing) process.stderr.write(`[topics] exists  ${name}\n`);
  } finally {
    await admin.disconnect();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[topics] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
