/**
 * The ledger's PostgreSQL roles and which connection URL each process uses (docs/guarantees.md §12:
 * the services' own logins cannot update, delete or alter the event store; only migrations run as
 * its owner; docs/architecture.md §10, database roles).
 *
 * - `ledger_owner` owns the schemas and tables and runs the migrations (`MIGRATIONS_DATABASE_URL`);
 * - `ledger_app` is the API: reads and appends to the event store, moves stream heads and the
 *   position counter, reads the read model, appends to the query log (`DATABASE_URL`);
 * - `ledger_relay` is the outbox relay: reads events and outbox, marks outbox rows published
 *   (`RELAY_DATABASE_URL`);
 * - `ledger_projector` is the projector: writes the read model, nothing on the event store
 *   (`PROJECTOR_DATABASE_URL`).
 *
 * The grants themselves are migrations (libs/event-store/src/migrations, libs/projections/src/migrations, libs/read-model/src/migrations,
 * apps/ledger/src/persistence/migrations); `scripts/stack.sh` creates the roles for local use, where
 * each role's password is its name (the machine's PostgreSQL trusts loopback anyway). In production
 * every URL is set explicitly, each with its own secret.
 *
 * The configuration schemas derive the defaults of `MIGRATIONS_DATABASE_URL`, `RELAY_DATABASE_URL`
 * and `PROJECTOR_DATABASE_URL` with {@link resolveDatabaseUrls} once the environment is validated
 * ({@link loadConfig}); `@ledger/infra` re-exports this module. Pure functions of their arguments
 * (the environment is passed in): no I/O.
 */

import { formatPostgresUrl, hasHostList, parsePostgresUrl } from './postgres-url';

/** The role that owns the ledger's schemas and tables and runs the migrations. */
export const LEDGER_OWNER_ROLE = 'ledger_owner';
/** The API's runtime role. */
export const LEDGER_APP_ROLE = 'ledger_app';
/** The outbox relay's runtime role. */
export const LEDGER_RELAY_ROLE = 'ledger_relay';
/** The projector's runtime role. */
export const LEDGER_PROJECTOR_ROLE = 'ledger_projector';

/** Every role of the ledger, owner first. */
export const LEDGER_DATABASE_ROLES = [LEDGER_OWNER_ROLE, LEDGER_APP_ROLE, LEDGER_RELAY_ROLE, LEDGER_PROJECTOR_ROLE] as const;

/** One of {@link LEDGER_DATABASE_ROLES}. */
export type LedgerDatabaseRole = (typeof LEDGER_DATABASE_ROLES)[number];

/**
 * The local stack's database as the API's role: what `DATABASE_URL` defaults to. Loopback only.
 * The other roles' defaults are this URL with their own login ({@link databaseUrlForRole}).
 */
export const LOCAL_DATABASE_URL = 'postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger';

/**
 * `url` with its login replaced by `role` (user and password both the role's name, as
 * `scripts/stack.sh` creates them): same server, port, database and parameters.
 *
 * @param url a `postgres://` URL, one host or several (`host1:port1,host2:port2`, docs/operations.md)
 * @param role the login to put in it
 * @returns the new URL, as a string
 * @throws TypeError when `url` is not a URL (PostgresUrlError, a TypeError, for a malformed host list)
 */
export function databaseUrlForRole(url: string, role: LedgerDatabaseRole): string {
  if (hasHostList(url)) return formatPostgresUrl(parsePostgresUrl(url), { userInfo: `${role}:${role}` });
  const u = new URL(url);
  u.username = role;
  u.password = role;
  return u.toString();
}

/** The environment variables {@link resolveDatabaseUrls} reads (a validated configuration fits too). */
export interface DatabaseUrlEnv {
  readonly DATABASE_URL?: string;
  readonly MIGRATIONS_DATABASE_URL?: string;
  readonly RELAY_DATABASE_URL?: string;
  readonly PROJECTOR_DATABASE_URL?: string;
}

/** The connection URL of each process of the ledger. */
export interface DatabaseUrls {
  /** The API's runtime connection (`ledger_app`). */
  readonly app: string;
  /** Migrations: the API's `RUN_MIGRATIONS` step, the projector's, `npm run migration:run`, rebuilds (`ledger_owner`). */
  readonly migrations: string;
  /** The outbox relay (`ledger_relay`). */
  readonly relay: string;
  /** The projector, its analytics publisher (`ledger_projector`). */
  readonly projector: string;
}

/**
 * Which URL each process uses, from the environment (empty values count as unset):
 *  - `DATABASE_URL` → {@link LOCAL_DATABASE_URL} (the API, `ledger_app`);
 *  - `MIGRATIONS_DATABASE_URL` → the API's URL with the login `ledger_owner`;
 *  - `RELAY_DATABASE_URL` → the API's URL with the login `ledger_relay`;
 *  - `PROJECTOR_DATABASE_URL` → the API's URL with the login `ledger_projector`.
 * The defaults keep every process on the server and database `DATABASE_URL` names, so a test or a
 * second checkout that sets only `DATABASE_URL` never migrates or relays another database.
 *
 * @param env a validated configuration (the schemas' derived defaults), or an environment
 * @throws TypeError when a URL a default is derived from is not a URL
 */
export function resolveDatabaseUrls(env: DatabaseUrlEnv): DatabaseUrls {
  const app = env.DATABASE_URL || LOCAL_DATABASE_URL;
  return {
    app,
    migrations: env.MIGRATIONS_DATABASE_URL || databaseUrlForRole(app, LEDGER_OWNER_ROLE),
    relay: env.RELAY_DATABASE_URL || databaseUrlForRole(app, LEDGER_RELAY_ROLE),
    projector: env.PROJECTOR_DATABASE_URL || databaseUrlForRole(app, LEDGER_PROJECTOR_ROLE),
  };
}
