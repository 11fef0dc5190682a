/**
 * Attack: an insider holding a service's own database login tries to rewrite history
 * (docs/guarantees.md §1, §12 and §13; docs/architecture.md §10, database roles).
 *
 * On its own database, migrated as the owner, each service's login — the one the code uses when
 * nothing is configured (`DATABASE_URL`'s default for the API, `RELAY_DATABASE_URL`'s and
 * `PROJECTOR_DATABASE_URL`'s for the others), pointed at this database — tries what an attacker did
 * to the ledger: disable the append-only trigger, update, delete, truncate or drop the events,
 * replace the trigger function, create a trigger or a rule, take the table over, become the owner,
 * switch replication mode off the triggers. Every attempt must be refused by PostgreSQL's privilege
 * system (SQLSTATE 42501), not by a trigger the attacker could have switched off. Then the normal
 * work of each service still goes through with the same login: the API appends and reads
 * (`PgEventStore`), the relay publishes the outbox to Kafka, the projector writes the read model.
 *
 * Run: `TEST_TIERS=int bash scripts/test.sh test/attack` (needs `scripts/stack.sh up`: roles, Kafka).
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, DEFAULT_DATABASE_URL, GrantRuntimeRoles1795950000100, OUTBOX_LEASE_GRANTS, APPEND_GRANTS, MARK_PROGRESS_GRANTS, OutboxRelay, PgEventStore, runMigrations } from '@ledger/event-store';
import { resolveDatabaseUrls } from '@ledger/infra';
import { createProjectionDataSource, DEFAULT_DATABASE_URL as PROJECTOR_DEFAULT_DATABASE_URL, grantOutboxLeasesSql, grantReadModelSql, projectorConfigFromEnv, runProjectionMigrations } from '@ledger/projections';
import { CreateQueryLog1733100000000 } from '../../apps/ledger/src/persistence/migrations/1733100000000-create-query-log';
import { GrantQueryLog1733100000001 } from '../../apps/ledger/src/persistence/migrations/1733100000001-grant-query-log';
import { collectingLogger, dealerChanges, DEVICE, ensureTestTopic, ids, TEST_ADMIN_DATABASE_URL, TEST_DATABASE_URL, TEST_EVENTS_TOPIC, TEST_KAFKA_BROKERS } from '../../libs/event-store/src/testing/int-support';
import { ledgerEntriesGrantsSql, READ_MODEL_MIGRATIONS } from '@ledger/read-model';

jest.setTimeout(120_000);

const OWNER = decodeURIComponent(new URL(TEST_DATABASE_URL).username);
const DB_NAME = `${process.env.TEST_DB_NAME ?? 'ledger_test'}_roles_${process.pid}`.slice(0, 63);
const onDb = (url: string): string => {
  const u = new URL(url);
  u.pathname = `/${DB_NAME}`;
  return u.toString();
};
const adminUrl = (() => {
  const u = new URL(TEST_ADMIN_DATABASE_URL);
  u.pathname = '/postgres';
  return u.toString();
})();
/** The owner: migrations and setup. */
const OWNER_URL = onDb(TEST_DATABASE_URL);
/** Each service's default login (what it uses when nothing is configured), on this spec's database. */
const SERVICE_URLS = (() => {
  const urls = resolveDatabaseUrls({ DATABASE_URL: onDb(DEFAULT_DATABASE_URL) });
  return { app: urls.app, relay: urls.relay, projector: urls.projector };
})();
type Service = keyof typeof SERVICE_URLS;

