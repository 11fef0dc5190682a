import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `rejections`: the audit log of refused input (docs/guarantees.md §11: "the refusal itself is
 * logged for audit"). Append-only like `events`, by the same trigger function. Its `id` comes from a
 * sequence: gaps there are harmless (it is not a ledger position).
 *
 * Irreversible on purpose: `down` refuses.
 */
export class CreateRejections1795950000002 implements MigrationInterface {
  name = 'CreateRejections1795950000002';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE rejections (
        id             bigserial   PRIMARY KEY,
        received_at    timestamptz NOT NULL DEFAULT now(),
        code           text        NOT NULL,
        message        text        NOT NULL,
        http_status    integer     NOT NULL,
        actor_id       text        NULL,
        actor_role     text        NULL,
        route          text        NULL,
        table_id       text        NULL,
        correlation_id text        NULL,
        raw_payload    jsonb       NULL
      )`);
    await q.query(`CREATE INDEX rejections_received_at_idx ON rejections (received_at)`);
    await q.query(`CREATE INDEX rejections_table_id_received_at_idx ON rejections (table_id, received_at)`);
    await q.query(`CREATE INDEX rejections_code_received_at_idx ON rejections (code, received_at)`);
    await q.query(`CREATE INDEX rejections_correlation_id_idx ON rejections (correlation_id)`);
    await q.query(`CREATE TRIGGER rejections_append_only BEFORE UPDATE OR DELETE ON rejections
      FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`);
    await q.query(`CREATE TRIGGER rejections_no_truncate BEFORE TRUNCATE ON rejections
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`);
  }

  public async down(): Promise<void> {
    throw new Error('CreateRejections is irreversible: the audit log of refusals is append-only');
  }
}
