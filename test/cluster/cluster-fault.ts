/**
 * The cluster fault run (docs/operations.md, "The production topology"; `npm run cluster:fault`,
 * and a bounded form in test/cluster/cluster-fault.int.spec.ts): the whole topology of
 * `npm run cluster` in a folder and on ports of its own; seeded shoes dealt through HAProxy by the
 * fault run's driver (retries with the same Idempotency-Key); while they are dealt, one after the
 * other and each while everything else runs, SIGKILL of: the broker leading most partitions of the
 * events topic, one API instance, one projector, the relay holding the lease, and the PostgreSQL
 * primary (the standby promoted, the services following it). Then the load drains, the services
 * stop, and the fault run's checks (test/fault/checks.ts) and `npm run -s verify` run against the
 * promoted primary. It ends with one line, {@link clusterFigures}.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createKafka } from '@ledger/kafka';
import { generateShoeScript, type ShoeScript, type SimTable } from '@ledger/simulator';
import { DEV_JWT_SECRET } from '@ledger/tokens';
import { createProjectionDataSource } from '@ledger/projections';
import { LEDGER_EVENTS_TOPIC } from '@ledger/infra';
import { verifyAfterDrain, type CheckReport } from '../fault/checks';
import { ShoeDriver } from '../fault/driver';
import { clusterDown, clusterUp } from '../../scripts/cluster/lifecycle';
import { relayLeaseHolder } from '../../scripts/cluster/database';
import { kafkaUp, brokerPid, readBackTopics, shareKafkaJars } from '../../scripts/cluster/kafka';
import { kill as killPostgres, promote } from '../../scripts/cluster/postgres';
import { sleep, waitUntil } from '../../scripts/cluster/processes';
import { clusterDatabaseUrls, servicePid, startService, waitHealthy } from '../../scripts/cluster/services';
import { COUNTS, LOAD_RUN_ENV, REPLICATION, REPO_ROOT, topology, type ServiceSpec, type Topology } from '../../scripts/cluster/topology';

/** What a run deals and where it runs. */
export interface ClusterFaultOptions {
  /** Seed of the shoes. */
  readonly seed: string;
  /** Shoes dealt (spread over the tables of config/tables.json, one per table at a time). */
  readonly shoes: number;
  /** Rounds per shoe. */
  readonly rounds: number;
  /** The run's STACK_DIR (its cluster lives in `<stackDir>/cluster`). */
  readonly stackDir: string;
  /** Its CLUSTER_PORT_BASE. */
  readonly portBase: number;
  /** Keep the run's folder (logs, data) after a passing run. */
  readonly keep: boolean;
}

/** The faults, in the order they happen, and how far into the load (fraction of actions answered). */
const FAULTS = [
  ['broker', 0.1],
  ['api', 0.25],
  ['projector', 0.4],
  ['relay', 0.55],
  ['postgres', 0.7],
] as const;
type FaultName = (typeof FAULTS)[number][0];