async function asAdmin(sql: string): Promise<void> {
  const c = new Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const clients = {} as Record<Service | 'owner', Client>;
let ownerDs: DataSource;
let appDs: DataSource;
let store: PgEventStore;
let seeded: { streamId: string; tableId: string };

beforeAll(async () => {
  await asAdmin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await asAdmin(`CREATE DATABASE ${DB_NAME} OWNER ${OWNER}`);
  ownerDs = createDataSource(OWNER_URL, { extraMigrations: [CreateQueryLog1733100000000, GrantQueryLog1733100000001], poolSize: 4 });
  await ownerDs.initialize();
  await runMigrations(ownerDs);
  await runProjectionMigrations(ownerDs, { schema: 'read', migrations: READ_MODEL_MIGRATIONS });
  await ensureTestTopic();

  for (const [who, url] of [['owner', OWNER_URL], ...Object.entries(SERVICE_URLS)] as const) {
    const c = new Client({ connectionString: url, application_name: `attack-${who}` });
    await c.connect();
    clients[who as Service | 'owner'] = c;
  }
  // Something to attack: two events appended the normal way, by the API's login.
  appDs = createDataSource(SERVICE_URLS.app, { poolSize: 4, applicationName: 'attack-app-store' });
  await appDs.initialize();
  store = new PgEventStore(appDs, { topic: TEST_EVENTS_TOPIC, logger: collectingLogger() });
  seeded = ids();
  await store.append({ ...seeded, expectedVersion: 0, events: dealerChanges(2), metadata: { actor: DEVICE, correlationId: `corr-${randomUUID()}` } });
});

afterAll(async () => {
  for (const c of Object.values(clients)) await c?.end().catch(() => undefined);
  if (appDs?.isInitialized) await appDs.destroy();
  if (ownerDs?.isInitialized) await ownerDs.destroy();
  await asAdmin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`).catch(() => undefined);
});

/**
 * Runs `sql` as `who` inside a transaction that is always rolled back (so an attack that does go
 * through changes nothing for the next one) and says what happened: `succeeded`, or
 * `<SQLSTATE> <message>`.
 */
async function attempt(who: Service | 'owner', sql: string): Promise<string> {
  const c = clients[who];
  await c.query('BEGIN');
  try {
    await c.query(sql);
    return 'succeeded';
  } catch (err) {
    const e = err as { code?: string; message: string };
    return `${e.code} ${e.message}`;
  } finally {
    await c.query('ROLLBACK');
  }
}

/** Refused by the privilege system: SQLSTATE 42501 insufficient_privilege. */
const REFUSED = /^42501 (permission denied|must be owner)/;

const EVENT_INSERT = `INSERT INTO events (global_position, event_id, stream_id, stream_version, table_id, type, schema_version, data,
    actor_id, actor_role, occurred_at, recorded_at, correlation_id, causation_id, prev_hash, hash)
  VALUES (999999, '${randomUUID()}', 'shoe-forged', 1, 'T-forged', 'DealerChanged', 1, '{}', 'x', 'pit-manager', now(), now(), 'c', 'c',
    repeat('0', 64), repeat('0', 64))`;

/** What an attacker with any runtime login tries against the ledger itself. */
const REWRITE_HISTORY: ReadonlyArray<readonly [string, string]> = [
  ['disable every trigger on events', `ALTER TABLE events DISABLE TRIGGER ALL`],
  // what the owner can do (ALL also needs a superuser, for the foreign-key triggers)
  ['disable the user triggers on events', `ALTER TABLE events DISABLE TRIGGER USER`],
  ['disable the append-only trigger', `ALTER TABLE events DISABLE TRIGGER events_append_only`],
  ['turn a losing bet into a win (UPDATE events)', `UPDATE events SET data = jsonb_set(data, '{dealerId}', '"forged"')`],
  ['delete events', `DELETE FROM events`],
  ['truncate events', `TRUNCATE events`],
  ['drop the ledger', `DROP TABLE events CASCADE`],
  ['add a column to events', `ALTER TABLE events ADD COLUMN forged text`],
  ['create a trigger on events', `CREATE TRIGGER forged BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`],
  ['create a rule on events', `CREATE RULE forged AS ON UPDATE TO events DO INSTEAD NOTHING`],
  ['replace the append-only function with a no-op', `CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`],
  ['take events over', `ALTER TABLE events OWNER TO CURRENT_USER`],
  ['become the owner', `SET ROLE ledger_owner`],
  ['switch the triggers off by replication mode', `SET session_replication_role = replica`],
  ['lock the ledger against every writer', `LOCK TABLE events IN ACCESS EXCLUSIVE MODE`],
  ['rewind the position sequence', `SELECT setval('events_global_position_seq', 1)`],
  ['drop the position sequence', `DROP SEQUENCE events_global_position_seq CASCADE`],
  ['restart the position sequence', `ALTER SEQUENCE events_global_position_seq RESTART`],
  ['replace the append function', `CREATE OR REPLACE FUNCTION ledger_append() RETURNS void LANGUAGE sql AS 'SELECT 1'`],
  ['delete a stream head', `DELETE FROM streams`],
  ['give a stream to another table', `UPDATE streams SET table_id = 'T-forged'`],
  ['forget a reserved round id', `DELETE FROM ledger_references`],
  ['erase the refusal log', `DELETE FROM rejections`],
  ['truncate the refusal log', `TRUNCATE rejections`],
  ['erase the access log', `DELETE FROM query_log`],
  ['rewrite the migration history', `DELETE FROM migrations`],
  ['create a table in public', `CREATE TABLE public.forged (a int)`],
  ['create a schema', `CREATE SCHEMA forged`],
  ['drop the read model', `DROP SCHEMA read CASCADE`],
  ['drop a projection', `DROP TABLE read.bet_settlements`],
  ['truncate a projection', `TRUNCATE read.bet_settlements`],
  ['disable the read model triggers', `ALTER TABLE read.bet_settlements DISABLE TRIGGER ALL`],
  ['write the read model migration history', `DELETE FROM read.migrations`],
];

describe('what the runtime roles are', () => {
  it('with nothing configured, the API, relay and projector log in as their runtime roles and migrations as the owner', () => {
    const user = (url: string) => decodeURIComponent(new URL(url).username);
    expect(user(DEFAULT_DATABASE_URL)).toBe('ledger_app');
    expect(user(PROJECTOR_DEFAULT_DATABASE_URL)).toBe('ledger_projector');
    const urls = resolveDatabaseUrls({});
    expect([user(urls.app), user(urls.relay), user(urls.projector), user(urls.migrations)]).toEqual(['ledger_app', 'ledger_relay', 'ledger_projector', 'ledger_owner']);
    const projector = projectorConfigFromEnv({});
    expect([user(projector.databaseUrl), user(projector.migrationsDatabaseUrl)]).toEqual(['ledger_projector', 'ledger_owner']);
    // one database for all, named by DATABASE_URL: a test never migrates or relays another one
    const derived = resolveDatabaseUrls({ DATABASE_URL: 'postgres://ledger_app:ledger_app@127.0.0.1:5432/elsewhere' });
    expect(new Set([derived.app, derived.relay, derived.projector, derived.migrations].map((u) => new URL(u).pathname))).toEqual(new Set(['/elsewhere']));
  });

  it('own nothing, are no superusers and cannot act as the owner', async () => {
    const { rows } = await clients.owner.query(
      `SELECT r.rolname, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolbypassrls,
              pg_has_role(r.rolname, 'ledger_owner', 'MEMBER') AS owner_member,
              (SELECT count(*)::int FROM pg_class c WHERE c.relowner = r.oid)
            + (SELECT count(*)::int FROM pg_namespace n WHERE n.nspowner = r.oid)
            + (SELECT count(*)::int FROM pg_proc p WHERE p.proowner = r.oid) AS owns
         FROM pg_roles r WHERE r.rolname = ANY($1) ORDER BY r.rolname`,
      [Object.values(SERVICE_URLS).map((u) => decodeURIComponent(new URL(u).username))],
    );
    expect(rows).toEqual(
      ['ledger_app', 'ledger_projector', 'ledger_relay'].map((rolname) => ({
        rolname,
        rolsuper: false,
        rolcreaterole: false,
        rolcreatedb: false,
        rolbypassrls: false,
        owner_member: false,
        owns: 0,
      })),
    );
    const [{ events_owner }] = (await clients.owner.query(`SELECT pg_get_userbyid(relowner) AS events_owner FROM pg_class WHERE oid = 'events'::regclass`)).rows;
    expect(events_owner).toBe(OWNER);
  });

  it('hold on events exactly: the API and the relay SELECT (the API appends through ledger_append), the projector nothing; nobody INSERT, UPDATE, DELETE, TRUNCATE, TRIGGER', async () => {
    const { rows } = await clients.owner.query(
      `SELECT r AS role, array_agg(p ORDER BY p) FILTER (WHERE has_table_privilege(r, 'events', p)) AS privileges
         FROM unnest($1::text[]) AS r, unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) AS p
        GROUP BY r ORDER BY r`,
      [['ledger_app', 'ledger_projector', 'ledger_relay']],
    );
    expect(rows).toEqual([
      { role: 'ledger_app', privileges: ['SELECT'] },
      { role: 'ledger_projector', privileges: null },
      { role: 'ledger_relay', privileges: ['SELECT'] },
    ]);
  });
});

describe.each(['app', 'relay', 'projector'] as const)('as the %s runtime role, rewriting history is refused', (who) => {
  it.each(REWRITE_HISTORY)('%s', async (_what, sql) => {
    expect(await attempt(who, sql)).toMatch(REFUSED);
  });

  it('forging an event directly is refused, also for the API: it appends only through ledger_append', async () => {
    expect(await attempt(who, EVENT_INSERT)).toMatch(REFUSED);
  });
});

describe('the relay may mark outbox rows published and prune published ones, nothing more', () => {
  it('deleting an outbox row not yet published is refused by the trigger (LA001), even for the relay’s login', async () => {
    // the seeded events' outbox rows; one made surely unpublished inside the attempt's (rolled back) transaction
    const [{ n }] = (await clients.owner.query(`SELECT count(*)::int AS n FROM outbox`)).rows;
    expect(n).toBeGreaterThan(0);
    expect(await attempt('relay', `UPDATE outbox SET published_at = NULL WHERE global_position = (SELECT min(global_position) FROM outbox); DELETE FROM outbox`)).toMatch(/^LA001 ledger: outbox row \d+ is not published yet/);
    // a published one may go (the pruning); rolled back too
    expect(await attempt('relay', `UPDATE outbox SET published_at = now(); DELETE FROM outbox`)).toBe('succeeded');
  });

  it('the lease table: the relay SELECT, INSERT, UPDATE; the API and the projector nothing (no lease planted by another login)', async () => {
    const { rows } = await clients.owner.query(
      `SELECT r AS role, array_agg(p ORDER BY p) FILTER (WHERE has_table_privilege(r, 'outbox_leases', p)) AS privileges
         FROM unnest($1::text[]) AS r, unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) AS p
        GROUP BY r ORDER BY r`,
      [['ledger_app', 'ledger_projector', 'ledger_relay']],
    );
    expect(rows).toEqual([
      { role: 'ledger_app', privileges: null },
      { role: 'ledger_projector', privileges: null },
      { role: 'ledger_relay', privileges: ['INSERT', 'SELECT', 'UPDATE'] },
    ]);
    expect(await attempt('app', `INSERT INTO outbox_leases (name, holder, generation, acquired_at, renewed_at, expires_at) VALUES ('ledger-relay', 'x', 99, now(), now(), 'infinity')`)).toMatch(REFUSED);
  });

  it.each([
    ['re-address outbox rows to another topic', `UPDATE outbox SET topic = 'forged'`],
    ['insert outbox rows', `INSERT INTO outbox (global_position, topic, key) VALUES (1, 'forged', 'k')`],
    ['move a stream head', `UPDATE streams SET version = 0`],
    ['read the idempotency answers', `SELECT * FROM idempotency_keys`],
    ['read the read model', `SELECT * FROM read.bet_settlements`],
    // the progress markers move only through ledger_mark_progress (migration 1799100000000)
    ['push the relay progress directly', `UPDATE outbox_progress SET through_position = 1000000000000000`],
    ['record a hole directly (over a real event)', `INSERT INTO position_gaps (from_position, to_position) VALUES (1, 1)`],
  ])('%s: refused', async (_what, sql) => {
    expect(await attempt('relay', sql)).toMatch(REFUSED);
  });

  it('through ledger_mark_progress the relay cannot push the progress beyond the last assigned position; the other logins cannot call it', async () => {
    expect(await attempt('relay', `SELECT ledger_mark_progress('ledger-relay', 1000000000000000)`)).toMatch(/^23514 ledger: progress 1000000000000000 is beyond the last assigned position/);
    expect(await attempt('app', `SELECT ledger_mark_progress('ledger-relay', 1)`)).toMatch(REFUSED);
    expect(await attempt('projector', `SELECT ledger_mark_progress('ledger-relay', 1)`)).toMatch(REFUSED);
  });
});

describe('the API may not touch the outbox rows, the projections or the access log it appended', () => {
  it.each([
    // around ledger_append (docs/guarantees.md §5): no position without the stream lock, no row of its own
    ['take a global position outside an append', `SELECT nextval('events_global_position_seq')`],
    ['insert an outbox row of its own', `INSERT INTO outbox (global_position, topic, key) VALUES (1, 'forged', 'k')`],
    ['create a stream head of its own', `INSERT INTO streams (stream_id, table_id, version, last_hash) VALUES ('shoe-forged', 'T', 0, repeat('0', 64))`],
    ['hold a stream row locked (stalling the relay)', `SELECT 1 FROM streams FOR UPDATE`],
    ['reserve a round id for another shoe', `INSERT INTO ledger_references (kind, ref_id, stream_id) VALUES ('ROUND', 'R-forged', 'shoe-forged')`],
    ['record a hole that would hide a removed event', `INSERT INTO position_gaps (from_position, to_position) VALUES (1, 1)`],
    ['move the relay progress (the anchors would sign what is not published)', `UPDATE outbox_progress SET through_position = through_position + 1000`],
    ['mark outbox rows published (so Kafka never gets them)', `UPDATE outbox SET published_at = now()`],
    ['rewrite a projection', `UPDATE read.bet_settlements SET payout = 0`],
    [
      'add a position-stamped entry',
      `INSERT INTO read.ledger_entries (global_position, entry_no, event_id, event_type, recorded_at, gaming_day, table_id, shoe_id, round_id, dealer_id, currency) VALUES (1, 0, 'e', 'BetSettled', now(), '2026-01-01', 'T', 'S', 'R', 'D', 'EUR')`,
    ],
    ['forge a checkpoint', `INSERT INTO read.checkpoints (consumer_group, topic, partition, next_offset) VALUES ('g', 't', 0, 0)`],
    ['rewrite the access log', `UPDATE query_log SET actor_id = 'nobody'`],
    ['rewrite a refusal', `UPDATE rejections SET code = 'forged'`],
    ['rewrite an idempotent answer', `UPDATE idempotency_keys SET response = '{}'`],
  ])('%s: refused', async (_what, sql) => {
    expect(await attempt('app', sql)).toMatch(REFUSED);
  });
});

describe('the projector has nothing on the event store', () => {
  it.each([
    ['read events', `SELECT * FROM events`],
    ['read the outbox', `SELECT * FROM outbox`],
    ['read stream heads', `SELECT * FROM streams`],
    ['read the access log', `SELECT * FROM query_log`],
    ['record a hole', `INSERT INTO position_gaps (from_position, to_position) VALUES (1, 1)`],
    ['move the relay progress', `UPDATE outbox_progress SET through_position = through_position + 1000`],
    ['take a global position', `SELECT nextval('events_global_position_seq')`],
    ['rewrite a position-stamped entry (append-only)', `UPDATE read.ledger_entries SET turnover = 0`],
    ['delete a position-stamped entry (append-only)', `DELETE FROM read.ledger_entries`],
  ])('%s: refused', async (_what, sql) => {
    expect(await attempt('projector', sql)).toMatch(REFUSED);
  });
});

describe('the grants are migrations of the owner', () => {
  it('run again as the owner, they change nothing; run as a runtime role, they refuse', async () => {
    const privileges = async () =>
      (
        await clients.owner.query(
          `SELECT c.relname, array_to_string(ARRAY(SELECT a::text FROM unnest(c.relacl) a ORDER BY 1), ',') AS acl FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname IN ('public', 'read') AND c.relkind IN ('r', 'v', 'S') ORDER BY n.nspname, c.relname`,
        )
      ).rows;
    const before = await privileges();
    const again = ownerDs.createQueryRunner();
    await again.connect();
    try {
      await again.startTransaction();
      await new GrantRuntimeRoles1795950000100().up(again);
      await new GrantQueryLog1733100000001().up(again);
      for (const statement of grantReadModelSql('read')) await again.query(statement);
      // the later migrations' own grants (a re-run of the first ones takes back what they do not grant)
      for (const statement of OUTBOX_LEASE_GRANTS) await again.query(statement);
      for (const statement of APPEND_GRANTS) await again.query(statement);
      for (const statement of MARK_PROGRESS_GRANTS) await again.query(statement);
      for (const statement of grantOutboxLeasesSql('read')) await again.query(statement);
      for (const statement of ledgerEntriesGrantsSql('read')) await again.query(statement);
      await again.commitTransaction();
    } finally {
      await again.release();
    }
    expect(await privileges()).toEqual(before);

    const asApp = appDs.createQueryRunner();
    await asApp.connect();
    try {
      await expect(new GrantRuntimeRoles1795950000100().up(asApp)).rejects.toMatchObject({ driverError: { code: 'LA002' } });
    } finally {
      await asApp.release();
    }
  });
});

describe('each service still does its own work with its own login', () => {
  it('the API appends and reads through PgEventStore, records a refusal, logs a query, reads the read model', async () => {
    const s = ids();
    const first = await store.append({ ...s, expectedVersion: 0, events: dealerChanges(3), metadata: { actor: DEVICE, correlationId: `corr-${randomUUID()}` } });
    expect(first.outcome).toBe('APPENDED');
    const retry = await store.append({
      ...s,
      expectedVersion: 3,
      events: dealerChanges(1, 'r'),
      metadata: { actor: DEVICE, correlationId: `corr-${randomUUID()}` },
      idempotency: { caller: 'table-device:device-1', key: `key-${randomUUID()}`, requestHash: 'h', statusCode: 201, response: (events) => ({ n: events.length }) },
    });
    expect(retry).toMatchObject({ outcome: 'APPENDED', lastVersion: 4 });
    expect((await store.readStream(s.streamId)).map((e) => e.streamVersion)).toEqual([1, 2, 3, 4]);
    expect(await store.streamVersion(s.streamId)).toBe(4);
    expect((await store.readAll('1', 100)).length).toBeGreaterThanOrEqual(6);
    expect(await store.verifyChain(s.streamId)).toMatchObject({ ok: true, eventsChecked: 4 });
    expect(await store.verifyChain(seeded.streamId)).toMatchObject({ ok: true, eventsChecked: 2 });

    const logger = collectingLogger();
    await new PgEventStore(appDs, { logger }).recordRejection({ code: 'TEST.REFUSED', message: 'refused', httpStatus: 422, tableId: s.tableId });
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(await attempt('app', `INSERT INTO query_log (actor_id, actor_role, route, params, status) VALUES ('a', 'auditor', 'GET /x', '{}', 200)`)).toBe('succeeded');
    expect(await attempt('app', `SELECT * FROM read.bet_settlements, read.reconciliation_report, read.applied_events LIMIT 1`)).toBe('succeeded');
  });

  it('the relay claims the outbox, publishes it to Kafka and marks it published', async () => {
    const relay = new OutboxRelay({ databaseUrl: SERVICE_URLS.relay, brokers: TEST_KAFKA_BROKERS, logger: collectingLogger() });
    try {
      const result = await relay.runOnce();
      expect(result.leader).toBe(true);
      expect(result.published).toBeGreaterThanOrEqual(2);
    } finally {
      await relay.stop();
    }
    const { rows } = await clients.owner.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`);
    expect(rows[0].n).toBe(0);
  });

  it('the projector writes its checkpoints and projections and reads them back', async () => {
    const projector = createProjectionDataSource(SERVICE_URLS.projector, { applicationName: 'attack-projector', poolSize: 2 });
    await projector.initialize();
    try {
      const qr = projector.createQueryRunner();
      await qr.connect();
      try {
        await qr.startTransaction();
        await qr.query(`INSERT INTO read.checkpoints (consumer_group, topic, partition, next_offset) VALUES ('attack', 't', 0, 0)`);
        await qr.query(`SELECT next_offset FROM read.checkpoints WHERE consumer_group = 'attack' FOR UPDATE`);
        await qr.query(`UPDATE read.checkpoints SET next_offset = 5 WHERE consumer_group = 'attack'`);
        await qr.query(
          `INSERT INTO read.analytics_outbox (global_position, ordinal, kind, source_event_id, record_key, ce_id, headers, value, published_at)
           VALUES (1, 0, 'roads', 'e', 'k', $1, '{}', 'v', now() - interval '1 day')`,
          [randomUUID()],
        );
        await qr.query(`DELETE FROM read.analytics_outbox WHERE published_at < now() - interval '1 hour'`);
        expect(await qr.query(`SELECT next_offset::int AS n FROM read.checkpoints WHERE consumer_group = 'attack'`)).toEqual([{ n: 5 }]);
        expect(await qr.query(`SELECT read.add_counts('{"A": 1}'::jsonb, '{"A": 2}'::jsonb) AS c`)).toEqual([{ c: { A: 3 } }]);
      } finally {
        await qr.rollbackTransaction().catch(() => undefined);
        await qr.release();
      }
    } finally {
      await projector.destroy();
    }
  });
});
