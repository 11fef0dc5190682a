import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The publishers' leadership leases and the outbox's pruning (docs/guarantees.md §4):
 *  - `outbox_leases`: one row per lease name (`ledger-relay`, `ledger-anchors`): who holds it
 *    (`holder`, an instance id), its `generation` (+1 at every acquisition, the fencing token) and
 *    `expires_at` (PostgreSQL's clock). See `libs/infra/src/outbox/lease.ts`.
 *  - `outbox` rows are deleted by the relay once published and older than `OUTBOX_RETENTION_MS`:
 *    `ledger_relay` gets DELETE on `outbox` (its pruning deletes only rows whose `published_at` is
 *    set; `events` are never deleted by anyone). A trigger refuses to delete an unpublished row
 *    (SQLSTATE `LA001`, the append-only class), whoever asks: not even the relay's login can drop an
 *    event from the outbox before it reached Kafka.
 *
 * Grants (docs/guarantees.md §12): `ledger_relay` SELECT, INSERT, UPDATE on `outbox_leases` (the
 * relay and its anchor publisher, and `npm run republish`, log in as it); `ledger_app` nothing on
 * it (the default privileges would give it SELECT and INSERT: taken back, so the API's login cannot
 * plant a lease that keeps the relay standing by); `ledger_projector` nothing.
 */
/**
 * The grants of {@link CreateOutboxLeases1796000500000}, idempotent: run them again after
 * `GrantRuntimeRoles1795950000100` is re-run (that one takes back what it does not grant itself).
 */
export const OUTBOX_LEASE_GRANTS: readonly string[] = [
  `REVOKE ALL ON outbox_leases FROM ledger_app, ledger_relay, ledger_projector`,
  `GRANT SELECT, INSERT, UPDATE ON outbox_leases TO ledger_relay`,
  `GRANT DELETE ON outbox TO ledger_relay`,
];

export class CreateOutboxLeases1796000500000 implements MigrationInterface {
  name = 'CreateOutboxLeases1796000500000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE outbox_leases (
        name        text        PRIMARY KEY,
        holder      text        NOT NULL,
        generation  bigint      NOT NULL CHECK (generation >= 1),
        acquired_at timestamptz NOT NULL,
        renewed_at  timestamptz NOT NULL,
        expires_at  timestamptz NOT NULL,
        holder_pid  integer     NULL,
        holder_session_start timestamptz NULL
      )`);
    await q.query(`COMMENT ON TABLE outbox_leases IS
      'Leadership of the outbox publishers: the holder renews expires_at while it makes progress; generation is the fencing token checked in every mark transaction.'`);
    for (const statement of OUTBOX_LEASE_GRANTS) await q.query(statement);
    await q.query(`
      CREATE FUNCTION outbox_refuse_unpublished_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.published_at IS NULL THEN
          RAISE EXCEPTION 'ledger: outbox row % is not published yet; only published rows are pruned', OLD.global_position
            USING ERRCODE = 'LA001';
        END IF;
        RETURN OLD;
      END
      $$`);
    await q.query(`CREATE TRIGGER outbox_refuse_unpublished_delete BEFORE DELETE ON outbox FOR EACH ROW EXECUTE FUNCTION outbox_refuse_unpublished_delete()`);
    // the pruning's scan: published rows, oldest publication first
    await q.query(`CREATE INDEX outbox_published_idx ON outbox (published_at) WHERE published_at IS NOT NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS outbox_published_idx`);
    await q.query(`DROP TRIGGER IF EXISTS outbox_refuse_unpublished_delete ON outbox`);
    await q.query(`DROP FUNCTION IF EXISTS outbox_refuse_unpublished_delete()`);
    await q.query(`REVOKE DELETE ON outbox FROM ledger_relay`);
    await q.query(`DROP TABLE IF EXISTS outbox_leases`);
  }
}
