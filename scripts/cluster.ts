/**
 * `npm run cluster -- up | down | promote | rejoin | status [--json]`: the production-shaped topology on this machine
 * (docs/operations.md, "The production topology"): three Kafka brokers (replication factor 3,
 * `min.insync.replicas` 2), a PostgreSQL primary with a synchronous standby, a Redis for the shared
 * limits, HAProxy in front of two API instances, two relays and two projectors. Everything lives
 * under `<STACK_DIR>/cluster/` on ports from `CLUSTER_PORT_BASE` (default 29000; the API through
 * HAProxy on base+80); the machine's own PostgreSQL, Redis and the single-node stack are not used.
 *
 *   up       start what is down (idempotent), then wait until one relay holds the lease and every projector
 *            holds partitions; builds nothing: run `npm run -s build` first
 *   down     stop every member (services first, then HAProxy, Redis, the brokers, PostgreSQL); data stays
 *   promote  the PostgreSQL primary is lost: the standby becomes the primary (the pair remembers it, so
 *            up never starts the old primary's folder again)
 *   rejoin   after a failover (the standby promoted), the old PostgreSQL primary's folder becomes the
 *            promoted server's synchronous standby again (pg_basebackup; it must not run)
 *   status   every member, the topics as the brokers read them back, the relay lease, the projectors'
 *            partitions; exit 0 when every member is up, the standby is synchronous, exactly one relay holds
 *            the lease, every projector holds partitions and every topic is at RF 3 / min ISR 2; 3 otherwise
 */
import { Command } from 'commander';
import { runCli } from '@ledger/cli';
import { postgresPromote, postgresRejoin } from './cluster/database';
import { clusterDown, clusterUp } from './cluster/lifecycle';
import { clusterStatus, formatStatus, statusHealthy } from './cluster/status';
import { topologyFromEnv } from './cluster/topology';

const log = (line: string) => process.stderr.write(`[cluster] ${line}\n`);

function program(): Command {
  const p = new Command('cluster').description('the production-shaped topology on this machine (docs/operations.md)').exitOverride();
  p.command('up')
    .description('start what is down')
    .action(() => clusterUp(topologyFromEnv(), log));
  p.command('down')
    .description('stop every member; data stays')
    .action(() => clusterDown(topologyFromEnv(), log));
  p.command('promote')
    .description('the PostgreSQL primary is lost: make the standby the primary (never pg_ctl promote by hand: up would start the old one again)')
    .action(() => postgresPromote(topologyFromEnv(), log));
  p.command('rejoin')
    .description('after a failover, make the old PostgreSQL primary the synchronous standby of the promoted one')
    .action(() => postgresRejoin(topologyFromEnv(), log));
  p.command('status')
    .description('every member and the topics as the brokers read them back')
    .option('--json', 'one JSON document on stdout')
    .action(async (o: { json?: boolean }) => {
      const s = await clusterStatus(topologyFromEnv());
      process.stdout.write(o.json ? `${JSON.stringify(s, null, 2)}\n` : formatStatus(s));
      if (!statusHealthy(s)) process.exitCode = 3;
    });
  return p;
}

void runCli(program());
