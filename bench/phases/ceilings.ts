/**
 * The machine's own ceilings, measured in the same run, doing the same work as the figure they
 * are read against:
 *
 * - PostgreSQL COPY (binary, one transaction, logged) of the very rows a phase wrote, into copies
 *   with the same columns, indexes, primary/unique keys, CHECKs and foreign keys: the batched
 *   ingest's rows of every table the append wrote (events, outbox, idempotency rows, references…:
 *   whatever tables grew, counted exactly before and after the run, `tableCounts`), the rebuild's
 *   every projection table. Two strategies: into indexed tables, and load-then-index (the faster
 *   one is the ceiling; the rebuild may legitimately build its indexes after the load). psql `\copy`.
 * - PostgreSQL single-row commits (pgbench, 8 clients): what a write path that commits once per
 *   request can reach on this disk; and the same when every transaction also updates one shared
 *   counter row (a ledger-wide counter), which serialises the commits.
 * - A Java producer (bench/kafka/HeaderProducerPerf.java; acks=all, idempotent, as the relay) that
 *   sends the relay's OWN records — keys, values and CloudEvents headers sampled from the topic the
 *   relay wrote — at full speed and at 1,000 records/s (its latency percentiles); Kafka's
 *   ProducerPerformance (no headers: it has no option for them in Kafka 4.1) at the same mean value
 *   size for reference; ConsumerPerformance over the rebuild topic itself.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { KafkaClient } from '@ledger/kafka';
import type { Pg } from '../lib/pg';
import { runCommand } from '../lib/procs';
import { round, say } from '../lib/util';
import { bootstrapServers } from '../lib/config';
import { consumerPerfArgs, headerProducerArgs, listenersOf, pickBroker, producerPerfArgs, producerProps, type BrokerProcess } from '../lib/kafka-tools';

/** Rows of one table to COPY: the newest `rows` by physical order (the rows a phase appended), or all. */
export interface CopySource {
  readonly schema: string;
  readonly table: string;
  /** 'all', or how many of the table's newest rows (by ctid, descending: the last appended). */
  readonly rows: number | 'all';
}

/** Rows exported to files for a later timed load ({@link exportRows} → {@link loadCeiling}). */
export interface CopyExport {
  readonly label: string;
  readonly dir: string;
  readonly tables: { schema: string; table: string; file: string; cols: string; rows: number }[];
}

export interface CopyCeiling {
  readonly label: string;
  readonly rows: number;
  readonly tables: Record<string, number>;
  /** 'indexed': into tables with every index, key, CHECK and foreign key already there; 'load-then-index': bare tables, then the same indexes, keys and foreign keys built. */
  readonly strategy: 'indexed' | 'load-then-index';
  readonly seconds: number;
  readonly rowsPerSecond: number | null;
  /** Every strategy tried, seconds each (the ceiling is the fastest). */
  readonly tried: Record<string, number>;
  /** Foreign keys re-created on the copies (they reference the original tables, whose rows are there). */
  readonly foreignKeys: number;
  readonly indexes: number;
}

function psqlArgs(url: string): string[] {
  return ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url];
}

async function psql(name: string, url: string, script: string, logDir: string, timeoutMs = 1_800_000) {
  const r = await runCommand(name, 'psql', psqlArgs(url), logDir, { input: script, timeoutMs });
  if (r.code !== 0) throw new Error(`${name}: psql failed (${r.code}): ${r.out.slice(-2000)}`);
  return r;
}

/** Columns of a table that COPY may write (generated columns excluded). */
async function copyColumns(pg: Pg, schema: string, table: string): Promise<string[]> {
  const { rows } = await pg.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND is_generated = 'NEVER' ORDER BY ordinal_position`, [schema, table]);
  return rows.map((r: { column_name: string }) => `"${r.column_name}"`);
}

/** Exact row counts of every base table of `schema` (but `migrations`). */
export async function tableCounts(pg: Pg, schema: string): Promise<Record<string, number>> {
  const { rows } = await pg.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name NOT IN ('migrations') AND table_name NOT LIKE 'bench\\_%' ORDER BY 1`, [
    schema,
  ]);
  const out: Record<string, number> = {};
  for (const r of rows as { table_name: string }[]) out[r.table_name] = (await pg.query(`SELECT count(*)::int AS n FROM "${schema}"."${r.table_name}"`)).rows[0].n;
  return out;
}

