/**
 * Starting and stopping the whole cluster (docs/operations.md, "The production topology"), in
 * dependency order: PostgreSQL, the brokers, Redis, the APIs (the first migrates the store), the
 * relays, the projectors, then HAProxy in front; stopped the other way round. `up` returns once the
 * services have settled (one relay holds the lease, the projectors' group has split the
 * partitions), not merely once each process answers; after a promotion it starts the promoted
 * server alone, and `status` says the standby is missing until `rejoin`.
 */
import { balancerDown, balancerUp, redisUp } from './balancer';
import { postgresDown, postgresUp } from './database';
import { kafkaDown, kafkaUp } from './kafka';
import { startService, stopService, waitHealthy } from './services';
import { clusterStatus, servicesSettled } from './status';
import { waitUntil } from './processes';
import type { ServiceSpec, Topology } from './topology';

const APPS: readonly ServiceSpec['app'][] = ['api', 'relay', 'projector'];

/**
 * Starts every member that is down, waits until each is healthy, then until the services have settled (idempotent).
 * @param log progress lines
 * @throws Error naming the member that did not start or become healthy (within 120 s each), or the services that did not settle (120 s)
 */
export async function clusterUp(t: Topology, log: (line: string) => void): Promise<void> {
  const t0 = Date.now();
  await postgresUp(t, log);
  await kafkaUp(t, log);
  log(`redis: pid ${await redisUp(t)} on 127.0.0.1:${t.redis.port}`);
  for (const app of APPS) {
    const members = t.services.filter((s) => s.app === app);
    for (const s of members) {
      const { pid, started } = startService(t, s);
      log(`${s.name}: ${started ? 'started' : 'running'} (pid ${pid}) on 127.0.0.1:${s.port}`);
    }
    for (const s of members) await waitHealthy(s, 120_000);
  }
  log(`haproxy: pid ${await balancerUp(t)}; the API is at http://127.0.0.1:${t.balancer.port}`);
  // a projector answers before its group has given it partitions, a relay before one holds the lease
  await waitUntil('the services settled (one relay holding the lease, every projector holding partitions; `npm run cluster -- status` says what is missing)', async () => servicesSettled(await clusterStatus(t)), 120_000, 1000);
  log(`up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Stops every member, the services first (they finish their work while what they need still runs); the data stay. */
export async function clusterDown(t: Topology, log: (line: string) => void): Promise<void> {
  for (const app of APPS) {
    const ends = await Promise.all(t.services.filter((s) => s.app === app).map(async (s) => `${s.name} ${await stopService(t, s)}`));
    log(ends.join(', '));
  }
  const b = await balancerDown(t);
  log(`haproxy ${b.haproxy}, redis ${b.redis}`);
  await kafkaDown(t, log);
  await postgresDown(t, log);
}
