/**
 * Resumes halted projection partitions (docs/guarantees.md §6, docs/architecture.md §7).
 *
 *   npm run -s projections:resume -- --list
 *   npm run -s projections:resume -- --by <operator> --reason <text> [--partition <n>] [--reset-offsets]
 *
 * A partition the projector could not go on with is halted by an open incident in
 * `<schema>.projection_incidents` (also shown by `GET /projections/status`). This command closes the
 * open incidents of PROJECTOR_GROUP on LEDGER_EVENTS_TOPIC (or `--group`, `--topic`; one partition
 * with `--partition`); a running projector resumes the partition from its checkpoint within
 * PROJECTOR_INCIDENT_POLL_MS (a stopped one when it starts). If the cause is still there the
 * partition halts again, with a new incident.
 *
 * - An event it could not apply (`PROJECTION.INCONSISTENT_EVENT`, …): deploy the fixed projector,
 *   then resume without `--reset-offsets` (the partition retries the same event).
 * - A lost topic (`PROJECTION.TOPIC_RECREATED`, `OFFSET_REGRESSED`, `LOG_TRUNCATED`): republish it
 *   from PostgreSQL (`npm run -s republish`), then resume with `--reset-offsets`: each partition's
 *   checkpoint moves to the log start of the topic as it is now, with its topic id; the projector
 *   reads it all again and skips, by event id, what it had applied.
 *
 * Output: the incidents resolved (or, with `--list`, the open ones) as JSON on stdout.
 * Exit codes: 0 resolved (or listed), 1 error, 2 usage (also: a topic-loss incident without
 * `--reset-offsets`), 3 no open incident matches.
 * Environment: PROJECTOR_DATABASE_URL (the projector's login), DATABASE_URL, KAFKA_BROKERS,
 * LEDGER_EVENTS_TOPIC, PROJECTOR_GROUP, PROJECTIONS_SCHEMA.
 */
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig, ProjectorEnv } from '@ledger/config';
import { createKafka } from '@ledger/kafka';
import { runCli } from '@ledger/cli';
import { createProjectionDataSource, openIncidents, ProjectionError, projectorConfig, resumePartitions } from '../libs/projections/src';

const partitionArg = (v: string) => {
  if (!/^\d{1,5}$/.test(v)) throw new InvalidArgumentError('a partition number');
  return Number(v);
};

const program = new Command('projections:resume')
  .description('resume halted projection partitions: resolve their open incidents (and reset their offsets after a lost topic)')
  .option('--list', 'print the open incidents and change nothing', false)
  .option('--by <operator>', 'who resumes (kept in the incident)')
  .option('--reason <text>', 'why it can resume: the fix (kept in the incident)')
  .option('--partition <n>', 'only this partition', partitionArg)
  .option('--reset-offsets', 'after a lost topic and its republish: read the topic again from its log start', false)
  .option('--group <group>', 'consumer group (default PROJECTOR_GROUP)')
  .option('--topic <topic>', 'topic (default LEDGER_EVENTS_TOPIC)')
  .exitOverride()
  .showHelpAfterError()
  .action(async (opts: { list: boolean; by?: string; reason?: string; partition?: number; resetOffsets: boolean; group?: string; topic?: string }) => {
    const config = projectorConfig(loadConfig(ProjectorEnv, process.env));
    const consumerGroup = opts.group ?? config.groupId;
    const topic = opts.topic ?? config.topic;
    if (!opts.list && (!opts.by || !opts.reason)) {
      process.stderr.write('projections:resume: --by and --reason are required (they are kept in the incident)\n');
      process.exitCode = 2;
      return;
    }
    const ds = createProjectionDataSource(config.databaseUrl, { applicationName: 'ledger-projections-resume', poolSize: 2 });
    await ds.initialize();
    try {
      if (opts.list) {
        process.stdout.write(JSON.stringify(await openIncidents(ds, config.schema, { consumerGroup, topic, partition: opts.partition }), null, 2) + '\n');
        return;
      }
      const kafka = createKafka({ clientId: `ledger-projections-resume-${process.pid}`, brokers: config.kafkaBrokers, logLevel: 'error' });
      const resolved = await resumePartitions({ ds, kafka, schema: config.schema, consumerGroup, topic, partition: opts.partition, resetOffsets: opts.resetOffsets, by: opts.by!, reason: opts.reason! });
      process.stdout.write(JSON.stringify(resolved, null, 2) + '\n');
    } catch (e) {
      if (e instanceof ProjectionError && (e.code === 'PROJECTION.NO_INCIDENT' || e.code === 'PROJECTION.BAD_CONFIG')) {
        process.stderr.write(`projections:resume: ${e.message}\n`);
        process.exitCode = e.code === 'PROJECTION.NO_INCIDENT' ? 3 : 2;
        return;
      }
      throw e;
    } finally {
      await ds.destroy();
    }
  });

void runCli(program);