/** The tables that grew between two {@link tableCounts}, as COPY sources of their newest rows. */
export function grownTables(schema: string, before: Record<string, number>, after: Record<string, number>): CopySource[] {
  return Object.entries(after)
    .map(([table, n]) => ({ schema, table, rows: n - (before[table] ?? 0) }))
    .filter((t) => t.rows > 0);
}

/** Exports the sources' rows to binary files under `tmpDir/<label>` (not timed). */
export async function exportRows(pg: Pg, url: string, o: { label: string; sources: CopySource[]; tmpDir: string; logDir: string }): Promise<CopyExport> {
  const dir = join(o.tmpDir, `copy-${o.label}`);
  mkdirSync(dir, { recursive: true });
  let script = '';
  const tables: CopyExport['tables'] = [];
  for (const t of o.sources) {
    const cols = (await copyColumns(pg, t.schema, t.table)).join(',');
    const file = join(dir, `${t.schema}.${t.table}.bin`);
    const rows = t.rows === 'all' ? (await pg.query(`SELECT count(*)::int AS n FROM "${t.schema}"."${t.table}"`)).rows[0].n : t.rows;
    const select = t.rows === 'all' ? `SELECT ${cols} FROM "${t.schema}"."${t.table}"` : `SELECT ${cols} FROM "${t.schema}"."${t.table}" ORDER BY ctid DESC LIMIT ${t.rows}`;
    script += `\\copy (${select}) TO '${file}' WITH (FORMAT binary)\n`;
    tables.push({ schema: t.schema, table: t.table, file, cols, rows });
  }
  await psql(`copy-export-${o.label}`, url, script, o.logDir);
  return { label: o.label, dir, tables };
}

