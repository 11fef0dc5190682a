import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys belong to their caller (docs/guarantees.md §3): `idempotency_keys` gets a
 * `caller` column (`<role>:<subject>` of the token that sent the request) and its primary key
 * becomes `(caller, key)`, so two callers that happen to choose the same `Idempotency-Key` never
 * see each other's answers nor collide, and one caller cannot squat another's key. Keys stored
 * before this migration belong to the caller `legacy:` (no token role is `legacy`): no caller can
 * replay them, and they age out with the retention like any other.
 *
 * A key is kept for a retention (the API's `IDEMPOTENCY_RETENTION_DAYS`, default 7 days); after it
 * the key may be used again and the row is deleted by the API's pruning. `created_at` is indexed
 * for that delete. The API's runtime role therefore needs DELETE on this table (and only this one,
 * docs/architecture.md §10): granted here when the role `ledger_app` exists. This migration comes
 * after the runtime grants (`…100`), which take every privilege back before granting, so the
 * DELETE granted here stays.
 *
 * No existing column is dropped or changed; the key's old primary key constraint is replaced by
 * the new one under the same name (`idempotency_keys_pkey`, which the append recognises).
 *
 * Irreversible on purpose: `down` refuses (the old key cannot hold two callers' rows).
 */
export class ScopeIdempotencyKeysByCaller1795950000110 implements MigrationInterface {
  name = 'ScopeIdempotencyKeysByCaller1795950000110';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN caller text NOT NULL DEFAULT 'legacy:'`);
    await q.query(`ALTER TABLE idempotency_keys ALTER COLUMN caller DROP DEFAULT`);
    await q.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey`);
    await q.query(`ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (caller, key)`);
    await q.query(`CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at)`);
    await q.query(`COMMENT ON COLUMN idempotency_keys.caller IS
      'Who sent the request: <role>:<token subject>. A key is unique per caller only; rows stored before keys were scoped have caller ''legacy:''.'`);
    await q.query(`COMMENT ON COLUMN idempotency_keys.created_at IS
      'When the first answer was stored (the store''s clock). After the retention (IDEMPOTENCY_RETENTION_DAYS) the key may be reused and the row is pruned.'`);
    await q.query(`
      DO $$
      BEGIN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ledger_app') THEN
          GRANT DELETE ON idempotency_keys TO ledger_app;
        END IF;
      END
      $$`);
  }

  public async down(): Promise<void> {
    throw new Error('ScopeIdempotencyKeysByCaller is irreversible: keys of two callers cannot share the old primary key');
  }
}
