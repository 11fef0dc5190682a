/**
 * The relay's CPU per event and throughput, alone (docs/architecture.md §6): N BetPlaced-like
 * events with their outbox rows in a scratch database (seeded once by SQL, ~930-byte records),
 * every outbox row marked unpublished again, then drained by `OutboxRelay.runOnce()` to a scratch
 * topic. Prints events/s, µs of this process's CPU per event (user + system) and the time spent
 * in produce requests. Run it with `node --cpu-prof --import tsx` for a profile.
 *
 *   PERF_DB=ledger_relay_perf npx tsx scripts/relay-throughput.ts [N=200000] [topic=relay-perf.scratch]
 *
 * env: PERF_DB (a database of your own, created beforehand, owner ledger_owner; it gets the event
 * store's migrations), BATCH (rows per batch), MAXREQ (produce-request bound). The topic is created
 * with a 10-minute retention; delete it afterwards. Not the bench: one process, no API, no projector.
 */
import { Client } from 'pg';
import { createKafka } from '@ledger/kafka';
import { ensureTopics } from '@ledger/infra';
import { OutboxRelay } from '../libs/event-store/src/outbox-relay';
import { createDataSource, runMigrations } from '../libs/event-store/src/data-source';

const DB = process.env.PERF_DB ?? 'ledger_relay_perf';
const OWNER = `postgres://ledger_owner:ledger_owner@127.0.0.1:5432/${DB}`;
const RELAY = `postgres://ledger_relay:ledger_relay@127.0.0.1:5432/${DB}`;
const N = Number(process.argv[2] ?? 200_000);
const TOPIC = process.argv[3] ?? 'relay-perf.scratch';

const silent = { debug() {}, info() {}, warn() {}, error: (f: unknown, m?: string) => console.error(m, f) };

async function main() {
  const ds = createDataSource(OWNER, { poolSize: 3, applicationName: 'relayfmt-seed' });
  await ds.initialize();
  await runMigrations(ds);
  await ds.destroy();
  const pg = new Client({ connectionString: OWNER });
  await pg.connect();
  const have = (await pg.query(`SELECT count(*)::int AS n FROM events`)).rows[0].n as number;
  if (have < N) {
    console.log(`seeding ${N - have} events`);
    for (let from = have + 1; from <= N; from += 50_000) {
      const to = Math.min(N, from + 49_999);
      await pg.query(
        `INSERT INTO events (global_position, event_id, stream_id, stream_version, table_id, type, schema_version, data, actor_id, actor_role,
                             occurred_at, recorded_at, correlation_id, causation_id, prev_hash, hash)
         SELECT g, gen_random_uuid(), 'shoe-relayfmt-' || (g % 60), (g - 1) / 60 + 1, 'T-RF-' || (g % 60 % 12), 'BetPlaced', 1,
                jsonb_build_object('betId', 'relayfmt-B' || g, 'roundId', 'relayfmt-R' || (g / 600), 'accountId', 'ACC-' || (g % 997),
                                   'betCode', 'PLAYER', 'stake', ((g % 50) * 100 + 100)::text, 'currency', 'EUR'),
                'TERM-' || (g % 60), 'PIT_TERMINAL', now() - interval '1 hour', now(), gen_random_uuid()::text, gen_random_uuid()::text,
                md5(g::text) || md5((g + 1)::text), md5((g + 2)::text) || md5((g + 3)::text)
           FROM generate_series($1::bigint, $2::bigint) g`,
        [from, to],
      );
      await pg.query(`INSERT INTO outbox (global_position, topic, key) SELECT global_position, $3, table_id FROM events WHERE global_position BETWEEN $1 AND $2`, [from, to, TOPIC]);
    }
    // rows written around ledger_append (a scratch database): move the sequence past them, so the relay's horizon covers them
    await pg.query(`SELECT setval('events_global_position_seq', greatest($1::bigint, coalesce(pg_sequence_last_value('events_global_position_seq'), 0)))`, [N]);
  }
  await pg.query(`UPDATE outbox SET published_at = NULL, topic = $1 WHERE published_at IS NOT NULL OR topic <> $1`, [TOPIC]);
  await pg.query('VACUUM ANALYZE outbox');
  const backlog = (await pg.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`)).rows[0].n as number;

  const kafka = createKafka({ clientId: 'relayfmt-bench', brokers: ['127.0.0.1:9092'], logLevel: 'warn' });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, [{ name: TOPIC, partitions: 6, configs: { 'retention.ms': '600000', 'cleanup.policy': 'delete' } }]);
  await admin.disconnect();

  const timing = { sendMs: 0, sends: 0 };
  const timedKafka = {
    ...kafka,
    producer: () => {
      const p = kafka.producer();
      return {
        connect: () => p.connect(),
        disconnect: () => p.disconnect(),
        send: async (t: string, m: never[]) => {
          const a = performance.now();
          await p.send(t, m);
          timing.sendMs += performance.now() - a;
          timing.sends++;
        },
      };
    },
  };
  const relay = new OutboxRelay({
    databaseUrl: RELAY,
    kafka: timedKafka as never,
    logger: silent as never,
    retentionMs: null,
    ...(process.env.BATCH ? { batchSize: Number(process.env.BATCH) } : {}),
    ...(process.env.MAXREQ ? { maxRequestBytes: Number(process.env.MAXREQ) } : {}),
  });
  // warm-up: connection, lease, producer (publish a small slice first)
  await pg.query(`UPDATE outbox SET published_at = now() WHERE global_position > 2000`);
  await relay.runOnce();
  await pg.query(`UPDATE outbox SET published_at = NULL WHERE global_position > 2000`);
  timing.sendMs = 0;
  timing.sends = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await relay.runOnce();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await relay.stop();
  const n = r.published;
  console.log(
    JSON.stringify({
      backlog: backlog - 2000,
      published: n,
      batches: r.batches,
      seconds: +(ms / 1000).toFixed(2),
      evPerSec: Math.round(n / (ms / 1000)),
      cpuUsPerEvent: +((cpu.user + cpu.system) / n).toFixed(1),
      userUs: +(cpu.user / n).toFixed(1),
      sysUs: +(cpu.system / n).toFixed(1),
      sendMs: Math.round(timing.sendMs),
      sends: timing.sends,
    }),
  );
  await pg.end();
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