/** Index definitions (pg_indexes) and foreign keys of a table, for re-creating them on a copy. */
async function indexesAndKeys(pg: Pg, schema: string, table: string) {
  const idx = (await pg.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2`, [schema, table])).rows.map((r: { indexdef: string }) => r.indexdef);
  const fks = (
    await pg.query(
      `SELECT conname, pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE c.contype = 'f' AND n.nspname = $1 AND t.relname = $2`,
      [schema, table],
    )
  ).rows as { conname: string; def: string }[];
  return { idx, fks };
}

/**
 * Times loading an export into same-shaped copies in a scratch schema, in one transaction, logged:
 * for each strategy asked, the copies get every index, unique and primary key, CHECK and NOT NULL
 * of the source (`LIKE … INCLUDING ALL` or the index definitions themselves) and its foreign keys
 * (pointing at the ORIGINAL referenced tables, whose rows exist, so each check is the same index
 * probe the real write makes). The ceiling is the fastest strategy.
 */
export async function loadCeiling(pg: Pg, url: string, e: CopyExport, o: { strategies: CopyCeiling['strategy'][]; logDir: string }): Promise<CopyCeiling> {
  const target = `bench_ceiling_${e.label.replace(/[^a-z0-9_]/g, '_')}`;
  const tried: Record<string, number> = {};
  let fkCount = 0;
  let idxCount = 0;
  const rows = e.tables.reduce((n, t) => n + t.rows, 0);
  say(`ceiling: PostgreSQL COPY of ${rows} rows (${e.tables.map((t) => `${t.table} ${t.rows}`).join(', ')}), ${o.strategies.join(' and ')}`);
  for (const strategy of o.strategies) {
    let setup = `DROP SCHEMA IF EXISTS ${target} CASCADE;\nCREATE SCHEMA ${target};\n`;
    // timed inside the session (clock_timestamp() before BEGIN and after COMMIT): psql's own start-up is not counted
    let load = `SELECT clock_timestamp() AS copy_t0 \\gset\nBEGIN;\n`;
    let after = '';
    fkCount = 0;
    idxCount = 0;
    for (const t of e.tables) {
      const copy = `${target}."${t.table}"`;
      const { idx, fks } = await indexesAndKeys(pg, t.schema, t.table);
      idxCount += idx.length;
      if (strategy === 'indexed') {
        setup += `CREATE TABLE ${copy} (LIKE "${t.schema}"."${t.table}" INCLUDING ALL);\n`;
        for (const fk of fks) setup += `ALTER TABLE ${copy} ADD CONSTRAINT "${fk.conname}" ${fk.def};\n`;
      } else {
        setup += `CREATE TABLE ${copy} (LIKE "${t.schema}"."${t.table}" INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS);\n`;
        for (const def of idx) after += def.replace(/ ON (ONLY )?("?[a-z_0-9]+"?)\.("?[a-z_0-9]+"?) /, ` ON ${copy} `) + ';\n';
        for (const fk of fks) after += `ALTER TABLE ${copy} ADD CONSTRAINT "${fk.conname}" ${fk.def};\n`;
      }
      fkCount += fks.length;
      load += `\\copy ${copy} (${t.cols}) FROM '${t.file}' WITH (FORMAT binary)\n`;
    }
    load += after + `COMMIT;\nSELECT 'COPYMS ' || (extract(epoch FROM clock_timestamp() - :'copy_t0'::timestamptz) * 1000)::text AS copy_ms;\n`;
    // a foreign key written as REFERENCES <table> (no schema) resolves through the search path: the originals
    await psql(`copy-setup-${e.label}-${strategy}`, url, setup, o.logDir);
    const r = await psql(`copy-load-${e.label}-${strategy}`, url, load, o.logDir);
    const ms = /COPYMS ([\d.]+)/.exec(r.out);
    if (!ms) throw new Error(`copy-load-${e.label}-${strategy}: no timing in psql's output: ${r.out.slice(-500)}`);
    tried[strategy] = round(Number(ms[1]) / 1000, 3)!;
    await psql(`copy-drop-${e.label}-${strategy}`, url, `DROP SCHEMA ${target} CASCADE;\n`, o.logDir);
  }
  const best = (Object.entries(tried) as [CopyCeiling['strategy'], number][]).sort((a, b) => a[1] - b[1])[0];
  const counts = Object.fromEntries(e.tables.map((t) => [`${t.schema}.${t.table}`, t.rows]));
  return { label: e.label, rows, tables: counts, strategy: best[0], seconds: best[1], rowsPerSecond: round(rows / best[1]), tried, foreignKeys: fkCount, indexes: idxCount };
}

