/**
 * The cluster fault run, bounded (the full run: `npm run cluster:fault`): every fault happens under
 * load, nothing acknowledged is lost, nothing is applied twice, and `npm run -s verify` finds no
 * divergence on the promoted primary (docs/operations.md, "The production topology").
 */
import { join } from 'node:path';
import { clusterFailures, clusterFigures, runClusterFault, type ClusterFaultReport } from './cluster-fault';
import { REPO_ROOT } from '../../scripts/cluster/topology';
import { downLeftovers } from './leftovers';

let report: ClusterFaultReport;

beforeAll(async () => {
  await downLeftovers('cluster-fault-spec', 30_000);
  const stackDir = join(REPO_ROOT, '.stack', `cluster-fault-spec-${process.pid}`);
  const log = (line: string) => process.stderr.write(`[cluster-fault] ${line}\n`);
  report = await runClusterFault({ seed: 'cluster-fault-spec', shoes: 6, rounds: 16, stackDir, portBase: 30_000, keep: false }, log);
  process.stderr.write(`${clusterFigures(report)}\n`);
}, 900_000);

describe('the cluster fault run (bounded)', () => {
  it('Given five kills under load (leading broker, an API, a projector, the relay leader, the PostgreSQL primary), Then every one happened and the run passed', () => {
    expect(report.faults.map((f) => f.fault)).toEqual(['broker', 'api', 'projector', 'relay', 'postgres']);
    expect(clusterFailures(report)).toEqual([]);
  });

  it('Then every acknowledged event is stored once and projected, and none is applied twice', () => {
    expect(report.acknowledged).toBeGreaterThan(500);
    expect(report.stored).toBe(report.acknowledged);
    expect(report.appliedTwice).toBe(0);
    expect(clusterFigures(report)).toMatch(/^CLUSTER FIGURES brokers=3 rf=3 minIsr=2 apis=2 projectors=2 relays=2 pgStandby=sync acknowledged=\d+ stored=\d+ lost=0 appliedTwice=0 maxUnavailableS=\d+\.\d$/);
  });

  it('Then verify finds no divergence on the promoted primary', () => {
    expect(report.verify).toEqual({ exitCode: 0, divergences: 0 });
  });
});