/** One fault as it happened. */
export interface FaultResult {
  readonly fault: FaultName;
  /** What was killed (e.g. `kafka-2 (pid 123), leader of 3 partitions`). */
  readonly target: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** What a run reports. */
export interface ClusterFaultReport {
  readonly options: ClusterFaultOptions;
  readonly durationMs: number;
  readonly faults: readonly FaultResult[];
  /** Events named by the 2xx answers the load received. */
  readonly acknowledged: number;
  /** Of those, the ones found once in the event store of the promoted primary AND applied by the projections. */
  readonly stored: number;
  /** Events applied twice (a settlement twice in the read model, or one fact twice in the store). */
  readonly appliedTwice: number;
  /** The longest time between two 2xx answers of the load, in seconds. */
  readonly maxUnavailableS: number;
  readonly checks: CheckReport | null;
  /** `npm run -s verify` on the promoted primary: its exit code and its divergences. */
  readonly verify: { readonly exitCode: number | null; readonly divergences: number | null } | null;
  readonly error: string | null;
}

/** The run's one line: `CLUSTER FIGURES brokers=3 rf=3 minIsr=2 apis=2 projectors=2 relays=2 pgStandby=sync acknowledged=N stored=N lost=N appliedTwice=N maxUnavailableS=X`. */
export function clusterFigures(r: ClusterFaultReport): string {
  return (
    `CLUSTER FIGURES brokers=${COUNTS.brokers} rf=${REPLICATION.factor} minIsr=${REPLICATION.minInsync} apis=${COUNTS.apis} projectors=${COUNTS.projectors} relays=${COUNTS.relays} pgStandby=sync ` +
    `acknowledged=${r.acknowledged} stored=${r.stored} lost=${r.acknowledged - r.stored} appliedTwice=${r.appliedTwice} maxUnavailableS=${r.maxUnavailableS.toFixed(1)}`
  );
}

/** Why the run failed, one line each; empty when it passed. */
export function clusterFailures(r: ClusterFaultReport): string[] {
  const out: string[] = [];
  if (r.error) out.push(`run error: ${r.error}`);
  for (const [name] of FAULTS) if (!r.faults.some((f) => f.fault === name)) out.push(`the ${name} fault did not happen under load`);
  for (const f of r.faults) if (!f.ok) out.push(`${f.fault}: ${f.detail}`);
  if (r.acknowledged === 0) out.push('the load got no 2xx');
  if (r.stored !== r.acknowledged) out.push(`${r.acknowledged - r.stored} acknowledged event(s) not stored once and projected`);
  if (r.appliedTwice !== 0) out.push(`${r.appliedTwice} event(s) applied twice`);
  if (r.checks && r.checks.mismatchCount > 0) out.push(`${r.checks.mismatchCount} mismatch(es): ${r.checks.mismatches.slice(0, 5).join('; ')}`);
  if (!r.verify || r.verify.exitCode !== 0 || r.verify.divergences !== 0) out.push(`npm run -s verify on the promoted primary: exit ${r.verify?.exitCode ?? 'not run'}, divergences ${r.verify?.divergences ?? '?'}`);
  return out;
}

/** Seeded shoes over the tables of config/tables.json. */
function shoeScripts(o: ClusterFaultOptions, tag: string): ShoeScript[] {
  const tables: SimTable[] = JSON.parse(readFileSync(join(REPO_ROOT, 'config/tables.json'), 'utf8')).tables;
  return Array.from({ length: o.shoes }, (_, i) =>
    generateShoeScript(tables[i % tables.length], `${o.seed}/shoe/${i + 1}`, {
      shoeId: `cluster-${tag}-${i + 1}`,
      dealerId: `dealer-${(i % 3) + 1}`,
      accounts: 6,
      betChance: 0.6,
      managementVoidChance: 0.04,
      correctionChance: 0.04,
      maxRounds: o.rounds,
    }),
  );
}

const member = (t: Topology, name: string): ServiceSpec => t.services.find((s) => s.name === name)!;

/** SIGKILLs service `s`, waits `downMs` while the load goes on, starts it again and waits until it is healthy. */
async function killAndRestart(t: Topology, s: ServiceSpec, downMs: number): Promise<string> {
  const pid = servicePid(t, s);
  if (!pid) throw new Error(`${s.name} does not run`);
  process.kill(pid, 'SIGKILL');
  await sleep(downMs);
  startService(t, s);
  await waitHealthy(s, 120_000);
  return `${s.name} (pid ${pid})`;
}

/** Runs fault `name` against `t`. @returns what it did @throws when it could not be done */
async function runFault(t: Topology, name: FaultName, log: (l: string) => void): Promise<FaultResult> {
  switch (name) {
    case 'broker': {
      const events = (await readBackTopics(t)).find((x) => x.name === LEDGER_EVENTS_TOPIC)!;
      const [leader, count] = Object.entries(events.leaders).sort((a, b) => b[1] - a[1])[0];
      const b = t.brokers.find((x) => x.nodeId === Number(leader))!;
      const pid = brokerPid(b);
      if (!pid) throw new Error(`kafka-${leader} does not run`);
      process.kill(pid, 'SIGKILL');
      log(`SIGKILL kafka-${leader} (pid ${pid}), leader of ${count} of the events topic's partitions`);
      await sleep(8000);
      await kafkaUp(t, log);
      return { fault: name, target: `kafka-${leader} (pid ${pid}), leader of ${count} partitions`, ok: true, detail: 'killed, 8 s down, started again; the three brokers answer' };
    }
    case 'api':
    case 'projector': {
      const target = await killAndRestart(t, member(t, `${name}-1`), 5000);
      log(`SIGKILL ${target}; 5 s down; started again`);
      return { fault: name, target, ok: true, detail: 'killed, 5 s down, started again and healthy' };
    }
    case 'relay':
      return killRelayLeader(t, log);
    case 'postgres': {
      const pid = await killPostgres(t.postgres.dir, 'primary');
      log(`SIGKILL the PostgreSQL primary (postmaster ${pid}); promoting the standby`);
      const s = await promote(t.postgres.dir);
      return { fault: name, target: `primary (postmaster ${pid})`, ok: s.primary !== null, detail: `standby promoted: primary now 127.0.0.1:${s.primary?.port ?? '?'}` };
    }
  }
}

/** SIGKILLs the relay holding the lease; another must hold it within 15 s; the killed one starts again. */
async function killRelayLeader(t: Topology, log: (l: string) => void): Promise<FaultResult> {
  const holder = await relayLeaseHolder(t);
  const leader = t.services.filter((s) => s.app === 'relay').find((s) => holder?.includes(`:${servicePid(t, s)}:`));
  if (!leader) return { fault: 'relay', target: 'none', ok: false, detail: `no running relay holds the lease (holder ${holder})` };
  const pid = servicePid(t, leader)!;
  process.kill(pid, 'SIGKILL');
  log(`SIGKILL ${leader.name} (pid ${pid}), the lease holder`);
  const t0 = Date.now();
  let tookOver = true;
  await waitUntil('another relay holding the lease', async () => !!(await relayLeaseHolder(t)) && !(await relayLeaseHolder(t))!.includes(`:${pid}:`), 15_000, 250).catch(() => (tookOver = false));
  const after = Date.now() - t0;
  startService(t, leader);
  await waitHealthy(leader, 120_000);
  return { fault: 'relay', target: `${leader.name} (pid ${pid})`, ok: tookOver, detail: tookOver ? `the other relay took the lease ${(after / 1000).toFixed(1)} s after the kill` : 'no other relay took the lease within 15 s' };
}

/**
 * How long the load saw no 2xx at most, in seconds: the longest gap between consecutive answers,
 * less the time the run itself held the load back (`holds`: waiting for a fault to finish).
 */
function longestGapS(answeredAt: readonly number[], holds: readonly (readonly [number, number])[]): number {
  const held = (a: number, b: number) => holds.reduce((n, [s, e]) => n + Math.max(0, Math.min(b, e) - Math.max(a, s)), 0);
  let gap = 0;
  for (let i = 1; i < answeredAt.length; i++) gap = Math.max(gap, answeredAt[i] - answeredAt[i - 1] - held(answeredAt[i - 1], answeredAt[i]));
  return gap / 1000;
}

/** Deals the shoes through HAProxy and runs every fault under that load, each at its point. */
async function loadWithFaults(t: Topology, scripts: readonly ShoeScript[], tag: string, log: (l: string) => void): Promise<{ driver: ShoeDriver; faults: FaultResult[]; holds: [number, number][] }> {
  const faults: FaultResult[] = [];
  const holds: [number, number][] = [];
  let next = 0;
  let current: Promise<void> | null = null;
  const start = (name: FaultName): Promise<void> =>
    runFault(t, name, log)
      .then((f) => void faults.push(f))
      .catch((e: unknown) => void faults.push({ fault: name, target: '?', ok: false, detail: e instanceof Error ? e.message : String(e) }))
      .finally(() => {
        next++;
        current = null;
      });
  // Each fault starts at its point of the load, and the load goes on while it runs, but never past
  // the next fault's point: so every fault happens under load, one after the other.
  const driver: ShoeDriver = new ShoeDriver({
    baseUrl: `http://127.0.0.1:${t.balancer.port}`,
    jwtSecret: DEV_JWT_SECRET,
    scripts,
    keyPrefix: tag,
    log,
    gate: async () => {
      for (;;) {
        if (next >= FAULTS.length) return;
        if (current) {
          if (next + 1 < FAULTS.length && driver.progress >= FAULTS[next + 1][1]) {
            const since = Date.now();
            await current;
            holds.push([since, Date.now()]);
            continue;
          }
          return;
        }
        if (driver.progress < FAULTS[next][1]) return;
        current = start(FAULTS[next][0]);
        await sleep(200);
        return;
      }
    },
  });
  await driver.run();
  while (current) await current;
  for (const f of faults) log(`fault ${f.fault}: ${f.ok ? 'ok' : 'FAILED'}, ${f.target}: ${f.detail}`);
  return { driver, faults, holds };
}

/** Waits until the outbox is drained and the projector group has reached the end of the events topic. */
async function drain(t: Topology, ds: import('typeorm').DataSource): Promise<void> {
  const kafka = createKafka({ clientId: 'cluster-fault-drain', brokers: t.bootstrap.split(','), logLevel: 'nothing' });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await waitUntil('the outbox drained', async () => Number((await ds.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`))[0].n) === 0, 180_000, 500);
    await waitUntil(
      'the projectors at the end of the events topic',
      async () => {
        const hw = await admin.fetchTopicOffsets(LEDGER_EVENTS_TOPIC);
        const cps: { partition: number; next_offset: string }[] = await ds.query(`SELECT partition, next_offset::text AS next_offset FROM read.checkpoints WHERE topic = $1`, [LEDGER_EVENTS_TOPIC]);
        const cp = new Map(cps.map((c) => [c.partition, BigInt(c.next_offset)]));
        return hw.every((x) => BigInt(x.high) <= (cp.get(x.partition) ?? 0n));
      },
      240_000,
      500,
    );
  } finally {
    await admin.disconnect();
  }
}

/** `npm run -s verify -- --json` against the promoted primary, the brokers and the cluster's anchor file. */
function verifyLedger(t: Topology): { exitCode: number | null; divergences: number | null } {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/verify.ts', '--json'], {
    cwd: REPO_ROOT,
    env: { ...process.env, LEDGER_ENV: 'development', DATABASE_URL: clusterDatabaseUrls(t).owner, KAFKA_BROKERS: t.bootstrap, ANCHOR_FILE: join(t.dir, 'anchors', 'anchors.jsonl') },
    encoding: 'utf8',
    timeout: 300_000,
  });
  let divergences: number | null = null;
  try {
    divergences = (JSON.parse(r.stdout) as { divergenceCount: number }).divergenceCount;
  } catch {
    divergences = null;
  }
  return { exitCode: r.status, divergences };
}

/**
 * Runs the whole cluster fault run (see the file comment).
 * @param log progress lines
 * @returns the report; it never throws (an error is in `error`)
 */
export async function runClusterFault(o: ClusterFaultOptions, log: (l: string) => void): Promise<ClusterFaultReport> {
  const t0 = Date.now();
  const t = topology(o.stackDir, o.portBase, LOAD_RUN_ENV);
  const tag = `${Date.now().toString(36)}`;
  mkdirSync(o.stackDir, { recursive: true });
  shareKafkaJars(o.stackDir);
  let faults: FaultResult[] = [];
  let holds: [number, number][] = [];
  let driver: ShoeDriver | null = null;
  let checks: CheckReport | null = null;
  let verify: ClusterFaultReport['verify'] = null;
  let stored = 0;
  let error: string | null = null;
  const scripts = shoeScripts(o, tag);
  try {
    await clusterUp(t, log);
    ({ driver, faults, holds } = await loadWithFaults(t, scripts, tag, log));
    log(`load done: ${driver.stats.actionsDone}/${driver.totalActions} actions, ${driver.accepted.size} events acknowledged, ${driver.stats.retries} retries`);
    const ds = createProjectionDataSource(clusterDatabaseUrls(t).owner, { applicationName: 'cluster-fault-check', poolSize: 4 });
    await ds.initialize();
    try {
      await drain(t, ds);
      for (const s of t.services) {
        const pid = servicePid(t, s);
        if (pid) process.kill(pid, 'SIGTERM');
      }
      const kafka = createKafka({ clientId: 'cluster-fault-check', brokers: t.bootstrap.split(','), logLevel: 'nothing' });
      // the load runs keep the significant-event monitor off (scripts/cluster/topology.ts LOAD_RUN_ENV)
      checks = await verifyAfterDrain({ ds, kafka, topic: LEDGER_EVENTS_TOPIC, schema: 'read', group: 'ledger-projector', scripts, driver, monitor: false });
      const ids = [...driver.accepted.keys()];
      const found: { n: number }[] = await ds.query(`SELECT count(*)::int AS n FROM events e JOIN read.applied_events a ON a.event_id = e.event_id::text WHERE e.event_id = ANY($1::uuid[])`, [ids]);
      stored = Math.min(found[0].n, checks.eventsAccepted - checks.lost);
    } finally {
      await ds.destroy();
    }
    verify = verifyLedger(t);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
    log(`run failed: ${error}`);
    driver?.abort();
  } finally {
    await clusterDown(t, log).catch((e: unknown) => log(`cluster down failed: ${String(e)}`));
  }
  const report: ClusterFaultReport = {
    options: o,
    durationMs: Date.now() - t0,
    faults,
    acknowledged: driver?.accepted.size ?? 0,
    stored,
    appliedTwice: (checks?.settlementsAppliedTwice ?? 0) + (checks?.duplicatedInPg ?? 0),
    maxUnavailableS: longestGapS(driver?.answeredAt ?? [], holds),
    checks,
    verify,
    error,
  };
  if (clusterFailures(report).length === 0 && !o.keep) rmSync(o.stackDir, { recursive: true, force: true });
  return report;
}
