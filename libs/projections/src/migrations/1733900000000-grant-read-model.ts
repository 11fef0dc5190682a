import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';

/**
 * What each runtime role may do with one read-model schema (docs/guarantees.md §12; docs/architecture.md
 * §10, database roles). The schema and its tables belong to `ledger_owner`, who runs the migrations:
 *
 * | role               | may                                                                     |
 * |--------------------|-------------------------------------------------------------------------|
 * | `ledger_projector` | SELECT, INSERT, UPDATE, DELETE on every table (projections, checkpoints, |
 * |                    | applied events, the analytics outbox and its retention), its sequences   |
 * | `ledger_app`       | SELECT on every table and view (the query API reads the read model)      |
 *
 * Neither may TRUNCATE, create, alter or drop anything, nor write the schema's `migrations` table: a
 * rebuild, which drops and recreates the schema, runs as the owner (`scripts/rebuild-projections.ts`).
 * Tables a later migration adds to the schema get the same grants by default privileges.
 *
 * Idempotent (takes back, then grants). Every schema built with `projectionMigrations` gets it,
 * so a scratch schema of a side-by-side rebuild has the same grants as the live one.
 * Refuses to run (SQLSTATE `LA002`) when a role is missing.
 */
export class GrantReadModel1733900000000 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'GrantReadModel1733900000000';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of grantReadModelSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${assertSchemaName(this.schema)}"`;
    await q.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ledger_owner IN SCHEMA ${s} REVOKE ALL ON TABLES FROM ledger_projector, ledger_app`);
    await q.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ledger_owner IN SCHEMA ${s} REVOKE ALL ON SEQUENCES FROM ledger_projector`);
    await q.query(`REVOKE ALL ON ALL TABLES IN SCHEMA ${s} FROM ledger_projector, ledger_app`);
    await q.query(`REVOKE ALL ON SCHEMA ${s} FROM ledger_projector, ledger_app`);
  }
}

/** The statements of {@link GrantReadModel1733900000000}, in order. */
export function grantReadModelSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `DO $$
     DECLARE missing text;
     BEGIN
       SELECT string_agg(x, ', ') INTO missing
         FROM unnest(ARRAY['ledger_owner', 'ledger_app', 'ledger_projector']) AS x
        WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = x);
       IF missing IS NOT NULL THEN
         RAISE EXCEPTION 'ledger: database role(s) % missing', missing USING ERRCODE = 'LA002',
           HINT = 'Create the roles first: bash scripts/stack.sh up on a development machine; in production see docs/operations.md, "Database roles".';
       END IF;
     END
     $$`,
    `REVOKE ALL ON SCHEMA ${s} FROM PUBLIC`,
    `GRANT USAGE ON SCHEMA ${s} TO ledger_projector, ledger_app`,
    `REVOKE ALL ON ALL TABLES IN SCHEMA ${s} FROM ledger_projector, ledger_app`,
    `REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${s} FROM ledger_projector, ledger_app`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ledger_projector`,
    `GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${s} TO ledger_projector`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA ${s} TO ledger_app`,
    // the schema's own migration bookkeeping is the owner's
    `REVOKE INSERT, UPDATE, DELETE ON ${s}.migrations FROM ledger_projector`,
    `ALTER DEFAULT PRIVILEGES FOR ROLE ledger_owner IN SCHEMA ${s} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ledger_projector`,
    `ALTER DEFAULT PRIVILEGES FOR ROLE ledger_owner IN SCHEMA ${s} GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ledger_projector`,
    `ALTER DEFAULT PRIVILEGES FOR ROLE ledger_owner IN SCHEMA ${s} GRANT SELECT ON TABLES TO ledger_app`,
  ];
}
