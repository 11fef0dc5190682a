/**
 * The ledger's PostgreSQL roles and which connection URL each process uses (docs/architecture.md
 * §10, database roles). Defined in `@ledger/config`, beside the configuration schemas that derive
 * the per-role URL defaults from `DATABASE_URL`; re-exported here for the code that imports them
 * from `@ledger/infra`.
 */
export {
  databaseUrlForRole,
  LEDGER_APP_ROLE,
  LEDGER_DATABASE_ROLES,
  LEDGER_OWNER_ROLE,
  LEDGER_PROJECTOR_ROLE,
  LEDGER_RELAY_ROLE,
  LOCAL_DATABASE_URL,
  resolveDatabaseUrls,
  type DatabaseUrlEnv,
  type DatabaseUrls,
  type LedgerDatabaseRole,
} from '@ledger/config';
