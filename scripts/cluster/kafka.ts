/**
 * The cluster's three Kafka brokers (docs/operations.md, "The production topology"): KRaft, each
 * node broker and controller (a static quorum of three voters), every topic at replication factor
 * 3 with `min.insync.replicas` 2 by the brokers' defaults, so that the ledger's own topic
 * declarations (`@ledger/infra` topics, created as on the single-node stack) get them too. The jars
 * are the Maven Central artifacts `scripts/stack.sh fetch` puts under `.stack/kafka/libs`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKafka, type KafkaAdmin } from '@ledger/kafka';
import { ensureTopics, LEDGER_TOPICS } from '../../libs/infra/src/kafka/topics';
import { livePid, portOpen, startDetached, stopMember, waitUntil } from './processes';
import { KAFKA_CLUSTER_ID, REPLICATION, REPO_ROOT, type BrokerSpec, type Topology } from './topology';

/** The JVM heap of each broker (three run on one machine). */
const BROKER_HEAP = ['-Xms192m', '-Xmx384m'];

const propsOf = (b: BrokerSpec) => join(b.dir, 'server.properties');
const pidOf = (b: BrokerSpec) => join(b.dir, 'kafka.pid');

/** The `server.properties` of broker `b` of topology `t`. */
export function brokerProperties(t: Topology, b: BrokerSpec): string {
  const voters = t.brokers.map((o) => `${o.nodeId}@127.0.0.1:${o.controllerPort}`).join(',');
  return `# Written by scripts/cluster/kafka.ts on every start; edit the script, not this file.
process.roles=broker,controller
node.id=${b.nodeId}
controller.quorum.voters=${voters}
listeners=PLAINTEXT://127.0.0.1:${b.port},CONTROLLER://127.0.0.1:${b.controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${b.port}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=${join(b.dir, 'data')}

# Every topic on three brokers; a write is acknowledged once two replicas hold it (acks=all).
default.replication.factor=${REPLICATION.factor}
min.insync.replicas=${REPLICATION.minInsync}
offsets.topic.replication.factor=${REPLICATION.factor}
transaction.state.log.replication.factor=${REPLICATION.factor}
transaction.state.log.min.isr=${REPLICATION.minInsync}
share.coordinator.state.topic.replication.factor=${REPLICATION.factor}
share.coordinator.state.topic.min.isr=${REPLICATION.minInsync}
# A replica that lost its leader may not become leader with records the others lack.
unclean.leader.election.enable=false
group.initial.rebalance.delay.ms=0
num.partitions=1
auto.create.topics.enable=false
log.retention.ms=-1
log.retention.bytes=-1
`;
}

/** The broker's log4j2 settings: INFO to `<dir>/kafka.log` (rolled at 50 MB, two kept), nothing to the console. */
function log4j(b: BrokerSpec): string {
  const file = join(b.dir, 'kafka.log');
  return [
    'status = warn',
    'appender.file.type = RollingFile',
    'appender.file.name = file',
    `appender.file.fileName = ${file}`,
    `appender.file.filePattern = ${file}.%i`,
    'appender.file.layout.type = PatternLayout',
    'appender.file.layout.pattern = [%d] %p %m (%c)%n',
    'appender.file.policies.type = Policies',
    'appender.file.policies.size.type = SizeBasedTriggeringPolicy',
    'appender.file.policies.size.size = 50MB',
    'appender.file.strategy.type = DefaultRolloverStrategy',
    'appender.file.strategy.max = 2',
    'rootLogger.level = INFO',
    'rootLogger.appenderRef.file.ref = file',
    'logger.request.name = kafka.request.logger',
    'logger.request.level = WARN',
    '',
  ].join('\n');
}

function java(t: Topology, b: BrokerSpec, mainArgs: readonly string[]): string[] {
  const settings = [`-Dlog4j2.configurationFile=${join(b.dir, 'log4j2.properties')}`, '-Djava.awt.headless=true'];
  return [...BROKER_HEAP, '-XX:+UseG1GC', '-XX:+ExitOnOutOfMemoryError', ...settings, '-cp', `${t.kafkaLibs}/*`, ...mainArgs];
}

