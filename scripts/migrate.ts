/**
 * `npm run migration:run` / `npm run migration:show`: every schema of the ledger, in order — the event
 * store with the query log and shoe snapshots (TypeORM's `public.migrations`), then the read model
 * (`<PROJECTIONS_SCHEMA>.migrations`) — as the owner role `MIGRATIONS_DATABASE_URL`
 * (docs/architecture.md §5, §10). Same steps as the API's start with `RUN_MIGRATIONS=true`.
 *
 *   tsx scripts/migrate.ts run    # apply what is pending; prints one line per migration run
 *   tsx scripts/migrate.ts show   # `[X] name` applied, `[ ] name` pending, per schema; exit 0
 *
 * Exit codes: 0 done, 1 a migration or the configuration failed (message on stderr), 2 bad usage.
 */
import 'reflect-metadata';
import { ConfigError, loadConfig, MigrationCliEnv } from '@ledger/config';
import { databaseSessionSettings } from '@ledger/infra';
import { migrateAll, migrationStatus } from '../apps/ledger/src/persistence/migrate-all';

async function main(argv: string[]): Promise<number> {
  const cmd = argv[0];
  if (cmd !== 'run' && cmd !== 'show') {
    process.stderr.write('usage: tsx scripts/migrate.ts run|show\n');
    return 2;
  }
  const env = loadConfig(MigrationCliEnv, process.env);
  const session = databaseSessionSettings(env, 'migrations');
  if (cmd === 'run') {
    const r = await migrateAll(env.MIGRATIONS_DATABASE_URL, env.PROJECTIONS_SCHEMA, session);
    for (const n of r.eventStore) process.stdout.write(`event-store: ran ${n}\n`);
    for (const n of r.readModel) process.stdout.write(`read-model (${env.PROJECTIONS_SCHEMA}): ran ${n}\n`);
    process.stdout.write(`migrations: ${r.eventStore.length + r.readModel.length} run, every schema up to date\n`);
    return 0;
  }
  const status = await migrationStatus(env.MIGRATIONS_DATABASE_URL, env.PROJECTIONS_SCHEMA, session);
  for (const s of status) {
    process.stdout.write(`${s.schema} (${s.dbSchema}): ${s.applied.length} applied, ${s.pending.length} pending\n`);
    for (const n of s.applied) process.stdout.write(`  [X] ${n}\n`);
    for (const n of s.pending) process.stdout.write(`  [ ] ${n}\n`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const text = err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`migrate: ${text}\n`);
    process.exit(1);
  },
);