/** Removes an export's files. */
export function dropExport(e: CopyExport): void {
  rmSync(e.dir, { recursive: true, force: true });
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

/** Every `kafka.Kafka` process on this machine, with its class path folder and listeners. */
function brokerProcesses(): BrokerProcess[] {
  const out: BrokerProcess[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let cmd: string[];
    try {
      cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const k = cmd.indexOf('kafka.Kafka');
    if (k < 0) continue;
    const i = cmd.indexOf('-cp');
    const props = cmd[k + 1];
    let listeners: string | null = null;
    try {
      listeners = props ? listenersOf(readFileSync(props, 'utf8')) : null;
    } catch {
      listeners = null;
    }
    out.push({ pid: Number(d), libs: i >= 0 ? cmd[i + 1].replace(/\/\*$/, '') : null, listeners });
  }
  return out;
}

/**
 * The broker process serving `brokers` on this machine (several may run: scripts/stack.sh with
 * another KAFKA_PORT, or another checkout's, "Another checkout's broker"), its pid (null when it
 * runs elsewhere) and the folder of Kafka jars the Java ceilings run with: KAFKA_LIBS, else this
 * checkout's `.stack/kafka/libs` (STACK_DIR's when set), else that broker's `-cp`.
 * @throws Error when no folder of Kafka jars is known
 */
export function kafkaBroker(brokers: readonly string[]): { pid: number | null; libs: string } {
  const found = pickBroker(brokerProcesses(), brokers);
  const local = resolve(process.env.STACK_DIR ?? '.stack', 'kafka/libs');
  const libs = process.env.KAFKA_LIBS ?? (existsSync(local) ? local : found?.libs);
  if (!libs) throw new Error('no Kafka jars: set KAFKA_LIBS, or run scripts/stack.sh up');
  return { pid: found?.pid ?? null, libs };
}

const kafkaClasspath = (brokers: readonly string[]) => `${kafkaBroker(brokers).libs}/*`;

/** org.apache.kafka.tools.ProducerPerformance against `brokers`; `throughput` -1 = as fast as it goes. @throws Error when it fails or prints no result */
export async function producerPerformance(o: { brokers: readonly string[]; topic: string; records: number; recordBytes: number; throughput: number; logDir: string; name: string }): Promise<ProducerCeiling> {
  const props = producerProps(o.brokers);
  say(`ceiling: Kafka ProducerPerformance ${o.records} records × ${o.recordBytes} B, throughput ${o.throughput === -1 ? 'max' : o.throughput + '/s'}, brokers ${props[0]}`);
  const args = producerPerfArgs({ brokers: o.brokers, classpath: kafkaClasspath(o.brokers), topic: o.topic, records: o.records, recordBytes: o.recordBytes, throughput: o.throughput });
  const r = await runCommand(o.name, 'java', args, o.logDir, { timeoutMs: 600_000 });
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

/** org.apache.kafka.tools.ConsumerPerformance over `topic` on `brokers` (a fresh group each time). @throws Error when it fails or prints no result */
export async function consumerPerformance(o: { brokers: readonly string[]; topic: string; records: number; group: string; logDir: string }): Promise<ConsumerCeiling> {
  say(`ceiling: Kafka ConsumerPerformance ${o.records} records of ${o.topic}`);
  const args = consumerPerfArgs({ brokers: o.brokers, classpath: kafkaClasspath(o.brokers), topic: o.topic, records: o.records, group: o.group });
  const r = await runCommand('kafka-consumer-perf', 'java', args, o.logDir, { timeoutMs: 600_000 });
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

/** What the relay's records look like, from a sample of the topic it wrote. */
export interface RecordSample {
  readonly records: number;
  readonly meanValueBytes: number;
  readonly meanKeyBytes: number;
  readonly meanHeaders: number;
  readonly meanHeaderBytes: number;
  readonly headerNames: string[];
  /** The samples file for {@link headerProducer}. */
  readonly file: string;
}

/** Reads up to `n` records the relay wrote to `topic` (from the beginning, a throw-away group) into a samples file. */
export async function sampleRecords(kafka: KafkaClient, topic: string, n: number, file: string): Promise<RecordSample> {
  const consumer = kafka.consumer({ groupId: `bench-sample-${Date.now()}`, maxWaitTimeInMs: 500 });
  const lines: string[] = [];
  let valueBytes = 0;
  let keyBytes = 0;
  let headers = 0;
  let headerBytes = 0;
  const names = new Set<string>();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ message: m }) => {
        if (lines.length >= n || !m.value) return;
        const hs: string[] = [];
        for (const [k, v] of Object.entries(m.headers ?? {})) {
          for (const one of Array.isArray(v) ? v : [v]) {
            if (one === undefined) continue;
            const b = Buffer.isBuffer(one) ? one : Buffer.from(String(one));
            hs.push(`${k}=${b.toString('base64')}`);
            headers++;
            headerBytes += b.length + Buffer.byteLength(k);
            names.add(k);
          }
        }
        valueBytes += m.value.length;
        keyBytes += m.key?.length ?? 0;
        lines.push(`${m.key ? m.key.toString('base64') : ''}\t${m.value.toString('base64')}\t${hs.join(',')}`);
        if (lines.length >= n) resolveDone();
      },
    });
    await Promise.race([done, new Promise((r) => setTimeout(r, 20_000))]);
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
  if (lines.length === 0) throw new Error(`no records to sample on ${topic}`);
  writeFileSync(file, lines.join('\n') + '\n');
  const k = lines.length;
  return { records: k, meanValueBytes: Math.round(valueBytes / k), meanKeyBytes: Math.round(keyBytes / k), meanHeaders: round(headers / k, 2)!, meanHeaderBytes: Math.round(headerBytes / k), headerNames: [...names].sort(), file };
}

