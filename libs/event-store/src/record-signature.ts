import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError, MIN_RECORD_SIGNING_KEY_BYTES, type LedgerEnvironment } from '@ledger/config';

/**
 * The authentication of the ledger's Kafka records (docs/guarantees.md §8, docs/architecture.md §10).
 *
 * The hash chain proves an event belongs after its predecessor, but anybody who knows the hash
 * function can compute a valid chain for a NEW stream. So the relay also signs every record it
 * publishes, and the projector applies only records whose signature verifies:
 *
 *   ledger-sig = hex(HMAC-SHA256(RECORD_SIGNING_KEY, uint32be(len(key)) ‖ key ‖ value))
 *
 * `key` and `value` are the record's key and value bytes exactly as on the topic (UTF-8 of the table
 * id and of the canonical JSON envelope); a record without a key signs an empty one. The length
 * prefix makes the split between key and value unambiguous. The signing key is a shared secret of
 * the relay and the projector (`RECORD_SIGNING_KEY`, at least 32 bytes, its UTF-8 bytes are the HMAC
 * key), never in the repository outside the public development key below.
 */

/** The Kafka header carrying a record's signature (lower-case hex, 64 characters). */
export const RECORD_SIGNATURE_HEADER = 'ledger-sig';

/**
 * The public development key: it is in the repository, so anyone can sign with it. Only a relay or
 * projector in development mode (`LEDGER_ENV=development`: the demo, the bench, the tests) uses it,
 * when `RECORD_SIGNING_KEY` is unset, and logs a warning; outside development mode they refuse it.
 */
export const DEV_RECORD_SIGNING_KEY = 'dev-only-record-key-change-me-baccarat-ledger';

/** Bytes of a key or value as sent (`string` = its UTF-8). */
export type RecordBytes = string | Buffer | null | undefined;

function bytes(b: RecordBytes): Buffer {
  if (b === null || b === undefined) return Buffer.alloc(0);
  return typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
}

/**
 * The signature of a record: lower-case hex HMAC-SHA256 (64 characters) over its key and value (see
 * the file comment for the exact bytes).
 * @param secret the signing key (`RECORD_SIGNING_KEY`)
 * @param key the record's key (the table id); null or undefined signs as empty
 * @param value the record's value
 */
export function recordSignature(secret: string, key: RecordBytes, value: RecordBytes): string {
  const k = bytes(key);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(k.length, 0);
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(length).update(k).update(bytes(value)).digest('hex');
}

/**
 * Whether `signature` (the `ledger-sig` header, as received) is the signature of the record under
 * `secret`. Constant-time in the signature; false for a missing, malformed or wrong one.
 */
export function verifyRecordSignature(secret: string, key: RecordBytes, value: RecordBytes, signature: string | Buffer | undefined): boolean {
  if (signature === undefined) return false;
  const given = Buffer.from(typeof signature === 'string' ? signature : signature.toString('utf8'), 'utf8');
  const expected = Buffer.from(recordSignature(secret, key, value), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The key a relay or projector signs or verifies with, and where it came from. */
export interface RecordSigningKey {
  readonly key: string;
  /** True when the public development key is in use (development mode only): log a warning. */
  readonly developmentKey: boolean;
}

/**
 * The record signing key of a process, from its validated configuration: `RECORD_SIGNING_KEY`, or
 * in development mode, when unset, {@link DEV_RECORD_SIGNING_KEY} (`developmentKey: true`; the
 * caller logs a warning).
 * @param config the process's validated configuration (`RelayEnv`, `ProjectorEnv`)
 * @throws ConfigError `CONFIG.INVALID` naming `RECORD_SIGNING_KEY` outside development mode when it
 *   is unset or is the development key
 */
export function recordSigningKey(config: { readonly LEDGER_ENV: LedgerEnvironment; readonly RECORD_SIGNING_KEY?: string }): RecordSigningKey {
  const development = config.LEDGER_ENV === 'development';
  const configured = config.RECORD_SIGNING_KEY;
  if (configured !== undefined && configured !== '') {
    if (!development && configured === DEV_RECORD_SIGNING_KEY) {
      throw new ConfigError([{ variable: 'RECORD_SIGNING_KEY', message: 'is the public development key from the repository: outside development mode set a key of your own (openssl rand -base64 48)' }], 'record signing');
    }
    return { key: configured, developmentKey: false };
  }
  if (!development) {
    throw new ConfigError(
      [
        {
          variable: 'RECORD_SIGNING_KEY',
          message: `required outside development mode (LEDGER_ENV=development): a secret of at least ${MIN_RECORD_SIGNING_KEY_BYTES} bytes, the same for the relay and the projector`,
        },
      ],
      'record signing',
    );
  }
  return { key: DEV_RECORD_SIGNING_KEY, developmentKey: true };
}
