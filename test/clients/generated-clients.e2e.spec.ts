/**
 * The clients an integrator generates from docs/openapi.json build and work against the real API
 * (docs/api-versioning.md §7): the TypeScript client (openapi-typescript types, openapi-fetch calls,
 * examples/ts-client, type-checked by `tsc`) and the Java client (openapi-generator's `java`
 * generator through Maven, examples/java-client). Each program replays a simulated shoe through its
 * generated client (open, commencement, burns, rounds with bets, cards, cut card, close), then reads
 * a recall, the reconciliation as JSON and CSV, and an export; its printed summary is checked
 * against the API. A contract change that breaks a generated client (a renamed operation, a
 * retyped field: `stake` back to a number fails `tsc` with TS2322) fails this spec.
 * Real PostgreSQL and Kafka, the API, relay and projector in-process; Maven caches its plugins in ~/.m2.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateShoeScript, type SimTable } from '@ledger/simulator';
import { LedgerHarness, startLedger } from '../support/ledger-harness';
import { clientStepsOf, type ClientSteps } from './client-steps';

jest.setTimeout(600_000);

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'node_modules/.bin');
const tables: SimTable[] = JSON.parse(readFileSync(join(ROOT, 'config/tables.json'), 'utf8')).tables;

/** What a program prints (its last stdout line). */
interface Summary {
  client: string;
  calls: number;
  lastEventId: string;
  recall: { roundId: string; status: string; winner: string | null; bets: number };
  reconciliation: { turnover: string; payouts: string; turnoverCsv: string; payoutsCsv: string };
  export: { rows: number };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** Runs a command to its end (at most `timeoutMs`), with its output and how long it took. */
function run(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Run> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 300_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, seconds: (Date.now() - started) / 1000 });
    });
  });
}

/** Fails with the command's output unless it exited 0. */
function succeeded(what: string, r: Run): Run {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
  return r;
}

/** The summary line of a program's stdout. */
function summaryOf(r: Run, into: Summary[]): Summary {
  const lines = r.stdout.trim().split('\n');
  const s = JSON.parse(lines[lines.length - 1]) as Summary;
  into.push(s);
  return s;
}

