import type { MigrationInterface, QueryRunner } from 'typeorm';
import { assertSchemaName, DEFAULT_READ_SCHEMA } from '../schema-name';

/**
 * The lease of the schema's analytics publisher (docs/guarantees.md §4; `libs/infra/src/outbox/lease.ts`):
 * `<schema>.outbox_leases`, the same shape as the write side's `public.outbox_leases`, so the
 * projector's login needs nothing outside its schema. `ledger_projector` SELECT, INSERT, UPDATE;
 * `ledger_app` nothing (the default privileges of the schema would let it read: taken back).
 */
export class CreateOutboxLeases1796000500100 implements MigrationInterface {
  /** TypeORM's migration name (class name + timestamp). */
  readonly name = 'CreateOutboxLeases1796000500100';

  /** @param schema target schema; `read` for the live model */
  constructor(private readonly schema: string = DEFAULT_READ_SCHEMA) {
    assertSchemaName(schema);
  }

  async up(q: QueryRunner): Promise<void> {
    for (const statement of createOutboxLeasesSql(this.schema)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS "${this.schema}".outbox_leases`);
  }
}

/** The DDL and grants of {@link CreateOutboxLeases1796000500100}, statement by statement. */
export function createOutboxLeasesSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.outbox_leases (
       name        text        PRIMARY KEY,
       holder      text        NOT NULL,
       generation  bigint      NOT NULL CHECK (generation >= 1),
       acquired_at timestamptz NOT NULL,
       renewed_at  timestamptz NOT NULL,
       expires_at  timestamptz NOT NULL,
       holder_pid  integer     NULL,
       holder_session_start timestamptz NULL
     )`,
    ...grantOutboxLeasesSql(schema),
  ];
}

/** The grants of {@link CreateOutboxLeases1796000500100} (idempotent: run again after `grantReadModelSql`, which grants every table to both roles). */
export function grantOutboxLeasesSql(schema: string): string[] {
  const s = `"${assertSchemaName(schema)}"`;
  return [
    `DO $$ BEGIN
       IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
         EXECUTE 'REVOKE ALL ON ${s}.outbox_leases FROM ledger_app';
       END IF;
       IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_projector') THEN
         EXECUTE 'REVOKE ALL ON ${s}.outbox_leases FROM ledger_projector';
         EXECUTE 'GRANT SELECT, INSERT, UPDATE ON ${s}.outbox_leases TO ledger_projector';
       END IF;
     END $$`,
  ];
}
