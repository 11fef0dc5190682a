/**
 * The machine's own ceilings, measured in the same run, to read our figures against:
 *
 * - PostgreSQL COPY (binary, one transaction, logged, the same indexes and CHECKs: `CREATE TABLE …
 *   (LIKE … INCLUDING ALL)`) of the very rows our runs wrote: the ingest's `events` + `outbox`
 *   rows; the rebuild's projection tables. Run by psql's `\copy`.
 * - PostgreSQL single-row commits (pgbench, 8 clients): what a write path that commits once per
 *   request can reach on this disk; and the same when every transaction also updates one shared
 *   counter row (the event store's gap-free position counter), which serialises the commits.
 * - Kafka's ProducerPerformance (acks=all, the producer's defaults otherwise) with our mean record
 *   size, at full speed and at 1,000 records/s (its latency percentiles), and ConsumerPerformance
 *   over the rebuild topic itself.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pg } from '../lib/pg';
import { runCommand } from '../lib/procs';
import { round, say } from '../lib/util';

export interface CopyCeiling {
  readonly rows: number;
  readonly tables: Record<string, number>;
  readonly seconds: number;
  readonly rowsPerSecond: number | null;
  /** Source events per second this COPY corresponds to (rows per event as in our run). */
  readonly eventsPerSecond: number | null;
  readonly events: number;
}

function psqlArgs(url: string): string[] {
  return ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url];
}

async function psql(name: string, url: string, script: string, logDir: string, timeoutMs = 600_000) {
  const r = await runCommand(name, 'psql', psqlArgs(url), logDir, { input: script, timeoutMs });
  if (r.code !== 0) throw new Error(`${name}: psql failed (${r.code}): ${r.out.slice(-2000)}`);
  return r;
}

/** Columns of a table that COPY may write (generated columns excluded). */
async function copyColumns(pg: Pg, schema: string, table: string): Promise<string[]> {
  const { rows } = await pg.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    [schema, table],
  );
  return rows.map((r: { column_name: string }) => `"${r.column_name}"`);
}

/**
 * COPYs the rows of `tables` (schema-qualified) into same-shaped copies in a scratch schema, in one
 * transaction, and times it. `events` = the number of ledger events those rows came from (-1: the `events` table's row count).
 */
export async function copyCeiling(pg: Pg, url: string, o: { label: string; schema: string; tables: string[]; events: number; tmpDir: string; logDir: string }): Promise<CopyCeiling> {
  const target = `bench_ceiling_${o.label}`;
  const dir = join(o.tmpDir, target);
  mkdirSync(dir, { recursive: true });
  const counts: Record<string, number> = {};
  let exportScript = '';
  let setup = `DROP SCHEMA IF EXISTS ${target} CASCADE;\nCREATE SCHEMA ${target};\n`;
  let load = 'BEGIN;\n';
  for (const t of o.tables) {
    const cols = (await copyColumns(pg, o.schema, t)).join(',');
    counts[t] = (await pg.query(`SELECT count(*)::int AS n FROM "${o.schema}"."${t}"`)).rows[0].n;
    const file = join(dir, `${t}.bin`);
    exportScript += `\\copy (SELECT ${cols} FROM "${o.schema}"."${t}") TO '${file}' WITH (FORMAT binary)\n`;
    setup += `CREATE TABLE ${target}."${t}" (LIKE "${o.schema}"."${t}" INCLUDING ALL);\n`;
    load += `\\copy ${target}."${t}" (${cols}) FROM '${file}' WITH (FORMAT binary)\n`;
  }
  load += 'COMMIT;\n';
  say(`ceiling: PostgreSQL COPY of ${Object.values(counts).reduce((a, b) => a + b, 0)} rows (${o.tables.join(', ')})`);
  await psql(`copy-export-${o.label}`, url, exportScript, o.logDir);
  await psql(`copy-setup-${o.label}`, url, setup, o.logDir);
  const r = await psql(`copy-load-${o.label}`, url, load, o.logDir);
  await psql(`copy-drop-${o.label}`, url, `DROP SCHEMA ${target} CASCADE;\n`, o.logDir);
  rmSync(dir, { recursive: true, force: true });
  const rows = Object.values(counts).reduce((a, b) => a + b, 0);
  const seconds = r.ms / 1000;
  // events < 0: the rows are the ledger's own (`events` + `outbox`): one event per `events` row
  const events = o.events < 0 ? counts.events : o.events;
  return { rows, tables: counts, seconds: round(seconds, 2)!, rowsPerSecond: round(rows / seconds), eventsPerSecond: round(events / seconds), events };
}

export interface CommitCeiling {
  readonly clients: number;
  readonly seconds: number;
  /** Independent single-row INSERT transactions per second. */
  readonly independentCommitsPerSecond: number | null;
  /** The same, each transaction also updating one shared counter row (serialised commits). */
  readonly serialisedCommitsPerSecond: number | null;
}

