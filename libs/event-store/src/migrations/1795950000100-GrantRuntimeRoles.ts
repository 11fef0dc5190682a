import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each runtime role may do with the event store (docs/guarantees.md §1 and §12; docs/architecture.md
 * §10, database roles). The tables belong to `ledger_owner`, who runs this migration; the services log
 * in as roles that own nothing, so they cannot disable the append-only triggers, alter, drop or
 * truncate a table, nor update or delete an event:
 *
 * | role               | may                                                                              |
 * |--------------------|----------------------------------------------------------------------------------|
 * | `ledger_app`       | SELECT and INSERT on every event-store table (events, streams, outbox,            |
 * |                    | idempotency_keys, rejections, ledger_references, event_position, and what later   |
 * |                    | migrations add); UPDATE only of `streams (version, last_hash, updated_at)` and    |
 * |                    | `event_position (last_position)`, the two rows an append moves; DELETE of expired |
 * |                    | `idempotency_keys` (retention, docs/guarantees.md §3); its sequences              |
 * | `ledger_relay`     | SELECT on `events` and `outbox`; UPDATE only of `outbox (published_at)` (which    |
 * |                    | also lets it claim rows `FOR UPDATE`)                                            |
 * | `ledger_projector` | nothing here: it reads the ledger from Kafka                                      |
 *
 * No runtime role gets UPDATE, DELETE, TRUNCATE, TRIGGER or REFERENCES on `events`, nor anything on
 * the `migrations` table. Advisory locks and LISTEN/NOTIFY need no grant.
 *
 * Tables a later migration creates (as `ledger_owner`) get SELECT and INSERT for `ledger_app` by
 * default privileges, nothing else: an UPDATE or a grant to another role is that migration's own,
 * explicit `GRANT`.
 *
 * Idempotent: it first takes back whatever the runtime roles hold on these tables, then grants, so it
 * may be run again (also by hand) after a role was recreated. Refuses to run (SQLSTATE `LA002`)
 * when a role is missing, when the connected role is not `ledger_owner` (or a member of it), or when
 * a runtime role could act as the owner (superuser, or member of `ledger_owner`).
 */
export class GrantRuntimeRoles1795950000100 implements MigrationInterface {
  name = 'GrantRuntimeRoles1795950000100';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      DECLARE
        missing text;
        r text;
      BEGIN
        SELECT string_agg(x, ', ') INTO missing
          FROM unnest(ARRAY['ledger_owner', 'ledger_app', 'ledger_relay', 'ledger_projector']) AS x
         WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = x);
        IF missing IS NOT NULL THEN
          RAISE EXCEPTION 'ledger: database role(s) % missing', missing USING ERRCODE = 'LA002',
            HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
        END IF;
        IF NOT pg_has_role(current_user, 'ledger_owner', 'MEMBER') THEN
          RAISE EXCEPTION 'ledger: migrations run as ledger_owner, not as %', current_user USING ERRCODE = 'LA002',
            HINT = 'Point MIGRATIONS_DATABASE_URL at the owner role.';
        END IF;
        FOREACH r IN ARRAY ARRAY['ledger_app', 'ledger_relay', 'ledger_projector'] LOOP
          IF (SELECT rolsuper FROM pg_roles WHERE rolname = r) OR pg_has_role(r, 'ledger_owner', 'MEMBER') THEN
            RAISE EXCEPTION 'ledger: runtime role % can act as the owner (superuser or member of ledger_owner)', r
              USING ERRCODE = 'LA002', HINT = 'A runtime role must own nothing and inherit nothing from ledger_owner.';
          END IF;
        END LOOP;
      END
      $$`);

    // Connecting and naming objects in public; creating objects there is the owner's alone
    // (PostgreSQL 15 no longer grants CREATE on public to PUBLIC; older clusters did).
    await q.query(`
      DO $$
      BEGIN
        EXECUTE format('GRANT CONNECT ON DATABASE %I TO ledger_app, ledger_relay, ledger_projector', current_database());
        IF pg_has_role(current_user, (SELECT nspowner FROM pg_namespace WHERE nspname = 'public'), 'USAGE') THEN
          REVOKE CREATE ON SCHEMA public FROM PUBLIC;
        END IF;
      END
      $$`);
    await q.query(`GRANT USAGE ON SCHEMA public TO ledger_app, ledger_relay`);

    // (`event_position` is gone since AppendWithoutGlobalLock1797000000000: a re-run skips it)
    const listed = ['events', 'event_position', 'streams', 'outbox', 'idempotency_keys', 'rejections', 'ledger_references'];
    const tables: string[] = (await q.query(`SELECT t FROM unnest($1::text[]) t WHERE to_regclass(t) IS NOT NULL`, [listed])).map((r: { t: string }) => r.t);
    await q.query(`REVOKE ALL ON ${tables.join(', ')} FROM ledger_app, ledger_relay, ledger_projector`);

    // The API: read and append everywhere in the event store, move the two rows an append moves.
    await q.query(`GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO ledger_app`);
    await q.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ledger_app`);
    await q.query(`GRANT UPDATE (version, last_hash, updated_at) ON streams TO ledger_app`);
    if (tables.includes('event_position')) await q.query(`GRANT UPDATE (last_position) ON event_position TO ledger_app`);
    // Idempotency keys expire (IDEMPOTENCY_RETENTION_DAYS): the API deletes expired ones. Never events.
    await q.query(`GRANT DELETE ON idempotency_keys TO ledger_app`);
    // ... but never the migrations bookkeeping (TypeORM's table and its id sequence).
    await q.query(`REVOKE ALL ON migrations FROM ledger_app, ledger_relay, ledger_projector`);
    await q.query(`
      DO $$
      BEGIN
        IF pg_get_serial_sequence('migrations', 'id') IS NOT NULL THEN
          EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM ledger_app, ledger_relay, ledger_projector', pg_get_serial_sequence('migrations', 'id'));
        END IF;
      END
      $$`);

    // The relay: read what it publishes, mark it published.
    await q.query(`GRANT SELECT ON events, outbox TO ledger_relay`);
    await q.query(`GRANT UPDATE (published_at) ON outbox TO ledger_relay`);

    // Tables and sequences later migrations create as the owner: readable and appendable by the API.
    await q.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ledger_owner IN SCHEMA public GRANT SELECT, INSERT ON TABLES TO ledger_app`);
    await q.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ledger_owner IN SCHEMA public GRANT USAGE ON SEQUENCES TO ledger_app`);
  }

  public async down(q: QueryRunner): Promise<void> {
    // Takes the grants back (the services then cannot work); the tables stay.
    await q.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ledger_owner IN SCHEMA public REVOKE ALL ON TABLES FROM ledger_app`);
    await q.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ledger_owner IN SCHEMA public REVOKE ALL ON SEQUENCES FROM ledger_app`);
    await q.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ledger_app, ledger_relay, ledger_projector`);
    await q.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ledger_app, ledger_relay, ledger_projector`);
  }
}
