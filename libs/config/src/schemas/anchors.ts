import { BoolVar, FileVar, IntVar, ListVar, RequiredUnless, TextVar } from '../env-var';
import { TOPIC_NAME, type EnvClass } from './common';

/**
 * The anchors' parts of the configuration (docs/architecture.md §5, §10; docs/anchors.md): where the
 * signed checkpoints are kept (the relay writes them, the API's `GET /audit/anchors/verify` and
 * `npm run -s verify` read them), the key the relay signs with, and the keys the verifiers check with.
 * `@ledger/anchors` takes the validated values as options (`anchorPublisherSettings`,
 * `anchorVerifySettings`); it reads no environment.
 */

/** Folder of the development key and of the default anchor file, relative to the working directory. */
export const DEFAULT_ANCHOR_DIR = '.stack/anchors';
/** Default anchor file. */
export const DEFAULT_ANCHOR_FILE = `${DEFAULT_ANCHOR_DIR}/anchors.jsonl`;
/** Where development mode keeps its generated private key (when `ANCHOR_PRIVATE_KEY_FILE` is unset). */
export const DEFAULT_DEV_ANCHOR_PRIVATE_KEY_FILE = `${DEFAULT_ANCHOR_DIR}/anchor-private.pem`;
/** Default public key file (development mode writes the generated key's public half there). */
export const DEFAULT_ANCHOR_PUBLIC_KEY_FILE = `${DEFAULT_ANCHOR_DIR}/anchor-public.pem`;
/** The anchors topic (same value as `LEDGER_ANCHORS_TOPIC` of `@ledger/infra`; a unit spec checks they agree). */
export const DEFAULT_ANCHORS_TOPIC = 'baccarat.ledger.anchors.v1';
/** Default most time between a published change and its checkpoint, in ms. */
export const DEFAULT_ANCHOR_INTERVAL_MS = 10_000;

const TOPIC_FORM = 'a Kafka topic name ([A-Za-z0-9._-], 1..249)';
/** A path: no NUL, no line break, 1..4096 characters. */
const PATH = /^[^\0\r\n]{1,4096}$/;

/** `ANCHOR_FILE`, `ANCHOR_TOPIC`, `LEDGER_ID`: where the checkpoints of which ledger are (publisher and verifiers). */
export function WithAnchors<B extends EnvClass>(Base: B) {
  class AnchorsEnv extends Base {
    /**
     * The append-only anchor file of the signed checkpoints (relative paths from the working
     * directory): the relay appends to it, the verifiers read it. Keep it where the database
     * administrators cannot rewrite it (docs/anchors.md).
     * @default .stack/anchors/anchors.jsonl
     */
    @TextVar(PATH, 'a file path')
    ANCHOR_FILE: string = DEFAULT_ANCHOR_FILE;

    /**
     * Kafka topic of the signed checkpoints, the second copy of the anchor file (1 partition, retained forever).
     * @default baccarat.ledger.anchors.v1
     */
    @TextVar(TOPIC_NAME, TOPIC_FORM)
    ANCHOR_TOPIC: string = DEFAULT_ANCHORS_TOPIC;

    /**
     * Names the ledger in every checkpoint (several ledgers may share a file or a topic, each with its
     * own chain). Unset: `<database name>@<database oid>`, read from the database.
     */
    @TextVar(/^[\x21-\x7e]{1,200}$/, 'printable ASCII without spaces (1..200)', { optional: true })
    LEDGER_ID?: string;
  }
  return AnchorsEnv;
}

/** `ANCHOR_PRIVATE_KEY_FILE`, `ANCHOR_INTERVAL_MS`, `ANCHOR_REQUIRED`: the relay's anchor publisher. */
export function WithAnchorPublisher<B extends EnvClass>(Base: B) {
  class AnchorPublisherEnv extends Base {
    /**
     * Ed25519 private key the relay signs the checkpoints with (PEM PKCS#8; read by the relay only).
     * Unset in development mode: `.stack/anchors/anchor-private.pem`, generated on first start with
     * `anchor-public.pem` beside it. Unset otherwise: anchoring is off (logged at error level), or the
     * relay refuses to start with `ANCHOR_REQUIRED=true`.
     */
    @FileVar('the path of a PEM private key file (Ed25519, PKCS#8)', { optional: true })
    @RequiredUnless(
      (env) => env.ANCHOR_REQUIRED !== true || env.LEDGER_ENV === 'development',
      'required with ANCHOR_REQUIRED=true outside development mode (LEDGER_ENV=development generates one): an Ed25519 private key file, PEM PKCS#8',
    )
    ANCHOR_PRIVATE_KEY_FILE?: string;

    /**
     * Most time between a published change and its checkpoint, in ms (the end of a shoe is anchored at once).
     * @default 10000
     */
    @IntVar(100, 86_400_000, 'ms')
    ANCHOR_INTERVAL_MS: number = DEFAULT_ANCHOR_INTERVAL_MS;

    /**
     * `true`: the relay refuses to start without an anchor signing key, instead of relaying with anchoring off.
     * @default false
     */
    @BoolVar()
    ANCHOR_REQUIRED: boolean = false;
  }
  return AnchorPublisherEnv;
}

/** `ANCHOR_PUBLIC_KEY_FILE`: what the verifiers check the signatures with. */
export function WithAnchorVerification<B extends EnvClass>(Base: B) {
  class AnchorVerificationEnv extends Base {
    /**
     * Public key file(s) the checkpoints are verified with (PEM SubjectPublicKeyInfo, Ed25519;
     * several, comma-separated, for a rotated key). Not checked at start: an unreadable key makes
     * the report say that no anchor could be checked.
     * @default .stack/anchors/anchor-public.pem
     */
    @ListVar(PATH, 'comma-separated file paths')
    ANCHOR_PUBLIC_KEY_FILE: readonly string[] = [DEFAULT_ANCHOR_PUBLIC_KEY_FILE];
  }
  return AnchorVerificationEnv;
}
