/**
 * The cluster's HAProxy (scripts/cluster/balancer.ts; docs/operations.md, "The production
 * topology"), the real program with the configuration `npm run cluster` writes, in front of two
 * stand-in API instances (each answers its readiness and its own name): a shoe's requests all go to
 * one instance, whatever follows the shoe id and with or without `/v1`; different shoes and every
 * other route are spread over both; an instance that is out hands its shoes to the other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { balancerDown, balancerUp, backendStates } from '../../scripts/cluster/balancer';
import { waitUntil } from '../../scripts/cluster/processes';
import { topology, type ServiceSpec } from '../../scripts/cluster/topology';

const dir = mkdtempSync(join(tmpdir(), 'cluster-balancer-'));
const t = topology(dir, 25_000);
const apis = t.services.filter((s) => s.app === 'api');
const servers = new Map<string, Server>();

function standIn(s: ServiceSpec): Promise<Server> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(req.url === '/health/ready' ? 'ready' : s.name);
  });
  return new Promise((resolve) => server.listen(s.port, '127.0.0.1', () => resolve(server)));
}

async function servedBy(path: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${t.balancer.port}${path}`, { method: 'POST', body: '{}' });
  return res.text();
}

async function bothUp(): Promise<void> {
  await waitUntil('HAProxy sees both instances UP', async () => (await backendStates(t)).every((b) => b.status === 'UP'), 20_000, 200);
}

beforeAll(async () => {
  for (const s of apis) servers.set(s.name, await standIn(s));
  await balancerUp(t);
  await bothUp();
}, 60_000);

afterAll(async () => {
  await balancerDown(t);
  for (const s of servers.values()) s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('HAProxy of npm run cluster', () => {
  it('Given many requests of one shoe, Then one instance serves them all, with or without /v1', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) seen.add(await servedBy(`/shoes/S-affinity/rounds/R-${i}/cards`));
    seen.add(await servedBy('/shoes/S-affinity'));
    seen.add(await servedBy('/v1/shoes/S-affinity/bets'));
    expect(seen.size).toBe(1);
  });

  it('Given many shoes and other routes, Then both instances serve some', async () => {
    const byShoe = new Set<string>();
    for (let i = 0; i < 24; i++) byShoe.add(await servedBy(`/shoes/S-${i}/rounds`));
    expect([...byShoe].sort()).toEqual(['api-1', 'api-2']);
    const other = new Set<string>();
    for (let i = 0; i < 4; i++) other.add(await servedBy('/reports/reconciliation'));
    expect([...other].sort()).toEqual(['api-1', 'api-2']);
  });

  it('Given the instance of a shoe is out, Then the other serves that shoe, and it comes back when the instance does', async () => {
    const first = await servedBy('/shoes/S-failover/rounds');
    const spec = apis.find((a) => a.name === first)!;
    servers.get(first)!.close();
    await waitUntil(`HAProxy sees ${first} DOWN`, async () => (await backendStates(t)).find((b) => b.name === first)?.status.startsWith('DOWN') ?? false, 20_000, 200);
    expect(await servedBy('/shoes/S-failover/rounds')).not.toBe(first);
    servers.set(first, await standIn(spec));
    await bothUp();
    expect(await servedBy('/shoes/S-failover/rounds')).toBe(first);
  }, 60_000);
});
