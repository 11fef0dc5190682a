/**
 * Rebuilds the read-side projections from the ledger's Kafka topic (docs/architecture.md §7, docs/guarantees.md §7).
 *
 *   npm run -s projections:rebuild -- [options]        (= npx tsx scripts/rebuild-projections.ts)
 *
 * Two modes:
 * - IN PLACE (default): drops and recreates the live schema (`read`, or PROJECTIONS_SCHEMA),
 *   replays the topic from offset 0 up to the high watermarks captured at start, and leaves the
 *   checkpoints of PROJECTOR_GROUP at those watermarks, so the projector, restarted afterwards,
 *   continues exactly there. Refuses to run while a projector holds the schema (exit 4): stop the
 *   projector first (they share an advisory lock: projectors shared, the rebuild exclusive).
 * - SCRATCH (`--into-schema <name>`): builds a complete copy in another schema and compares its
 *   checksums with live (`--compare-with`, default the live schema). Live is never touched: the
 *   projector keeps running, readers keep reading. The comparison is exact only when live has
 *   consumed the same offsets (a quiet topic, or a stopped projector): both checkpoint sets are
 *   printed and a difference in position is reported as such, not as a mismatch. The scratch
 *   schema is kept for inspection unless `--drop-after`.
 *
 * - SCOPED (`--projection <name>` (repeatable), `--table <tableId>`, `--gaming-day <YYYY-MM-DD>`, any
 *   combination): rebuilds only those projections (and what they read) and only the records of that
 *   table (Kafka key) into a scratch schema (`--into-schema`, default `<live>_scoped`), up to the
 *   live checkpoints read at start, and compares per table the rows of the scope (that table, the
 *   rounds of that gaming day) with live's as of those same checkpoints (read in one snapshot with
 *   them), so the comparison is exact while the projector keeps running. Prints one line per table
 *   `projection table live-rows rebuilt-rows equal|DIFFERENT|-` (`-`: a per-shoe table, not in a
 *   day's scope). Exit 3 when a table differs. Live is never written: repair by an in-place rebuild.
 *
 * Output (stdout): one line per projection `name rows sha256`, then events, seconds, events/s
 * (`--json` prints one JSON object instead). Progress goes to stderr: a bar (records, records/s,
 * ETA) when it is a TTY, otherwise one line every 10 s (`rebuild: 120000/1000929 records (12.0 %),
 * 5400 records/s, ETA 3m03s`), so a log shows it too.
 * Exit codes: 0 done (and equal when compared), 1 error, 2 usage, 3 checksums differ at the same
 * position, 4 schema in use.
 *
 * Environment: MIGRATIONS_DATABASE_URL (a rebuild drops and recreates a schema: it runs as the owner,
 * default DATABASE_URL's database as ledger_owner), DATABASE_URL, KAFKA_BROKERS, LEDGER_EVENTS_TOPIC, PROJECTOR_GROUP,
 * PROJECTIONS_SCHEMA, GAMING_DAY_TZ, GAMING_DAY_CUTOFF_HOUR, RECORD_SIGNING_KEY (must match the live
 * projector's: the replay verifies every record as the projector does and quarantines what fails;
 * the number is printed).
 */
