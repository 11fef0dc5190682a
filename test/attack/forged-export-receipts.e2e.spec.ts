/**
 * An insider with the API's database login (`ledger_app`: INSERT on `export_receipts`), but neither
 * the API host nor its signing key, tries to have the API sign a bundle it did not send
 * (docs/reports.md §5, "The bundle"). The finding: receipts inserted with hashes of rewritten files
 * (an access-log row given to another actor, a shoe left out) were signed into a manifest for any
 * auditor who named them, and the standalone verifier then said OK.
 *
 * Now each receipt carries a seal — the report key's signature of who asked and what was sent — and
 * the manifest signs only the caller's own receipts whose seal verifies: a forged row (no seal, a seal
 * copied from another receipt, a seal by another key) is refused with `EXPORT.RECEIPT_UNSEALED` and an
 * integrity incident, and another caller's genuine receipts are not found.
 *
 * Real PostgreSQL and Kafka, the API, relay and projector in-process.
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { signedBytes } from '@ledger/anchors';
import { generateShoeScript, runShoeScript, type SimTable } from '@ledger/simulator';
import { LedgerHarness, runId, startLedger, TEST_SERVICE_DATABASE_URLS } from '../support/ledger-harness';

jest.setTimeout(240_000);

const KINDS = ['events', 'settlements', 'decisions', 'rejections', 'access-log'] as const;
const table = (JSON.parse(readFileSync(join(__dirname, '../../config/tables.json'), 'utf8')) as { tables: SimTable[] }).tables.find((t) => t.tableId === 'T-CLASSIC-01')!;

interface ReceiptRow {
  id: string;
  actor_id: string;
  actor_role: string;
  kind: string;
  format: string;
  period_from: string;
  period_to: string;
  positions: string;
  header: string;
  rows: string;
  bytes: string;
  sha256: string;
  seal: string | null;
  seal_key_id: string | null;
}

describe('forged export receipts are never signed into a bundle (docs/reports.md §5)', () => {
  let h: LedgerHarness;
  let dir: string;
  let app: Client;
  let genuine: Record<string, string>;
  const AUDITOR = 'aud-receipts';

  /** GET as `sub` (auditor); the status and the parsed JSON body. */
  async function get(sub: string, path: string): Promise<{ status: number; body: { error?: { code: string; details: Record<string, unknown> } } & Record<string, unknown> }> {
    const r = await fetch(`${h.baseUrl}${path}`, { headers: { authorization: `Bearer ${h.client.token('auditor', sub)}` } });
    return { status: r.status, body: (await r.json()) as never };
  }

  /** A copy of the genuine receipt of `kind` inserted with the API's login, `change` applied to the row. */
  async function forged(kind: string, change: (r: ReceiptRow) => Partial<ReceiptRow>): Promise<string> {
    const r = (await app.query<ReceiptRow>(`SELECT *, rows::text AS rows, bytes::text AS bytes FROM export_receipts WHERE id = $1`, [genuine[kind]])).rows[0];
    const f = { ...r, ...change(r), id: randomUUID() };
    await app.query(
      `INSERT INTO export_receipts (id, actor_id, actor_role, kind, format, period_from, period_to, positions, header, rows, bytes, sha256, seal, seal_key_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [f.id, f.actor_id, f.actor_role, f.kind, f.format, f.period_from, f.period_to, f.positions, f.header, f.rows, f.bytes, f.sha256, f.seal, f.seal_key_id],
    );
    return f.id;
  }

  const manifestWith = (sub: string, ids: Record<string, string>) => get(sub, `/exports/manifest?receipts=${KINDS.map((k) => ids[k]).join(',')}`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-forged-receipts-'));
    const pair = generateKeyPairSync('ed25519');
    writeFileSync(join(dir, 'report-private.pem'), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    h = await startLedger({ env: { REPORT_SIGNING_KEY_FILE: join(dir, 'report-private.pem') } });
    await h.startRelay();
    await h.startProjector();
    const from = new Date().toISOString();
    await runShoeScript(generateShoeScript(table, 'forged-receipts', { shoeId: runId('receipts'), dealerId: 'dealer-3', accounts: 3, betChance: 0.9, maxRounds: 3 }), h.client);
    const to = new Date(Date.now() + 1).toISOString();
    genuine = {};
    for (const kind of KINDS) {
      const r = await fetch(`${h.baseUrl}/exports/${kind}?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, { headers: { authorization: `Bearer ${h.client.token('auditor', AUDITOR)}` } });
      expect(r.status).toBe(200);
      await r.text();
      genuine[kind] = r.headers.get('ledger-export-receipt')!;
    }
    app = new Client({ connectionString: TEST_SERVICE_DATABASE_URLS.app });
    await app.connect();
  });

  afterAll(async () => {
    await app?.end();
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('signs the caller its own sealed receipts, and nobody else', async () => {
    const own = await manifestWith(AUDITOR, genuine);
    expect(own.status).toBe(200);
    const other = await manifestWith('aud-other', genuine);
    expect(other.status).toBe(404);
    expect(other.body.error).toMatchObject({ code: 'EXPORT.RECEIPT_NOT_FOUND', details: { receiptId: genuine.events } });
  });

  it('refuses a receipt the API login wrote: no seal, a copied seal, another key', async () => {
    const incidentsBefore = Number((await h.ds.query(`SELECT count(*) AS n FROM integrity_incidents WHERE kind = 'EXPORT_RECEIPT_UNSEALED'`))[0].n);
    const rewritten = 'f'.repeat(64);
    const attacker = generateKeyPairSync('ed25519').privateKey;
    const forgeries: Record<string, (r: ReceiptRow) => Partial<ReceiptRow>> = {
      'no seal, the hash of a rewritten file': () => ({ sha256: rewritten, seal: null, seal_key_id: null }),
      'the genuine seal kept, the hash changed': () => ({ sha256: rewritten }),
      'the genuine seal kept, the row count changed': (r) => ({ rows: String(Number(r.rows) + 1) }),
      "a seal by the attacker's key under the report key's id": (r) => ({
        sha256: rewritten,
        seal: sign(null, signedBytes({ receipt: 'baccarat-ledger-export-receipt/1', id: r.id, actorId: r.actor_id, kind: r.kind }), attacker).toString('base64'),
      }),
    };
    for (const [name, change] of Object.entries(forgeries)) {
      const id = await forged('access-log', change);
      const r = await manifestWith(AUDITOR, { ...genuine, 'access-log': id });
      expect({ name, status: r.status, code: r.body.error?.code, receiptId: r.body.error?.details.receiptId }).toEqual({ name, status: 422, code: 'EXPORT.RECEIPT_UNSEALED', receiptId: id });
    }
    const incidentsAfter = Number((await h.ds.query(`SELECT count(*) AS n FROM integrity_incidents WHERE kind = 'EXPORT_RECEIPT_UNSEALED'`))[0].n);
    expect(incidentsAfter - incidentsBefore).toBe(Object.keys(forgeries).length);
  });

  it('refuses a genuine receipt handed to another actor in the row', async () => {
    const stolen: Record<string, string> = {};
    for (const kind of KINDS) stolen[kind] = await forged(kind, () => ({ actor_id: 'aud-thief' }));
    const r = await manifestWith('aud-thief', stolen);
    expect(r.status).toBe(422);
    expect(r.body.error?.code).toBe('EXPORT.RECEIPT_UNSEALED');
  });
});