export async function commitCeiling(pg: Pg, url: string, o: { seconds: number; clients: number; tmpDir: string; logDir: string }): Promise<CommitCeiling> {
  say(`ceiling: PostgreSQL single-row commits (pgbench, ${o.clients} clients, ${o.seconds} s each)`);
  await pg.query(`DROP TABLE IF EXISTS bench_commit, bench_counter`);
  await pg.query(`CREATE TABLE bench_commit (id bigserial PRIMARY KEY, v int NOT NULL, at timestamptz NOT NULL DEFAULT now())`);
  await pg.query(`CREATE TABLE bench_counter (id boolean PRIMARY KEY, n bigint NOT NULL)`);
  await pg.query(`INSERT INTO bench_counter VALUES (true, 0)`);
  mkdirSync(o.tmpDir, { recursive: true });
  const independent = join(o.tmpDir, 'pgbench-independent.sql');
  const serialised = join(o.tmpDir, 'pgbench-serialised.sql');
  writeFileSync(independent, 'INSERT INTO bench_commit (v) VALUES (1);\n');
  writeFileSync(serialised, 'BEGIN;\nUPDATE bench_counter SET n = n + 1 WHERE id;\nINSERT INTO bench_commit (v) VALUES (1);\nCOMMIT;\n');
  const tps = async (name: string, file: string) => {
    const r = await runCommand(name, 'pgbench', ['-n', '-c', String(o.clients), '-j', '2', '-T', String(o.seconds), '-f', file, url], o.logDir, { timeoutMs: (o.seconds + 60) * 1000 });
    const m = /tps = ([\d.]+) \(without initial connection time\)/.exec(r.out);
    if (r.code !== 0 || !m) throw new Error(`${name}: pgbench failed: ${r.out.slice(-1500)}`);
    return round(Number(m[1]));
  };
  const a = await tps('pgbench-independent', independent);
  const b = await tps('pgbench-serialised', serialised);
  await pg.query(`DROP TABLE IF EXISTS bench_commit, bench_counter`);
  return { clients: o.clients, seconds: o.seconds, independentCommitsPerSecond: a, serialisedCommitsPerSecond: b };
}

export interface ProducerCeiling {
  readonly records: number;
  readonly recordBytes: number;
  readonly recordsPerSecond: number | null;
  readonly mbPerSecond: number | null;
  readonly latencyMs: { avg: number | null; p50: number | null; p99: number | null; max: number | null };
  readonly peakMiB: number;
  readonly props: string;
}

const KAFKA_CP = '.stack/kafka/libs/*';
const JVM = ['-Xms128m', '-Xmx512m', '-XX:+UseG1GC', '-Dlog4j2.level=warn'];

/** org.apache.kafka.tools.ProducerPerformance; `throughput` -1 = as fast as it goes. */
export async function producerPerformance(o: { topic: string; records: number; recordBytes: number; throughput: number; logDir: string; name: string }): Promise<ProducerCeiling> {
  const props = ['bootstrap.servers=127.0.0.1:9092', 'acks=all'];
  say(`ceiling: Kafka ProducerPerformance ${o.records} records × ${o.recordBytes} B, throughput ${o.throughput === -1 ? 'max' : o.throughput + '/s'}`);
  const r = await runCommand(
    o.name,
    'java',
    [...JVM, '-cp', KAFKA_CP, 'org.apache.kafka.tools.ProducerPerformance', '--topic', o.topic, '--num-records', String(o.records), '--record-size', String(o.recordBytes), '--throughput', String(o.throughput), '--producer-props', ...props],
    o.logDir,
    { timeoutMs: 600_000 },
  );
  // "N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency, P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th."
  const m = /(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th/.exec(r.out);
  if (r.code !== 0 || !m) throw new Error(`${o.name}: ProducerPerformance failed: ${r.out.slice(-2000)}`);
  return {
    records: Number(m[1]),
    recordBytes: o.recordBytes,
    recordsPerSecond: round(Number(m[2])),
    mbPerSecond: round(Number(m[3]), 1),
    latencyMs: { avg: round(Number(m[4]), 1), p50: Number(m[6]), p99: Number(m[8]), max: round(Number(m[5]), 1) },
    peakMiB: r.peakMiB,
    props: props.join(' '),
  };
}

export interface ConsumerCeiling {
  readonly records: number;
  readonly recordsPerSecond: number | null;
  readonly fetchRecordsPerSecond: number | null;
  readonly mbPerSecond: number | null;
  readonly peakMiB: number;
}

/** org.apache.kafka.tools.ConsumerPerformance over `topic` (a fresh group each time). */
export async function consumerPerformance(o: { topic: string; records: number; group: string; logDir: string }): Promise<ConsumerCeiling> {
  say(`ceiling: Kafka ConsumerPerformance ${o.records} records of ${o.topic}`);
  const r = await runCommand(
    'kafka-consumer-perf',
    'java',
    [...JVM, '-cp', KAFKA_CP, 'org.apache.kafka.tools.ConsumerPerformance', '--bootstrap-server', '127.0.0.1:9092', '--topic', o.topic, '--messages', String(o.records), '--group', o.group, '--timeout', '60000'],
    o.logDir,
    { timeoutMs: 600_000 },
  );
  // header: start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
  const line = r.out
    .split('\n')
    .map((l) => l.trim())
    .find((l) => /^\d{4}-\d\d-\d\d/.test(l) && l.split(',').length >= 6);
  if (r.code !== 0 || !line) throw new Error(`ConsumerPerformance failed: ${r.out.slice(-2000)}`);
  const f = line.split(',').map((x) => x.trim());
  return {
    records: Number(f[4]),
    recordsPerSecond: round(Number(f[5])),
    fetchRecordsPerSecond: f.length >= 10 ? round(Number(f[9])) : null,
    mbPerSecond: round(Number(f[3]), 1),
    peakMiB: r.peakMiB,
  };
}