import { SingleBar } from 'cli-progress';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { loadConfig, ProjectorEnv } from '@ledger/config';
import { databaseSessionSettings } from '@ledger/infra';
import { recordSigningKey } from '@ledger/event-store';
import { createKafka } from '@ledger/kafka';
import {
  assertSchemaName,
  createProjectionDataSource,
  diffChecksums,
  ProjectionChecksums,
  projectionChecksums,
  ProjectionError,
  projectorConfig,
  rebuildProjections,
  dropProjectionSchema,
  scopedRebuild,
} from '../libs/projections/src';
import { ALL_PROJECTIONS, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

interface Options {
  intoSchema?: string;
  compareWith?: string;
  compare: boolean;
  dropAfter: boolean;
  json: boolean;
  topic?: string;
  group?: string;
  concurrency: string;
  projection?: string[];
  table?: string;
  gamingDay?: string;
}

const schemaArg = (v: string) => {
  try {
    return assertSchemaName(v);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
};

function buildProgram(): Command {
  return new Command('projections:rebuild')
    .description('rebuild the read-side projections from the ledger topic and print their checksums')
    .option('--into-schema <name>', 'rebuild into this scratch schema instead of the live one (live is left untouched)', schemaArg)
    .option('--compare-with <schema>', 'after a scratch rebuild, compare checksums with this schema (default: the live schema)', schemaArg)
    .option('--no-compare', 'do not compare a scratch rebuild with live')
    .option('--drop-after', 'drop the scratch schema when done', false)
    .option('--topic <topic>', 'topic to replay (default LEDGER_EVENTS_TOPIC)')
    .option('--group <group>', 'checkpoint owner to write (default PROJECTOR_GROUP)')
    .option('--concurrency <n>', 'partitions replayed in parallel', '2')
    .option('--projection <name>', 'scoped: rebuild and compare only this projection (repeatable; what it reads is replayed too)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--table <tableId>', "scoped: only this gaming table's records and rows")
    .option('--gaming-day <YYYY-MM-DD>', "scoped: compare only the rows of this gaming day's rounds")
    .option('--json', 'print one JSON object', false)
    .exitOverride()
    .showHelpAfterError();
}

/**
 * One progress line: records replayed of `total`, the rate since the start (records/s) and the time
 * left at that rate (docs/architecture.md §7).
 */
function progressLine(done: number, total: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const left = rate > 0 ? Math.max(0, total - done) / rate : NaN;
  const eta = Number.isFinite(left) ? `${Math.floor(left / 60)}m${String(Math.round(left % 60)).padStart(2, '0')}s` : '?';
  const pct = total > 0 ? ((100 * done) / total).toFixed(1) : '100.0';
  return `rebuild: ${done}/${total} records (${pct} %), ${Math.round(rate)} records/s, ETA ${eta}`;
}

/** The scoped mode: {@link scopedRebuild} and its per-table report; exit 3 when a table differs. */
async function runScoped(opts: Options, env: Readonly<ProjectorEnv>): Promise<number> {
  const config = projectorConfig(env);
  const concurrency = Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new InvalidArgumentError('--concurrency must be 1..64');
  const scratch = opts.intoSchema ?? `${config.schema}_scoped`;
  const ds = createProjectionDataSource(config.migrationsDatabaseUrl, { applicationName: `ledger-rebuild:${scratch}`.slice(0, 63), poolSize: concurrency + 3, session: databaseSessionSettings(env, 'migrations') });
  await ds.initialize();
  const kafka = createKafka({ clientId: `ledger-rebuild-${process.pid}`, brokers: config.kafkaBrokers, logLevel: 'error' });
  let lastLine = 0;
  try {
    const result = await scopedRebuild({
      ds,
      kafka,
      topic: opts.topic ?? config.topic,
      projections: ALL_PROJECTIONS,
      migrations: READ_MODEL_MIGRATIONS,
      scope: { projections: opts.projection, tableId: opts.table, gamingDay: opts.gamingDay },
      liveSchema: config.schema,
      scratchSchema: scratch,
      checkpointGroup: opts.group ?? config.groupId,
      gamingDay: config.gamingDay,
      recordSigningKey: recordSigningKey(env).key,
      partitionsConsumedConcurrently: concurrency,
      dropAfter: opts.dropAfter,
      onProgress: (p) => {
        if (opts.json || (Date.now() - lastLine < 2000 && p.done < p.total)) return;
        lastLine = Date.now();
        const eta = p.etaSeconds === null ? '?' : `${Math.floor(p.etaSeconds / 60)}m${String(Math.round(p.etaSeconds % 60)).padStart(2, '0')}s`;
        const pct = p.total > 0 ? ((100 * p.done) / p.total).toFixed(1) : '100.0';
        process.stderr.write(`scoped rebuild: ${p.done}/${p.total} records (${pct} %), ${p.applied} in scope, ${p.recordsPerSecond} records/s, ETA ${eta}\n`);
      },
    });
    if (opts.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    else {
      process.stdout.write(`scoped rebuild of ${JSON.stringify(result.scope)} into "${result.scratchSchema}", compared with "${result.liveSchema}" at offsets ${JSON.stringify(result.stopOffsets)}:\n`);
      for (const t of result.tables) {
        const verdict = t.equal === null ? '-' : t.equal ? 'equal' : 'DIFFERENT';
        process.stdout.write(`  ${t.projection.padEnd(16)} ${t.table.padEnd(26)} ${String(t.live?.rows ?? '-').padStart(9)} ${String(t.rebuilt?.rows ?? '-').padStart(9)}  ${verdict}\n`);
      }
      process.stdout.write(
        `records ${result.records} (${result.events} events in scope) in ${(result.durationMs / 1000).toFixed(2)} s = ${result.recordsPerSecond} records/s; checksums ${(result.checksumMs / 1000).toFixed(2)} s; ${result.equal ? 'EQUAL' : 'DIFFERENT'}\n`,
      );
    }
    return result.equal ? 0 : 3;
  } finally {
    await ds.destroy();
  }
}

function printChecksums(title: string, c: ProjectionChecksums): void {
  process.stdout.write(`${title}\n`);
  for (const [name, { rows, sha256 }] of Object.entries(c)) process.stdout.write(`  ${name.padEnd(16)} ${String(rows).padStart(9)}  ${sha256}\n`);
}

async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.parse(argv);
  const opts = program.opts<Options>();
  const env = loadConfig(ProjectorEnv, process.env);
  if (opts.projection?.length || opts.table !== undefined || opts.gamingDay !== undefined) return runScoped(opts, env);
  const config = projectorConfig(env);
  const signing = recordSigningKey(env);
  const live = config.schema;
  const target = opts.intoSchema ?? live;
  const scratch = target !== live;
  const topic = opts.topic ?? config.topic;
  const group = opts.group ?? config.groupId;
  const concurrency = Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new InvalidArgumentError('--concurrency must be 1..64');

  const ds = createProjectionDataSource(config.migrationsDatabaseUrl, { applicationName: `ledger-rebuild:${target}`.slice(0, 63), poolSize: concurrency + 3, session: databaseSessionSettings(env, 'migrations') });
  await ds.initialize();
  const kafka = createKafka({ clientId: `ledger-rebuild-${process.pid}`, brokers: config.kafkaBrokers, logLevel: 'error' });
  const bar = process.stderr.isTTY && !opts.json ? new SingleBar({ stream: process.stderr, format: 'rebuild {bar} {percentage}% | {value}/{total} records | {eps} records/s | ETA {eta_formatted}' }) : null;
  const started = Date.now();
  let lastLine = started;
  try {
    let barStarted = false;
    const result = await rebuildProjections({
      ds,
      kafka,
      topic,
      schema: target,
      projections: ALL_PROJECTIONS,
      migrations: READ_MODEL_MIGRATIONS,
      checkpointGroup: group,
      gamingDay: config.gamingDay,
      recordSigningKey: signing.key,
      partitionsConsumedConcurrently: concurrency,
      onProgress: (done, total) => {
        if (!bar) {
          if (!opts.json && (Date.now() - lastLine >= 10_000 || done >= total)) {
            lastLine = Date.now();
            process.stderr.write(progressLine(done, total, Date.now() - started) + '\n');
          }
          return;
        }
        if (!barStarted) {
          bar.start(total, 0, { eps: 0 });
          barStarted = true;
        }
        bar.update(done, { eps: Math.round((done * 1000) / Math.max(1, Date.now() - started)) });
      },
    });
    bar?.stop();

    let comparison: { with: string; equal: boolean; samePosition: boolean; differ: string[]; checksums: ProjectionChecksums; positions: Record<string, Record<string, string>> } | null = null;
    if (scratch && opts.compare) {
      const other = opts.compareWith ?? live;
      const checksums = await projectionChecksums(ds, other, ALL_PROJECTIONS);
      const differ = diffChecksums(result.checksums, checksums);
      const positions = async (schema: string) =>
        Object.fromEntries(
          (
            (await ds.query(`SELECT partition, next_offset::text AS o FROM "${schema}".checkpoints WHERE consumer_group = $1 AND topic = $2 AND next_offset > 0 ORDER BY partition`, [group, topic])) as {
              partition: number;
              o: string;
            }[]
          ).map((r) => [String(r.partition), r.o]),
        );
      const pos = { [target]: await positions(target), [other]: await positions(other).catch(() => ({})) };
      const samePosition = JSON.stringify(pos[target]) === JSON.stringify(pos[other]);
      comparison = { with: other, equal: differ.length === 0, samePosition, differ, checksums, positions: pos };
    }
    if (scratch && opts.dropAfter) await dropProjectionSchema(ds, target);

    if (opts.json) {
      process.stdout.write(JSON.stringify({ ...result, comparison }, null, 2) + '\n');
    } else {
      printChecksums(`rebuilt schema "${result.schema}" from ${result.topic} (up to ${JSON.stringify(result.highWatermarks)}):`, result.checksums);
      if (result.quarantined > 0) process.stdout.write(`quarantined ${result.quarantined} record(s): see "${result.schema}".quarantine\n`);
      process.stdout.write(`events ${result.events} (records ${result.records}) in ${(result.durationMs / 1000).toFixed(2)} s = ${result.eventsPerSecond} events/s\n`);
      if (comparison) {
        printChecksums(`schema "${comparison.with}":`, comparison.checksums);
        if (comparison.equal) process.stdout.write(`IDENTICAL to "${comparison.with}"\n`);
        else if (!comparison.samePosition) process.stdout.write(`differs from "${comparison.with}" (${comparison.differ.join(', ')}), but they are at different positions: ${JSON.stringify(comparison.positions)}\n`);
        else process.stdout.write(`MISMATCH with "${comparison.with}" at the same position: ${comparison.differ.join(', ')}\n`);
      }
    }
    if (comparison && !comparison.equal && comparison.samePosition) return 3;
    return 0;
  } finally {
    bar?.stop();
    await ds.destroy();
  }
}

run(process.argv).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
    if (e instanceof InvalidArgumentError) {
      process.stderr.write(`projections:rebuild: ${e.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`projections:rebuild: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(e instanceof ProjectionError && e.code === 'PROJECTION.SCHEMA_IN_USE' ? 4 : 1);
  },
);
