import { readFileSync } from 'node:fs';
import { verify, type KeyObject } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { loadOrCreateDevelopmentKey, readSigningKey, ReportSignerClient, signBody, signedBytes, type SigningKind } from '@ledger/anchors';
import { DEFAULT_DEV_REPORT_SIGNING_KEY_FILE, type LedgerApiEnv } from '@ledger/config';
import { ApiError } from '../api-error';

/** The code answered when no signature can be had: the close's or the export manifest's. */
export type NoSigningKeyCode = 'GAMING_DAY.NO_SIGNING_KEY' | 'EXPORT.NO_SIGNING_KEY';

/** What signs a report or a manifest: the key's id and public key, and a signature of a body's canonical bytes. */
export interface ReportSigner {
  /** `ed25519:` + 16 hex (`publicKeyId`). */
  readonly keyId: string;
  readonly publicKey: KeyObject;
  /**
   * The Ed25519 signature (base64) of the canonical JSON bytes of `body`, checked with
   * {@link publicKey} before it is returned.
   * @throws ApiError 503 (the code `signer()` was asked with) when no valid signature can be had
   */
  sign(kind: SigningKind, body: unknown): Promise<string>;
}

/**
 * The Ed25519 key the frozen gaming-day reports (docs/reports.md §2) and the export bundles'
 * manifests (docs/reports.md §5) are signed with, in one of two ways:
 *
 * - `REPORT_SIGNER_URL` set: the report signer (`npm run signer`, docs/anchors.md "The report
 *   signer") holds the private key; the API asks it for its public key and for each signature, with
 *   the token of `REPORT_SIGNER_TOKEN_FILE`, and holds no private key;
 * - else the anchor signing key (`libs/anchors/src/keys.ts`) from `REPORT_SIGNING_KEY_FILE`; in
 *   development mode without it, the anchors' development key (generated if missing).
 *
 * Either way each signature is checked with the public key before it is used. Read at the first use.
 */
@Injectable()
export class ReportSigningKey {
  private readonly logger = new Logger('ReportSigningKey');
  private local: ReportSigner | null = null;
  private remoteKey: { keyId: string; publicKey: KeyObject } | null = null;
  private readonly file: string | undefined;
  private readonly signerUrl: string | undefined;
  private readonly signerTokenFile: string | undefined;
  private readonly development: boolean;

  constructor(config: ConfigService<LedgerApiEnv, true>) {
    this.file = config.get('REPORT_SIGNING_KEY_FILE', { infer: true });
    this.signerUrl = config.get('REPORT_SIGNER_URL', { infer: true });
    this.signerTokenFile = config.get('REPORT_SIGNER_TOKEN_FILE', { infer: true });
    this.development = config.get('LEDGER_ENV', { infer: true }) === 'development';
  }

  /**
   * The signer of the closes and manifests.
   * @param missing the code to answer when there is none: the close's (default) or the export manifest's
   * @throws ApiError 503 `missing` (`GAMING_DAY.NO_SIGNING_KEY`, `EXPORT.NO_SIGNING_KEY`) when no key is
   *   configured (outside development), the key file cannot be read, or the signer cannot be reached
   */
  async signer(missing: NoSigningKeyCode = 'GAMING_DAY.NO_SIGNING_KEY'): Promise<ReportSigner> {
    if (this.signerUrl) return this.askSigner(this.signerUrl, missing);
    if (!this.local) {
      try {
        const key = this.file ? readSigningKey(this.file, 'REPORT_SIGNING_KEY_FILE') : this.development ? loadOrCreateDevelopmentKey(DEFAULT_DEV_REPORT_SIGNING_KEY_FILE) : null;
        if (key) {
          this.local = {
            keyId: key.keyId,
            publicKey: key.publicKey,
            sign: async (_kind, body) => {
              const { signature } = signBody(body, key.privateKey, key.keyId);
              if (!verifies(body, signature, key.publicKey)) throw ApiError.of(missing);
              return signature;
            },
          };
        }
      } catch (err) {
        this.logger.error((err as Error).message);
      }
    }
    if (!this.local) throw ApiError.of(missing);
    return this.local;
  }

  /** Whether the report signer signs (`REPORT_SIGNER_URL` set), not a key file of the API. */
  get remote(): boolean {
    return this.signerUrl !== undefined;
  }

  /** The signing key's id and public key, or null when there is none (or the signer cannot be reached now); never throws. */
  async publicKey(): Promise<{ keyId: string; publicKey: KeyObject } | null> {
    try {
      const s = await this.signer();
      return { keyId: s.keyId, publicKey: s.publicKey };
    } catch {
      return null;
    }
  }

  /** The report signer at `url`, its key asked once (again after it changed). */
  private async askSigner(url: string, missing: NoSigningKeyCode): Promise<ReportSigner> {
    let client: ReportSignerClient;
    let key: { keyId: string; publicKey: KeyObject };
    try {
      client = new ReportSignerClient(url, readFileSync(this.signerTokenFile ?? '', 'utf8').trim());
      key = this.remoteKey ?? (await client.key());
      this.remoteKey = key;
    } catch (err) {
      this.logger.error(`report signer: ${(err as Error).message}`);
      throw ApiError.of(missing);
    }
    const { keyId, publicKey } = key;
    return {
      keyId,
      publicKey,
      sign: async (kind, body) => {
        try {
          const a = await client.sign(kind, body);
          if (a.keyId !== keyId) {
            this.remoteKey = null; // the signer's key changed: asked again at the next signature
            throw new Error(`the signer signed with ${a.keyId}, not ${keyId}`);
          }
          if (!verifies(body, a.signature, publicKey)) throw new Error('the signer answered a signature that does not verify');
          return a.signature;
        } catch (err) {
          this.logger.error(`report signer: ${(err as Error).message}`);
          throw ApiError.of(missing);
        }
      },
    };
  }
}

/** Whether `signature` (base64) is an Ed25519 signature of `body`'s canonical bytes by `publicKey`. */
function verifies(body: unknown, signature: string, publicKey: KeyObject): boolean {
  try {
    return verify(null, signedBytes(body), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
