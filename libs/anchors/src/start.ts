import { DEFAULT_DATABASE_URL, parseBrokers, type LedgerLogger } from '@ledger/event-store';
import { AnchorPublisher } from './anchor-publisher';
import { anchorConfigFromEnv, DEFAULT_ANCHOR_DIR } from './config';
import { kafkaClient } from './kafka-io';
import { loadOrCreateDevelopmentKey, PUBLIC_KEY_FILE_NAME, readSigningKey } from './keys';

/** What {@link startAnchorPublisher} returns: the publisher (null when anchoring is off) and how to stop it. */
export interface AnchorPublisherHandle {
  readonly publisher: AnchorPublisher | null;
  /** Stops the loop (see {@link AnchorPublisher.stop}); a no-op when anchoring is off. Never throws. */
  stop(): Promise<void>;
}

/** Options of {@link startAnchorPublisher}; everything else comes from the environment (see `config.ts`). */
export interface StartAnchorsOptions {
  readonly logger: LedgerLogger;
  /** @default env `DATABASE_URL`, else the default URL */
  readonly databaseUrl?: string;
  /** @default env `KAFKA_BROKERS` */
  readonly brokers?: readonly string[];
  /** @default `process.env` */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Starts the anchor loop of the relay process (docs/architecture.md §10): reads the `ANCHOR_*`
 * settings, loads the signing key (development mode generates `.stack/anchors/anchor-private.pem`
 * and writes `anchor-public.pem` beside it), starts {@link AnchorPublisher} in the background.
 *
 * Without a key outside development mode anchoring is off: logged at error level (and verify then
 * reports the unanchored events once they are older than its grace period), or, with
 * `ANCHOR_REQUIRED=true`, refused.
 * @throws Error naming the variable for a bad setting, an unreadable key, or a missing key when required
 */
export async function startAnchorPublisher(o: StartAnchorsOptions): Promise<AnchorPublisherHandle> {
  const env = o.env ?? process.env;
  const config = anchorConfigFromEnv(env);
  if (config.privateKeyFile === null) {
    const message = 'anchoring is OFF: ANCHOR_PRIVATE_KEY_FILE is not set (an Ed25519 private key, PEM PKCS#8; LEDGER_ENV=development generates one)';
    if (config.required) throw new Error(`${message}; ANCHOR_REQUIRED=true refuses to run without it`);
    o.logger.error({ variable: 'ANCHOR_PRIVATE_KEY_FILE' }, message);
    return { publisher: null, stop: async () => undefined };
  }
  const signingKey = config.generateKey ? loadOrCreateDevelopmentKey(config.privateKeyFile) : readSigningKey(config.privateKeyFile);
  if (signingKey.generated) {
    o.logger.warn({ file: signingKey.file, publicKey: `${DEFAULT_ANCHOR_DIR}/${PUBLIC_KEY_FILE_NAME}`, keyId: signingKey.keyId }, 'development mode: generated an anchor signing key');
  }
  const brokers = o.brokers ?? parseBrokers(env.KAFKA_BROKERS);
  const publisher = new AnchorPublisher({
    databaseUrl: o.databaseUrl ?? env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    kafka: kafkaClient(brokers, 'ledger-anchors', o.logger),
    topic: config.topic,
    anchorFile: config.anchorFile,
    signingKey,
    intervalMs: config.intervalMs,
    ledgerId: config.ledgerId,
    logger: o.logger,
  });
  publisher.start();
  return { publisher, stop: () => publisher.stop() };
}
