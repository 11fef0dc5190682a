import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { anchorVerifySettings, databaseLedgerId, parseAnchor, publicKeyPem, readAnchorLines, readPublicKeys, type SignedAnchor } from '@ledger/anchors';
import { ApiError } from '../kernel/api-error';
import { ReportSigningKey } from '../kernel/closes/report-signing-key';
import { rows } from '../kernel/sql';
import { DATA_SOURCE } from '../kernel/tokens';
import { bundleAnchors, bundleProblems, manifestBody, signedManifest, type SignedManifest } from './export-manifest';
import { loadReceipts, sealVerifies } from './export-receipts';
import { recordIncident } from '../kernel/integrity-incidents';

/**
 * `GET /exports/manifest` (docs/reports.md §5, "The bundle"): the API signs what makes a bundle a
 * bundle — its period, positions, every file's SHA-256, size and row count, the checkpoints' digests —
 * with the report signing key (`REPORT_SIGNING_KEY_FILE`, the key the gaming-day closes are signed
 * with), from the receipts it recorded itself while it sent the exports (`export_receipts`): a client
 * names the receipts, never the hashes.
 */
@Injectable()
export class ExportManifestService {
  private readonly anchorFile: string;
  private readonly publicKeyFiles: readonly string[];
  private readonly ledgerIdSetting: string | null;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    private readonly signingKey: ReportSigningKey,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    const anchors = anchorVerifySettings({
      ANCHOR_FILE: config.get('ANCHOR_FILE', { infer: true }),
      ANCHOR_PUBLIC_KEY_FILE: config.get('ANCHOR_PUBLIC_KEY_FILE', { infer: true }),
      ANCHOR_TOPIC: config.get('ANCHOR_TOPIC', { infer: true }),
      LEDGER_EVENTS_TOPIC: config.get('LEDGER_EVENTS_TOPIC', { infer: true }),
      LEDGER_ID: config.get('LEDGER_ID', { infer: true }),
    });
    this.anchorFile = anchors.anchorFile;
    this.publicKeyFiles = anchors.publicKeyFiles;
    this.ledgerIdSetting = anchors.ledgerId;
  }

  /**
   * The signed manifest of the bundle the receipts `ids` make (one export of each kind, one period,
   * one format, the same positions), with the checkpoints it names and the public keys the API knows.
   * Only the caller's own receipts count (another's is not found), and each must carry a seal that
   * verifies with the report key (`sealVerifies`): a receipt row written with the API's database
   * login alone, or altered, has none, is refused and recorded as an integrity incident.
   * @param callerId the id of the principal asking (the receipts' `actorId`)
   * @throws ApiError 404 `EXPORT.RECEIPT_NOT_FOUND` (details `{ receiptId }`), 422 `EXPORT.RECEIPT_UNSEALED`
   *   (details `{ receiptId }`), 422 `EXPORT.BUNDLE_INCONSISTENT` (details `{ problems }`), 503 `EXPORT.NO_SIGNING_KEY`
   */
  async manifest(ids: readonly string[], callerId: string, now = new Date()): Promise<SignedManifest> {
    const receipts = (await loadReceipts(this.ds, ids)).filter((r) => r.actorId === callerId);
    const unknown = ids.find((id) => !receipts.some((r) => r.id === id.toLowerCase()));
    if (unknown !== undefined) throw ApiError.of('EXPORT.RECEIPT_NOT_FOUND', { receiptId: unknown });
    const signer = await this.signingKey.signer('EXPORT.NO_SIGNING_KEY');
    const unsealed = receipts.find((r) => !sealVerifies(r, signer));
    if (unsealed) {
      await recordIncident(this.ds, {
        kind: 'EXPORT_RECEIPT_UNSEALED',
        code: 'EXPORT.RECEIPT_UNSEALED',
        subject: unsealed.id,
        details: { receiptId: unsealed.id, actorId: unsealed.actorId, sealKeyId: unsealed.seal?.keyId ?? null, keyId: signer.keyId },
      });
      throw ApiError.of('EXPORT.RECEIPT_UNSEALED', { receiptId: unsealed.id });
    }
    const problems = bundleProblems(receipts);
    if (problems.length > 0) throw ApiError.of('EXPORT.BUNDLE_INCONSISTENT', { problems: problems.join('; ') });
    const ledgerId = this.ledgerIdSetting ?? (await databaseLedgerId({ query: (sql, params) => rows(this.ds, sql, params) }));
    const events = receipts.find((r) => r.kind === 'events')!;
    const anchors = bundleAnchors(await this.ledgerAnchors(ledgerId), events.positions);
    const body = manifestBody({ receipts, ledgerId, anchors, keyId: signer.keyId, now });
    const signature = await signer.sign('export-manifest', body);
    return signedManifest({ body, signature, anchors, publicKeys: this.publicKeys(signer.keyId, publicKeyPem(signer.publicKey)) });
  }

  /** The anchors' public keys (`ANCHOR_PUBLIC_KEY_FILE`, none when unreadable) and the signing key's, each once. */
  private publicKeys(signingKeyId: string, signingPem: string): { keyId: string; pem: string }[] {
    let keys: { keyId: string; pem: string }[] = [];
    try {
      keys = [...readPublicKeys(this.publicKeyFiles)].map(([keyId, key]) => ({ keyId, pem: publicKeyPem(key) }));
    } catch {
      keys = [];
    }
    return keys.some((k) => k.keyId === signingKeyId) ? keys : [...keys, { keyId: signingKeyId, pem: signingPem }];
  }

  /** The well-formed signed anchors of `ledgerId` in the anchor file, in file order (none when the file is missing). */
  private async ledgerAnchors(ledgerId: string): Promise<SignedAnchor[]> {
    const out: SignedAnchor[] = [];
    for (const line of await readAnchorLines(this.anchorFile)) {
      const p = parseAnchor(line.text);
      if ('anchor' in p && p.anchor.checkpoint.ledgerId === ledgerId) out.push(p.anchor);
    }
    return out;
  }
}
