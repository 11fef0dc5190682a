/**
 * Fault injection (docs/guarantees.md §13): the API, the relay and the projector as separate processes
 * (from `dist/`), several shoes dealt concurrently through HTTP by a driver that retries with the
 * same Idempotency-Key, while the run SIGKILLs the services at seeded points (≥ 20 kills by
 * default), stops and restarts its private Kafka broker once and PostgreSQL once
 * (FAULT_SKIP_PG_RESTART=1 to leave PostgreSQL alone). Afterwards nothing accepted is lost or
 * duplicated, in PostgreSQL, on Kafka or in the settlements, and the projections equal a rebuild.
 *
 * Tuning: FAULT_KILLS, FAULT_SHOES, FAULT_ROUNDS, FAULT_SEED (printed; pass it back to replay the
 * same shoes and fault schedule). Longer soaks: scripts/fault-run.ts. Needs `npm run build`.
 */
import { failures, faultOptionsFromEnv, formatReport, runFaultScenario } from './scenario';

// the run bounds itself (FAULT_LOAD_TIMEOUT_S and a deadline on every wait); this is the outer guard
jest.setTimeout(40 * 60_000);

describe('fault injection (child-process cluster, real PostgreSQL and Kafka)', () => {
  it('loses nothing, duplicates nothing and projects what a rebuild projects, through kills and restarts', async () => {
    const options = faultOptionsFromEnv(process.env);
    const t0 = Date.now();
    const log = (line: string) => process.stderr.write(`[fault +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
    const report = await runFaultScenario(options, log);
    process.stdout.write(`${formatReport(report)}\n`);

    expect(report.error).toBeNull();
    const kills = report.kills.api + report.kills.relay + report.kills.projector;
    expect(kills).toBeGreaterThanOrEqual(options.kills);
    for (const service of ['api', 'relay', 'projector'] as const) if (options.kills >= 3) expect(report.kills[service]).toBeGreaterThan(0);
    if (options.kafkaRestart) expect(report.kafkaRestarts).toBe(1);
    if (options.pgRestart) expect(report.pgRestarts).toBe(1);
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
    expect(failures(report)).toEqual([]);
  });
});