describe('generated clients (TypeScript and Java) against the real API', () => {
  let h: LedgerHarness;
  let dir: string;
  const timings: Record<string, number> = {};
  const summaries: Summary[] = [];

  beforeAll(async () => {
    h = await startLedger();
    await h.startRelay();
    await h.startProjector();
    dir = mkdtempSync(join(tmpdir(), 'ledger-clients-'));
  });
  afterAll(async () => {
    process.stdout.write(`generated clients, seconds: ${JSON.stringify(timings)}\n${summaries.map((s) => JSON.stringify(s)).join('\n')}\n`);
    if (dir) rmSync(dir, { recursive: true, force: true });
    await h?.close();
  });

  /** A shoe of a few rounds with bets, written as the steps file a program reads, and the program's environment. */
  function shoe(name: string): { steps: ClientSteps; env: Record<string, string> } {
    const table = tables.find((t) => t.tableId === 'T-CLASSIC-01')!;
    const shoeId = `gen-${name}-${Date.now().toString(36)}`;
    const steps = clientStepsOf(generateShoeScript(table, `clients-${name}`, { shoeId, dealerId: 'dealer-7', accounts: 6, betChance: 0.8, maxRounds: 6 }));
    const file = join(dir, `${name}-steps.json`);
    writeFileSync(file, JSON.stringify(steps));
    const env = {
      LEDGER_API_URL: h.baseUrl,
      LEDGER_STEPS: file,
      LEDGER_TOKEN_TABLE_DEVICE: h.client.token('table-device', `device-${name}`),
      LEDGER_TOKEN_BETTING_PLATFORM: h.client.token('betting-platform', `platform-${name}`),
      LEDGER_TOKEN_AUDITOR: h.client.token('auditor', `auditor-${name}`),
    };
    return { steps, env };
  }

  /** The program's summary against the API's own answers, read with the harness's client. */
  async function expectMatchesApi(s: Summary, steps: ClientSteps): Promise<void> {
    expect(s.calls).toBe(steps.steps.length);
    const recall = await h.client.get('auditor', 'aud-clients', `/shoes/${steps.shoeId}/rounds/${steps.recallRoundId}/recall`);
    expect(s.recall).toEqual({ roundId: steps.recallRoundId, status: 'RESULTED', winner: recall.round.winner, bets: recall.bets.length });
    expect(['PLAYER', 'BANKER', 'TIE']).toContain(s.recall.winner);
    const report = await h.client.get('auditor', 'aud-clients', `/reports/reconciliation?groupBy=shoe&shoeId=${steps.shoeId}`);
    expect(s.reconciliation).toEqual({ turnover: report.items[0].turnover, payouts: report.items[0].payouts, turnoverCsv: report.items[0].turnover, payoutsCsv: report.items[0].payouts });
    const placed = steps.steps.filter((st) => st.operationId === 'placeBets').reduce((n, st) => n + (st.body.bets as unknown[]).length, 0);
    expect(placed).toBeGreaterThan(0);
    expect(BigInt(s.reconciliation.turnover)).toBeGreaterThan(0n);
    expect(s.export.rows).toBeGreaterThanOrEqual(placed);
  }

  it('TypeScript: types generated, the program type-checks (stake a string) and replays a shoe, then reads a recall, a reconciliation (JSON = CSV) and an export', async () => {
    const gen = succeeded('openapi-typescript', await run(join(BIN, 'openapi-typescript'), ['docs/openapi.json', '--output', 'examples/ts-client/src/schema.d.ts', '--silent']));
    const tsc = succeeded('tsc examples/ts-client', await run(join(BIN, 'tsc'), ['-p', 'examples/ts-client/tsconfig.json']));
    const { steps, env } = shoe('ts');
    const program = succeeded('examples/ts-client', await run(join(BIN, 'tsx'), ['examples/ts-client/src/main.ts'], { env }));
    Object.assign(timings, { tsGenerate: gen.seconds, tsTypecheck: tsc.seconds, tsRun: program.seconds });
    const s = summaryOf(program, summaries);
    expect(s.client).toBe('ts');
    await expectMatchesApi(s, steps);
  });

  it("TypeScript: a bet whose stake is a number does not type-check against the generated types (TS2322), '2500' does", async () => {
    const probe = join(ROOT, 'examples/ts-client/src/stake-probe.generated.ts');
    writeFileSync(probe, "import type { Bet } from './integrator-bet';\nexport const wrong: Bet = { betId: 'B-1', accountId: 'a-1', betCode: 'BANKER', stake: 2500, currency: 'EUR' };\n");
    try {
      const tsc = await run(join(BIN, 'tsc'), ['-p', 'examples/ts-client/tsconfig.json']);
      timings.tsTypecheckProbe = tsc.seconds;
      expect(tsc.code).not.toBe(0);
      expect(tsc.stdout).toMatch(/stake-probe\.generated\.ts\(2,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
      expect(tsc.stdout.split('\n').filter((l) => l.includes('error TS'))).toHaveLength(1);
    } finally {
      rmSync(probe, { force: true });
    }
  });

  it('Java: the client generated by openapi-generator (Maven) compiles with the program, which replays a shoe and reads a recall, a reconciliation (JSON = CSV) and an export', async () => {
    const cwd = join(ROOT, 'examples/java-client');
    const mvn = succeeded('mvn package', await run('mvn', ['-B', '-q', 'package', '-DskipTests'], { cwd, timeoutMs: 480_000 }));
    const classpath = `target/classes:${readFileSync(join(cwd, 'target/classpath.txt'), 'utf8').trim()}`;
    const { steps, env } = shoe('java');
    const program = succeeded('examples/java-client', await run('java', ['-cp', classpath, 'ledger.example.Main'], { cwd, env }));
    Object.assign(timings, { javaGenerateAndBuild: mvn.seconds, javaRun: program.seconds });
    const s = summaryOf(program, summaries);
    expect(s.client).toBe('java');
    await expectMatchesApi(s, steps);
  });
});
