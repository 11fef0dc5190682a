/**
 * The projector's cost of one round's settlement tail, alone: a synthetic shoe with one round of
 * `--bets` bets is applied up to that round's RoundResulted in batches of 2,000, then the tail
 * (RoundResulted + every BetSettled, the shape of a 10,000-bet round's last card) in ONE
 * `applyBatch`, with analytics on, as the live projector does. Prints wall time and Node CPU of
 * that batch and the time the analytics publisher's claim takes to turn the outbox rows of the
 * tail into Kafka records (`claimOutboxSql` + `resolveOutboxRow`). A diagnostic, not the bench
 * (docs/architecture.md §7): no Kafka; a scratch schema of the test database.
 *
 * Usage: `TEST_DB_NAME=<db> npx tsx scripts/projector-tail-cost.ts [--bets 8000] [--runs 3]`
 */
import { ProjectionApplier } from '../libs/projections/src/applier';
import * as analytics from '../libs/read-model/src/analytics';
import { ALL_PROJECTIONS, READ_MODEL_MIGRATIONS } from '../libs/read-model/src';
import { createProjectionDataSource } from '../libs/projections/src/data-source';
import type { EventRecord } from '../libs/projections/src/event-record';
import { dropProjectionSchema, runProjectionMigrations } from '../libs/projections/src/migrations';
import { assignPositions } from '../libs/projections/src/testing/envelopes';
import { TEST_DATABASE_URL, toMessage } from '../libs/projections/src/testing/kafka-kit';
import { syntheticLedger } from '../libs/projections/src/testing/synthetic-shoes';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

async function main(): Promise<void> {
  const bets = arg('bets', 8000);
  const runs = arg('runs', 3);
  const ledger = syntheticLedger({ shoes: 1, seed: 11, prefix: 'tail', maxRounds: 1, betsPerRound: bets, voidRate: 0, correctionRate: 0, exposedCardRate: 0, shoeVoidRate: 0 });
  const events = assignPositions(ledger.streams);
  const records: EventRecord[] = events.map((e, i) => {
    const m = toMessage(e);
    return { topic: 'tail', partition: 0, offset: String(i), key: m.key as string, value: m.value as string, headers: m.headers as Record<string, string> };
  });
  const cut = events.map((e) => e.type).lastIndexOf('RoundResulted');
  const tail = records.slice(cut);
  const settled = events.slice(cut).filter((e) => e.type === 'BetSettled').length;
  const ds = createProjectionDataSource(TEST_DATABASE_URL, { applicationName: 'projector-tail-cost' });
  await ds.initialize();
  const schema = 'read_tail_cost';
  const out: { wallMs: number; cpuMs: number; statements: number; outboxBytes: number; publisherClaimMs: number }[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      await dropProjectionSchema(ds, schema);
      await runProjectionMigrations(ds, { schema, migrations: READ_MODEL_MIGRATIONS });
      const applier = new ProjectionApplier({ ds, schema, projections: ALL_PROJECTIONS, effects: [analytics.ANALYTICS_OUTBOX_EFFECT], checkpointGroup: 'tail-cost' });
      for (let i = 0; i < cut; i += 2000) await applier.applyBatch('tail', 0, records.slice(i, Math.min(i + 2000, cut)));
      await ds.query('CHECKPOINT').catch(() => undefined);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await applier.applyBatch('tail', 0, tail);
      const wallMs = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const [{ bytes }] = await ds.query(`SELECT pg_total_relation_size('"${schema}".analytics_outbox')::int AS bytes`);
      const p0 = performance.now();
      const claimSql = (analytics as Record<string, unknown>).claimOutboxSql as ((s: string) => string) | undefined;
      if (claimSql) {
        const rows = await ds.query(claimSql(schema), [1_000_000]);
        (rows as unknown[]).map((analytics as unknown as { resolveOutboxRow: (r: unknown) => unknown }).resolveOutboxRow);
      } else {
        await ds.query(`SELECT o.global_position::text, o.ordinal, o.kind, o.record_key, o.headers, o.value FROM "${schema}".analytics_outbox o WHERE published_at IS NULL ORDER BY o.global_position, o.ordinal`);
      }
      out.push({ wallMs: Math.round(wallMs), cpuMs: Math.round((c.user + c.system) / 1000), statements: r.statements, outboxBytes: bytes, publisherClaimMs: Math.round(performance.now() - p0) });
    }
  } finally {
    await dropProjectionSchema(ds, schema).catch(() => undefined);
    await ds.destroy();
  }
  const median = (k: keyof (typeof out)[number]) => [...out.map((o) => o[k])].sort((a, b) => a - b)[Math.floor(out.length / 2)];
  console.log(JSON.stringify({ tailEvents: tail.length, settled, runs: out, median: { wallMs: median('wallMs'), cpuMs: median('cpuMs'), publisherClaimMs: median('publisherClaimMs'), outboxBytes: median('outboxBytes') } }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