/** The producer ceiling with the relay's own records, headers included (bench/kafka/HeaderProducerPerf.java). */
export interface HeaderProducerCeiling {
  readonly records: number;
  readonly throughput: number;
  readonly recordsPerSecond: number | null;
  readonly latencyMs: { avg: number | null; p50: number | null; p99: number | null; max: number | null };
  readonly meanValueBytes: number;
  readonly meanHeaderBytes: number;
  readonly meanHeaders: number;
  readonly peakMiB: number;
  readonly props: string;
}

/**
 * Compiles (once per run) and runs bench/kafka/HeaderProducerPerf.java against `brokers`; `throughput` -1 = as fast as it goes.
 * @throws Error when javac or the producer fails, or it prints no result
 */
export async function headerProducer(o: { brokers: readonly string[]; name: string; topic: string; records: number; throughput: number; samples: RecordSample; tmpDir: string; logDir: string }): Promise<HeaderProducerCeiling> {
  const libs = kafkaBroker(o.brokers).libs;
  const classes = join(o.tmpDir, 'java');
  if (!existsSync(join(classes, 'HeaderProducerPerf.class'))) {
    mkdirSync(classes, { recursive: true });
    const jar = readdirSync(libs).find((f) => /^kafka-clients-.*\.jar$/.test(f));
    if (!jar) throw new Error(`no kafka-clients jar in ${libs}`);
    const c = await runCommand('javac-header-producer', 'javac', ['-nowarn', '-cp', `${libs}/*`, '-d', classes, 'bench/kafka/HeaderProducerPerf.java'], o.logDir, { timeoutMs: 120_000 });
    if (c.code !== 0) throw new Error(`javac failed: ${c.out.slice(-2000)}`);
  }
  say(
    `ceiling: Java producer with the relay's records (${o.samples.meanValueBytes} B values, ${o.samples.meanHeaders} headers, ${o.samples.meanHeaderBytes} B of headers), ${o.records} records, throughput ${o.throughput === -1 ? 'max' : o.throughput + '/s'}`,
  );
  const args = headerProducerArgs({ brokers: o.brokers, classpath: `${classes}:${libs}/*`, topic: o.topic, records: o.records, throughput: o.throughput, samplesFile: o.samples.file });
  const r = await runCommand(o.name, 'java', args, o.logDir, { timeoutMs: 600_000 });
  const m = /RESULT records=(\d+) seconds=([\d.]+) rps=([\d.]+) p50=([\d.]+) p99=([\d.]+) max=([\d.]+) avg=([\d.]+)/.exec(r.out);
  if (r.code !== 0 || !m) throw new Error(`${o.name} failed: ${r.out.slice(-2000)}`);
  return {
    records: Number(m[1]),
    throughput: o.throughput,
    recordsPerSecond: round(Number(m[3])),
    latencyMs: { avg: round(Number(m[7]), 2), p50: round(Number(m[4]), 2), p99: round(Number(m[5]), 2), max: round(Number(m[6]), 2) },
    meanValueBytes: o.samples.meanValueBytes,
    meanHeaderBytes: o.samples.meanHeaderBytes,
    meanHeaders: o.samples.meanHeaders,
    peakMiB: r.peakMiB,
    props: `bootstrap.servers=${bootstrapServers(o.brokers)} acks=all enable.idempotence=true (client defaults otherwise)`,
  };
}
