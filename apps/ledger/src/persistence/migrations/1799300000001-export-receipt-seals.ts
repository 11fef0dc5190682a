import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The seal of an export receipt (docs/reports.md §5, "The bundle"): `seal`, the Ed25519 signature
 * (base64) by the report signing key of the receipt's canonical body (`ReceiptSealBody`: who asked,
 * what was sent), and `seal_key_id`, the key's id. The API seals a receipt when it records it, after
 * the export's last byte; `GET /exports/manifest` signs only receipts whose seal verifies and that
 * its caller asked for. A row inserted with the API's database login alone (no signing key) has no
 * valid seal, so it can never be signed into a bundle. Receipts recorded before this migration have
 * none and cannot be signed either (export again). The table stays append-only (its triggers).
 */
export class ExportReceiptSeals1799300000001 implements MigrationInterface {
  name = 'ExportReceiptSeals1799300000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE export_receipts ADD COLUMN IF NOT EXISTS seal text, ADD COLUMN IF NOT EXISTS seal_key_id text`);
  }

  async down(): Promise<void> {
    throw new Error('export_receipts is evidence of what was exported: this migration is not reverted');
  }
}
