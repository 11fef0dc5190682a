-- The ledger's PostgreSQL roles on a development machine (docs/guarantees.md §12, docs/architecture.md
-- §10). Run as a superuser; idempotent. `scripts/stack.sh up` runs it, and docker/docker-compose.yml
-- on an empty data volume. Production creates the same roles with real secrets: docs/operations.md, "Database roles".
--
--   ledger_owner      owns the databases, schemas and tables; runs the migrations (the grants are migrations)
--   ledger_app        the API        (DATABASE_URL)
--   ledger_relay      the relay      (RELAY_DATABASE_URL)
--   ledger_projector  the projector  (PROJECTOR_DATABASE_URL)
--   ledger            the login of older checkouts, kept as a member of ledger_owner (an owner alias)
--
-- Each password is the role's name: loopback development only (the machine's PostgreSQL trusts
-- loopback anyway).
DO $$
DECLARE
  r text;
  m record;
BEGIN
  FOREACH r IN ARRAY ARRAY['ledger_owner', 'ledger_app', 'ledger_relay', 'ledger_projector'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', r, r);
    END IF;
    -- whatever an earlier setup gave it: none of these powers
    EXECUTE format('ALTER ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', r);
  END LOOP;
  -- a runtime role is a member of nothing: it could SET ROLE to whatever it belongs to
  FOR m IN SELECT a.roleid::regrole AS parent, a.member::regrole AS child
             FROM pg_auth_members a
            WHERE a.member IN ('ledger_app'::regrole, 'ledger_relay'::regrole, 'ledger_projector'::regrole) LOOP
    EXECUTE format('REVOKE %s FROM %s', m.parent, m.child);
  END LOOP;
  -- the owner watches the services' sessions (pg_stat_activity shows another role's state and query
  -- only to members of pg_read_all_stats): tests and operators look for a projector's open transaction
  IF NOT pg_has_role('ledger_owner', 'pg_read_all_stats', 'MEMBER') THEN
    GRANT pg_read_all_stats TO ledger_owner;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger') THEN
    CREATE ROLE ledger LOGIN PASSWORD 'ledger';
  END IF;
  IF NOT pg_has_role('ledger', 'ledger_owner', 'MEMBER') THEN
    GRANT ledger_owner TO ledger;
  END IF;
END
$$;