/** Fetches the jars (once), writes each broker's config and formats its storage (once). @throws Error when Maven or the format fails */
function prepare(t: Topology): void {
  const fetch = spawnSync('bash', ['scripts/stack.sh', 'fetch'], { cwd: REPO_ROOT, env: { ...process.env, STACK_DIR: join(t.kafkaLibs, '..', '..') }, stdio: ['ignore', 'inherit', 'inherit'] });
  if (fetch.status !== 0) throw new Error('the Kafka jars could not be fetched (scripts/stack.sh fetch)');
  for (const b of t.brokers) {
    mkdirSync(join(b.dir, 'data'), { recursive: true });
    writeFileSync(propsOf(b), brokerProperties(t, b));
    writeFileSync(join(b.dir, 'log4j2.properties'), log4j(b));
    if (existsSync(join(b.dir, 'data', 'meta.properties'))) continue;
    const r = spawnSync('java', java(t, b, ['kafka.tools.StorageTool', 'format', '-t', KAFKA_CLUSTER_ID, '-c', propsOf(b)]), { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`kafka-${b.nodeId}: storage format failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ')}`);
  }
}

/**
 * Starts the brokers that are down, waits until the three answer as one cluster, and creates the
 * ledger's topics (at the brokers' replication defaults).
 * @param log progress lines
 * @throws Error when a broker does not join within 120 s, or the topics cannot be created
 */
export async function kafkaUp(t: Topology, log: (line: string) => void): Promise<void> {
  prepare(t);
  for (const b of t.brokers) {
    const { pid, started } = startDetached({
      name: `kafka-${b.nodeId}`,
      cmd: 'java',
      args: java(t, b, ['kafka.Kafka', propsOf(b)]),
      cwd: b.dir,
      pidFile: pidOf(b),
      logFile: join(b.dir, 'kafka.out'),
      marker: propsOf(b),
    });
    log(`kafka-${b.nodeId}: ${started ? 'started' : 'running'} (pid ${pid}) on 127.0.0.1:${b.port}`);
  }
  for (const b of t.brokers) await waitUntil(`kafka-${b.nodeId} on 127.0.0.1:${b.port} (log ${join(b.dir, 'kafka.log')})`, () => portOpen(b.port), 120_000, 500);
  await withAdmin(t, async (admin) => {
    await waitUntil('the three brokers', async () => (await admin.describeCluster()).brokers.length === t.brokers.length, 120_000, 500);
    const { created } = await ensureTopics(admin, LEDGER_TOPICS);
    for (const name of created) log(`topic created: ${name}`);
  });
}

/**
 * Stops every broker (SIGTERM to the three at once, SIGKILL after 30 s): stopped one after the
 * other, the last one waits for a controller quorum that is gone. The data stays for the next `up`.
 */
export async function kafkaDown(t: Topology, log: (line: string) => void): Promise<void> {
  const ends = await Promise.all(t.brokers.map(async (b) => `kafka-${b.nodeId} ${await stopMember({ pidFile: pidOf(b), marker: propsOf(b), graceMs: 30_000 })}`));
  log(ends.join(', '));
}

/** The pid of broker `b` when it runs, else null. */
export function brokerPid(b: BrokerSpec): number | null {
  return livePid(pidOf(b), propsOf(b));
}

/** A topic as the brokers report it: partitions with leader, replicas and ISR, and its `min.insync.replicas`. */
export interface TopicReadBack {
  readonly name: string;
  readonly partitions: number;
  /** The smallest replica count and ISR size over its partitions. */
  readonly minReplicas: number;
  readonly minIsr: number;
  readonly minInsyncReplicas: number | null;
  /** Broker id → partitions it leads. */
  readonly leaders: Readonly<Record<number, number>>;
}

/**
 * Every topic of the cluster read back from the brokers (the ledger's declared topics, those the
 * services create at start — anchors, dead letters — and Kafka's own `__consumer_offsets`).
 * @throws the client's error when no broker answers
 */
export function readBackTopics(t: Topology): Promise<TopicReadBack[]> {
  return withAdmin(t, readTopicsWith);
}

/** {@link readBackTopics} on a connected admin client of the cluster. @throws the client's error when no broker answers */
export async function readTopicsWith(admin: KafkaAdmin): Promise<TopicReadBack[]> {
  const names = (await admin.listTopics()).sort();
  const meta = await admin.fetchTopicMetadata(names);
  const configs = await admin.describeTopicConfigs(names, ['min.insync.replicas']);
  return meta.map((m) => {
    const leaders: Record<number, number> = {};
    for (const p of m.partitions) leaders[p.leader] = (leaders[p.leader] ?? 0) + 1;
    const isr = configs.get(m.name)?.['min.insync.replicas'];
    return {
      name: m.name,
      partitions: m.partitions.length,
      minReplicas: Math.min(...m.partitions.map((p) => p.replicas.length)),
      minIsr: Math.min(...m.partitions.map((p) => p.isr.length)),
      minInsyncReplicas: isr === undefined ? null : Number(isr),
      leaders,
    };
  });
}

/** Runs `fn` with an admin client of the cluster, connected, and disconnects it after. */
export async function withAdmin<T>(t: Topology, fn: (admin: KafkaAdmin) => Promise<T>): Promise<T> {
  const kafka = createKafka({ clientId: 'ledger-cluster', brokers: t.bootstrap.split(','), logLevel: 'nothing' });
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Lets a cluster in another STACK_DIR (a fault run's, a bench's) use the checkout's Kafka jars
 * (`.stack/kafka/libs`, fetched once by `scripts/stack.sh fetch`) through a symbolic link instead
 * of fetching them again. Does nothing when the checkout has none yet or `stackDir` has its own.
 */
export function shareKafkaJars(stackDir: string): void {
  const shared = join(REPO_ROOT, '.stack', 'kafka', 'libs');
  if (!existsSync(join(shared, '.fetched')) || existsSync(join(stackDir, 'kafka', 'libs'))) return;
  mkdirSync(join(stackDir, 'kafka'), { recursive: true });
  symlinkSync(shared, join(stackDir, 'kafka', 'libs'));
}
