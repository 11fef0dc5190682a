/**
 * Every launcher of a service passes the heap of SERVICE_HEAP_MIB (libs/config/src/heap.ts,
 * docs/architecture.md §3 "Memory"): `npm start` / `npm run relay` / `npm run projector`, the demo
 * (`demo_heap_of` in scripts/demo-common.sh, used by scripts/demo.sh), the Docker image's CMD, the
 * bench (`nodeArgs`) and `npm run projections:rebuild`. A launcher without the option, or with another figure, runs a service whose
 * memory nothing bounds (before: none had one; the API peaked at 635–712 MiB under 10,000-bet batches).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { heapOption, SERVICE_HEAP_MIB, type HeapSizedService } from '@ledger/config';
import { nodeArgs } from '../bench/lib/context';
import type { BenchContext } from '../bench/lib/context';

const ROOT = join(__dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** The long-running services (the demo and the Docker image run these; a rebuild is a command). */
type Service = Exclude<HeapSizedService, 'rebuild'>;
const SERVICES: readonly Service[] = ['ledger', 'relay', 'projector'];
const MAIN: Record<HeapSizedService, string> = {
  ledger: 'dist/apps/ledger/src/main.js',
  relay: 'dist/apps/relay/src/main.js',
  projector: 'dist/apps/projector/src/main.js',
  rebuild: 'scripts/rebuild-projections.ts',
};
/** `--max-old-space-size=N` options found in a text. */
const heapOptions = (text: string) => text.match(/--max-old-space-size=\d+/g) ?? [];

describe('service heap limits', () => {
  it('are bounded: relay, projector and a rebuild leave room under 300 MiB resident, the API room to settle a 25,000-bet round (176 MiB did not)', () => {
    expect({
      relay: SERVICE_HEAP_MIB.relay <= 200,
      projector: SERVICE_HEAP_MIB.projector <= 200,
      rebuild: SERVICE_HEAP_MIB.rebuild <= 200,
      ledger: SERVICE_HEAP_MIB.ledger >= 384 && SERVICE_HEAP_MIB.ledger <= 1024,
    }).toEqual({ relay: true, projector: true, rebuild: true, ledger: true });
  });

  it.each([
    ['start', 'ledger'],
    ['relay', 'relay'],
    ['projector', 'projector'],
    ['projections:rebuild', 'rebuild'],
  ] as const)('npm run %s passes the heap of %s', (script, service) => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts[script]).toContain(MAIN[service]);
    expect(heapOptions(scripts[script])).toEqual([heapOption(service)]);
  });

  it("the demo's services each get theirs", () => {
    const common = read('scripts/demo-common.sh');
    const of = common.slice(common.indexOf('demo_heap_of() {'), common.indexOf('}', common.indexOf('demo_heap_of() {')));
    const demoName: Record<Service, string> = { ledger: 'api', relay: 'relay', projector: 'projector' };
    for (const s of SERVICES) expect(of).toContain(`${demoName[s]}) echo ${heapOption(s)} ;;`);
    expect(read('scripts/demo.sh')).toMatch(/node "\$\(demo_heap_of "\$name"\)" -r tsconfig-paths\/register "\$\(demo_main_of "\$name"\)"/);
  });

  it("the Docker image's CMD runs the API with its heap", () => {
    const cmd = read('docker/Dockerfile')
      .split('\n')
      .find((l) => l.startsWith('CMD '));
    expect(cmd).toBe(`CMD ["node", "${heapOption('ledger')}", "${MAIN.ledger}"]`);
  });

  it('the bench runs each service as production does (the API instances as ledger, its rebuild worker as `npm run projections:rebuild`), other processes unbounded', () => {
    const c = { profile: false } as BenchContext;
    expect(nodeArgs(c, 'api')).toEqual([heapOption('ledger')]);
    expect(nodeArgs(c, 'api-live')).toEqual([heapOption('ledger')]);
    expect(nodeArgs(c, 'relay')).toEqual([heapOption('relay')]);
    expect(nodeArgs(c, 'projector')).toEqual([heapOption('projector')]);
    expect(nodeArgs(c, 'rebuild')).toEqual([heapOption('rebuild')]);
    expect(nodeArgs(c, 'kafka-consumer-perf')).toEqual([]);
  });
});
