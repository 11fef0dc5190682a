import type { KafkaClient, KafkaProducer } from '@ledger/kafka';
import type { DataSource } from 'typeorm';
import { diffChecksums, projectionChecksums } from './checksums';
import { createProjectionDataSource } from './data-source';
import { dropProjectionSchema, runProjectionMigrations } from './migrations';
import { rebuildProjections } from './rebuild';
import { createTopic, deleteTopics, highWatermarks, produce, storedCheckpoints, TEST_DATABASE_URL, testKafka, uniqueTopic, waitForCatchUp } from './testing/kafka-kit';
import { syntheticLedger } from './testing/synthetic-shoes';
import { GRACEFUL_SIGTERM_STOP, projectorStop } from './testing/log-lines';
import { startProjectorProcess, type ProjectorProcess } from './testing/projector-process';
import { ALL_PROJECTIONS, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

/**
 * docs/guarantees.md §6 under a crash: the projector runs as its own process (`npx tsx
 * apps/projector/src/main.ts`), is SIGKILLed while a transaction is open (rows of several
 * projections written, checkpoint moved, not committed), restarted, and must end with exactly the
 * state of a rebuild from the topic.
 */
jest.setTimeout(300_000);

const SCHEMA = 'read_it_crash';
const SCRATCH = 'read_it_crash_rebuild';

function startProjector(env: Record<string, string>): ProjectorProcess {
  return startProjectorProcess(env);
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('projector killed mid-transaction', () => {
  let ds: DataSource;
  let kafka: KafkaClient;
  let producer: KafkaProducer;
  let topic: string;
  const group = `projector-crash-${Date.now()}`;
  const ledger = syntheticLedger({ shoes: 6, seed: 11, prefix: `crash${Date.now() % 100000}`, voidRate: 0.06, correctionRate: 0.06, exposedCardRate: 0.02, shoeVoidRate: 0.3 });
  let env: Record<string, string>;

  beforeAll(async () => {
    ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'projections-int-crash' });
    await ds.initialize();
    await dropProjectionSchema(ds, SCHEMA);
    await dropProjectionSchema(ds, SCRATCH);
    await runProjectionMigrations(ds, { schema: SCHEMA, migrations: READ_MODEL_MIGRATIONS });
    kafka = testKafka();
    topic = uniqueTopic('crash');
    await createTopic(kafka, topic, 3);
    producer = kafka.producer();
    await producer.connect();
    await produce(producer, topic, ledger.events);
    env = {
      DATABASE_URL: TEST_DATABASE_URL,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
      LEDGER_EVENTS_TOPIC: topic,
      PROJECTOR_GROUP: group,
      PROJECTIONS_SCHEMA: SCHEMA,
      PROJECTOR_MAX_RECORDS_PER_TX: '400',
      LOG_LEVEL: 'warn',
    };
  });

  afterAll(async () => {
    await producer?.disconnect();
    if (kafka && topic) await deleteTopics(kafka, [topic]);
    if (ds?.isInitialized) {
      await dropProjectionSchema(ds, SCRATCH).catch(() => undefined);
      await dropProjectionSchema(ds, SCHEMA).catch(() => undefined);
      await ds.destroy();
    }
  });

  it('after SIGKILL mid-transaction and a restart, the state equals a rebuild (checksums equal)', async () => {
    const total = ledger.events.length;
    const hw = await highWatermarks(kafka, topic);
    const applicationName = `ledger-projector:${group}`.slice(0, 63);

    // 1. run with a pause inside every transaction (after all writes, before COMMIT): 5 s, so that reading the
    //    checkpoint and killing fit inside it even on a loaded machine (with 400 ms a CI run saw the COMMIT
    //    first; with 2 s too, once, on a machine busy with other work)
    const first = startProjector({ ...env, PROJECTOR_FAULT_DELAY_IN_TX_MS: '5000' });
    const committed = async () => [...(await storedCheckpoints(ds, SCHEMA, group, topic)).values()].reduce((n, o) => n + o, 0n);
    await until('a first committed transaction', async () => (await committed()) > 0n, 120_000).catch((e) => {
      throw new Error(`${e.message}\n${first.output()}`);
    });
    // 2. wait until the projector is inside its NEXT transaction, then kill it
    await until('an open projector transaction', async () => {
      const rows = await ds.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction' AND datname = current_database()`, [applicationName]);
      return rows.length > 0;
    });
    const beforeKill = await committed();
    process.kill(-first.child.pid!, 'SIGKILL');
    expect(await first.exited).toBeNull(); // killed by the signal
    // the open transaction died with it: nothing of it is visible
    await until('the killed session to be gone', async () => (await ds.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1`, [applicationName])).length === 0);
    const afterKill = await committed();
    expect(afterKill).toBe(beforeKill);
    expect(afterKill).toBeLessThan(BigInt(total)); // it really was mid-stream
    const [{ n: appliedAfterKill }] = await ds.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.applied_events`);
    expect(BigInt(appliedAfterKill)).toBe(afterKill); // rows and checkpoint moved together

    // 3. restart without the pause; it must resume from the checkpoint and catch up
    const second = startProjector({ ...env, LOG_LEVEL: 'info' });
    await waitForCatchUp(kafka, ds, SCHEMA, group, topic, 180_000).catch((e) => {
      throw new Error(`${e.message}\n${second.output()}`);
    });
    // graceful stop: SIGTERM (to the group, as a supervisor would) → the projector finishes and says so
    process.kill(-second.child.pid!, 'SIGTERM');
    // exactly the graceful stop: not the fatal path, which logs "projector stopped" too
    const exitCode = await second.exited; // then read the output: it is complete once the process is gone
    expect(projectorStop(second.output(), exitCode)).toEqual(GRACEFUL_SIGTERM_STOP);

    const [{ n: applied }] = await ds.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.applied_events`);
    expect(applied).toBe(total);
    const cps = await storedCheckpoints(ds, SCHEMA, group, topic);
    for (const [p, h] of hw) if (h > 0n) expect(cps.get(p)).toBe(h);

    // 4. the same state as a rebuild from the topic
    const rebuilt = await rebuildProjections({ projections: ALL_PROJECTIONS, migrations: READ_MODEL_MIGRATIONS, ds, kafka, topic, schema: SCRATCH, checkpointGroup: group });
    const live = await projectionChecksums(ds, SCHEMA, ALL_PROJECTIONS);
    expect(diffChecksums(live, rebuilt.checksums)).toEqual([]);
    expect(live.bet_settlements.rows).toBeGreaterThan(1000);
  });
});
