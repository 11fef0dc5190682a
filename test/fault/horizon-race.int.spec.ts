/**
 * The commit-order horizon under concurrent appends (docs/guarantees.md §5;
 * `libs/event-store/src/horizon.ts`): eight writers append to their own streams as fast as they can
 * while the relay's horizon is moved again and again; every time it moves, the positions up to it
 * that hold no committed event are noted, and once the writers have stopped none of them may hold
 * an event — a position the horizon called final was still being written (what the relay records as
 * a hole and `npm run -s verify` names `EVENT_IN_HOLE`). The old horizon matched the writers
 * against the snapshot's list of running ids, which leaves out the newest ones, and failed this
 * within a second. Real PostgreSQL, the relay's login.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { PgEventStore } from '@ledger/event-store';
import { CommitHorizon } from '../../libs/event-store/src/horizon';
import { collectingLogger, dealerChanges, DEVICE, ensureTestTopic, ids, openTestDataSource, pgClient, TEST_EVENTS_TOPIC, TEST_RELAY_DATABASE_URL } from '../../libs/event-store/src/testing/int-support';

jest.setTimeout(180_000);

/**
 * The race is run until it has been exercised enough — at least {@link MIN_APPENDS} appended events
 * and {@link MIN_MOVES} moves of the horizon, and {@link MIN_RUN_MS} — whatever the machine's speed
 * (a busy CI machine moved it 78 times in a fixed 8 s), and at most {@link MAX_RUN_MS}.
 */
const MIN_RUN_MS = 8000;
const MAX_RUN_MS = 90_000;
const MIN_APPENDS = 500;
const MIN_MOVES = 100;
const WRITERS = 8;

let ds: DataSource;
let relay: Client;
let admin: Client;

beforeAll(async () => {
  // the outbox rows these appends leave are published by the relay specs that run later: to the suites' topic
  await ensureTestTopic();
  ds = await openTestDataSource(WRITERS + 2);
  relay = new Client({ connectionString: TEST_RELAY_DATABASE_URL });
  await relay.connect();
  admin = await pgClient(true);
});

afterAll(async () => {
  await relay?.end();
  await admin?.end();
  await ds?.destroy();
});

it('never calls a position final while an append still writes it', async () => {
  const store = new PgEventStore(ds, { logger: collectingLogger(), topic: TEST_EVENTS_TOPIC });
  const horizon = new CommitHorizon();
  let stop = false;
  let appended = 0;
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    const stream = ids();
    let version = 0;
    while (!stop) {
      const n = 1 + ((version + w) % 3);
      await store.append({ ...stream, expectedVersion: version, events: dealerChanges(n, `w${w}v${version}`), metadata: { actor: DEVICE, correlationId: randomUUID() } });
      version += n;
      appended += n;
    }
  });
  const emptyAtHorizon: string[] = [];
  let moves = 0;
  let last = BigInt((await admin.query(`SELECT coalesce(max(global_position), 0)::text AS p FROM events`)).rows[0].p);
  const started = Date.now();
  const exercised = () => Date.now() - started >= MIN_RUN_MS && appended > MIN_APPENDS && moves > MIN_MOVES;
  while (!exercised() && Date.now() - started < MAX_RUN_MS) {
    const h = await horizon.advance(relay);
    if (h > last) {
      const { rows } = await relay.query(`SELECT g::text AS p FROM generate_series($1::bigint + 1, $2::bigint) g WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.global_position = g)`, [last.toString(), h.toString()]);
      emptyAtHorizon.push(...rows.map((r: { p: string }) => r.p));
      moves += 1;
      last = h;
    }
  }
  stop = true;
  await Promise.all(writers);
  // the writers have ended: what was still being written then is committed now
  const { rows } = await admin.query(`SELECT global_position::text AS p FROM events WHERE global_position = ANY ($1::bigint[]) ORDER BY 1`, [emptyAtHorizon]);
  expect(appended).toBeGreaterThan(MIN_APPENDS);
  expect(moves).toBeGreaterThan(MIN_MOVES);
  expect(rows.map((r: { p: string }) => r.p)).toEqual([]);
});
