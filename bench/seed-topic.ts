/**
 * Development tool: publishes synthetic shoes (libs/projections/src/testing/synthetic-shoes.ts) to a
 * topic, exactly as the outbox relay would (key = tableId, value = envelope JSON, CloudEvents
 * headers), to benchmark the projector and the rebuild without the write side.
 *
 *   npx tsx bench/seed-topic.ts --topic bench.ledger.events --shoes 60 [--partitions 6] [--seed 1]
 *
 * Creates the topic when missing. Never point it at the production topic: it invents events.
 * Prints a one-line summary on stdout.
 */
import { Command } from 'commander';
import { createKafka } from '@ledger/kafka';
import { createTopic, produce } from '../libs/projections/src/testing/kafka-kit';
import { syntheticLedger } from '../libs/projections/src/testing/synthetic-shoes';
import { brokersOf } from './lib/config';

async function main(): Promise<void> {
  const opts = new Command('seed-topic')
    .requiredOption('--topic <topic>', 'target topic (created when missing)')
    .option('--shoes <n>', 'shoes to generate (~1,700 events each)', '60')
    .option('--partitions <n>', 'partitions of a new topic', '6')
    .option('--seed <n>', 'PRNG seed', '1')
    .option('--bets <n>', 'mean bets per round', '6')
    .parse(process.argv)
    .opts<{ topic: string; shoes: string; partitions: string; seed: string; bets: string }>();
  if (opts.topic === 'baccarat.ledger.events.v1') throw new Error('refusing to write synthetic events to the ledger topic');
  const brokers = brokersOf(process.env);
  const kafka = createKafka({ clientId: 'seed-topic', brokers, logLevel: 'error' });
  const admin = kafka.admin();
  await admin.connect();
  const exists = (await admin.listTopics()).includes(opts.topic);
  await admin.disconnect();
  if (!exists) await createTopic(kafka, opts.topic, Number(opts.partitions));
  const t0 = Date.now();
  const ledger = syntheticLedger({ shoes: Number(opts.shoes), seed: Number(opts.seed), betsPerRound: Number(opts.bets), prefix: `seed${opts.seed}` });
  const t1 = Date.now();
  const producer = kafka.producer();
  await producer.connect();
  await produce(producer, opts.topic, ledger.events);
  await producer.disconnect();
  process.stdout.write(`${ledger.events.length} events (${opts.shoes} shoes) generated in ${t1 - t0} ms, published to ${opts.topic} in ${Date.now() - t1} ms\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`seed-topic: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
