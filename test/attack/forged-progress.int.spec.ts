/**
 * The relay's progress markers against an insider (issue: "progress markers no service login can
 * push", docs/guarantees.md §5). `outbox_progress` and `position_gaps` move only through
 * `ledger_mark_progress` (migration 1799100000000, `test/attack/database-roles.int.spec.ts` and
 * `libs/event-store/src/event-store.int.spec.ts` prove the logins' refusals); here the owner of the
 * database, whom no grant stops, forges them — the progress pushed to 10^15, a hole recorded over a
 * real event — and `npm run -s verify` (verifyLedger step 5) names each on its own. Before step 5,
 * verify reported 0 divergences for both.
 *
 * The forgeries are made inside a transaction that is rolled back (the shared test database keeps
 * its state), and verify reads that transaction through its session.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { verifyLedger, type SqlSession } from '@ledger/anchors';
import { createDataSource, PgEventStore, runMigrations } from '@ledger/event-store';
import type { DataSource } from 'typeorm';
import { TEST_DATABASE_URL } from '../support/ledger-harness';
import { ensureTestTopic, TEST_EVENTS_TOPIC } from '../../libs/event-store/src/testing/int-support';

jest.setTimeout(60_000);

/** The owner's session inside its open transaction: verify's own BEGIN and ROLLBACK become no-ops, so it reads the forgery. */
function insideTransaction(client: Client): SqlSession {
  return {
    query: async (sql, params) => {
      if (/^\s*(START TRANSACTION|BEGIN|ROLLBACK|COMMIT)/i.test(sql)) return [];
      return (await client.query(sql, params as unknown[] | undefined)).rows;
    },
  };
}

describe('verify names a forged progress marker and a forged hole, each on its own', () => {
  let ds: DataSource;
  let owner: Client;
  let position: string;

  beforeAll(async () => {
    ds = createDataSource(TEST_DATABASE_URL);
    await ds.initialize();
    await runMigrations(ds);
    // the int suites' topic, made here if no suite before this one made it: the event's outbox row is
    // left for the next relay to publish, and a row for a topic Kafka lacks would stall every relay after it
    await ensureTestTopic();
    const store = new PgEventStore(ds, { topic: TEST_EVENTS_TOPIC });
    const appended = await store.append({
      streamId: `shoe-${randomUUID()}`,
      tableId: `T-${randomUUID().slice(0, 8)}`,
      expectedVersion: 0,
      events: [{ eventId: randomUUID(), type: 'DealerChanged', data: { dealerId: 'd-2', previousDealerId: 'd-1' } as never }],
      metadata: { actor: { id: 'device-1', role: 'table-device' }, correlationId: randomUUID() },
    });
    position = appended.events[0].globalPosition;
    owner = new Client({ connectionString: TEST_DATABASE_URL });
    await owner.connect();
  });
  afterAll(async () => {
    await owner?.end();
    await ds?.destroy();
  });

  const positionsFound = async (forge: string, params: unknown[] = []) => {
    await owner.query('BEGIN');
    try {
      await owner.query(forge, params);
      const report = await verifyLedger({ session: insideTransaction(owner), publicKeys: new Map(), anchorFile: null, kafka: null, anchorsTopic: null, eventsTopic: null, maxDivergences: 100_000 });
      return report.divergences.filter((d) => d.source === 'positions');
    } finally {
      await owner.query('ROLLBACK');
    }
  };

  it('the progress pushed to 10^15: PROGRESS_AHEAD', async () => {
    const found = await positionsFound(`UPDATE outbox_progress SET through_position = 1000000000000000 WHERE name = 'ledger-relay'`);
    expect(found.filter((d) => d.kind === 'PROGRESS_AHEAD')).toEqual([expect.objectContaining({ globalPosition: '1000000000000000' })]);
  });

  it('a hole recorded over a real event: EVENT_IN_HOLE naming the event', async () => {
    // on the shared test database, other suites' appends may already lie in holes the relay recorded
    // under load (docs/guarantees.md §5: verify names them too): the forgery must add exactly its own
    const inHole = (found: { kind: string; globalPosition?: string | null }[]) => found.filter((d) => d.kind === 'EVENT_IN_HOLE').map((d) => d.globalPosition);
    const before = new Set(inHole(await positionsFound(`SELECT 1`)));
    const found = await positionsFound(`INSERT INTO position_gaps (from_position, to_position) VALUES ($1::bigint, $1::bigint)`, [position]);
    expect(inHole(found).filter((p) => !before.has(p))).toEqual([position]);
  });
});
