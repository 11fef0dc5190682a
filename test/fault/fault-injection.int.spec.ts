/**
 * Fault injection (docs/guarantees.md §13): the API, the relay and the projector as separate processes
 * (from `dist/`), several shoes dealt concurrently through HTTP by a driver that retries with the
 * same Idempotency-Key, while the run SIGKILLs the services at seeded points (≥ 20 kills by
 * default), restarts its private Kafka broker once cleanly and SIGKILLs it once, and SIGKILLs the
 * postmaster of its own PostgreSQL cluster once (crash recovery); the machine's PostgreSQL is never
 * touched. A service that exits by itself fails the run. Afterwards nothing accepted is lost or
 * duplicated, in PostgreSQL, on Kafka or in the settlements, and the projections equal a rebuild.
 *
 * Tuning: FAULT_KILLS, FAULT_SHOES, FAULT_ROUNDS, FAULT_SEED (printed; pass it back to replay the
 * same shoes and fault schedule); the relay freeze, the long broker
 * outage (180 s) and the topic loss + republish run unless FAULT_SKIP_HARD_STEPS=1; FAULT_LONG=1 makes the outage
 * 15 min. Longer soaks: scripts/fault-run.ts. Needs `npm run build`.
 */
import { cleanStop } from './cluster';
import { failures, faultOptionsFromEnv, formatReport, headlineFigures, runFaultScenario } from './scenario';

// the run bounds itself (FAULT_LOAD_TIMEOUT_S and a deadline on every wait); this is the outer guard
jest.setTimeout(40 * 60_000);

describe('fault injection (child-process cluster, a private PostgreSQL cluster and Kafka broker)', () => {
  it('loses nothing, duplicates nothing and projects what a rebuild projects, through kills and crashes', async () => {
    const options = faultOptionsFromEnv(process.env);
    const t0 = Date.now();
    const log = (line: string) => process.stderr.write(`[fault +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
    const report = await runFaultScenario(options, log);
    process.stdout.write(`${formatReport(report)}\n`);

    expect(report.error).toBeNull();
    // nothing died unasked, and every graceful stop was clean
    expect(report.unexpectedExits).toEqual([]);
    expect(report.stops.filter((s) => !cleanStop(s))).toEqual([]);
    expect(report.stops.map((s) => s.service)).toEqual(expect.arrayContaining(['api', 'projector', 'relay']));
    // the machine's own PostgreSQL was not restarted
    expect(report.machinePg.after).toBe(report.machinePg.before);
    const kills = report.kills.api + report.kills.relay + report.kills.projector;
    expect(kills).toBeGreaterThanOrEqual(options.kills);
    for (const service of ['api', 'relay', 'projector'] as const) if (options.kills >= 3) expect(report.kills[service]).toBeGreaterThan(0);
    if (options.kafkaRestart) expect({ clean: report.kafkaRestarts, sigkill: report.kafkaKills }).toEqual({ clean: 1, sigkill: options.outageS > 0 ? 2 : 1 });
    // a crash, not a restart: the server log shows the recovery
    expect(report.pgKills).toBe(1);
    expect(report.pgCrashRecoveries).toBeGreaterThanOrEqual(1);
    expect(report.hardSteps.filter((p) => !p.ok)).toEqual([]);
    // the hard steps ran, each once (not merely none failed)
    if (options.hardSteps) expect(report.hardSteps.map((p) => p.step).sort()).toEqual(['kafka-outage', 'relay-freeze', 'topic-recreate']);
    expect(report.unexpectedResponses).toEqual([]);
    expect(report.driver.shoesFinished).toBe(options.shoes);
    const c = report.checks!;
    expect(c).not.toBeNull();
    expect({ lost: c.lost, duplicatedInPg: c.duplicatedInPg, missingOnKafka: c.missingOnKafka, settlementsAppliedTwice: c.settlementsAppliedTwice, stakesLost: c.stakesLost, chainProblems: c.chainProblems }).toEqual({
      lost: 0,
      duplicatedInPg: 0,
      missingOnKafka: 0,
      settlementsAppliedTwice: 0,
      stakesLost: 0,
      chainProblems: 0,
    });
    expect(c.kafkaDuplicatesIdentical).toBe(true);
    expect(c.mismatches).toEqual([]);
    expect(c.eventsInPg).toBe(c.eventsAccepted);
    const h = headlineFigures(report);
    expect({ duplicatesFound: h.duplicatesFound, mismatches: h.mismatches }).toEqual({ duplicatesFound: 0, mismatches: 0 });
    expect(h.crashes).toBeGreaterThanOrEqual(options.kafkaRestart ? 2 : 1);
    expect(h.outageSeconds).toBeGreaterThan(0);
    expect(failures(report)).toEqual([]);
  });
});
