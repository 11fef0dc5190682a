import type { LedgerLogger } from '@ledger/event-store';
import { AnchorPublisher } from './anchor-publisher';
import { DEFAULT_ANCHOR_DIR, type AnchorPublisherSettings } from './config';
import { kafkaClient } from './kafka-io';
import { loadOrCreateDevelopmentKey, PUBLIC_KEY_FILE_NAME, readSigningKey } from './keys';

/** What {@link startAnchorPublisher} returns: the publisher (null when anchoring is off) and how to stop it. */
export interface AnchorPublisherHandle {
  readonly publisher: AnchorPublisher | null;
  /** Stops the loop (see {@link AnchorPublisher.stop}); a no-op when anchoring is off. Never throws. */
  stop(): Promise<void>;
}

/**
 * Options of {@link startAnchorPublisher}: the publisher's settings (from the relay's validated
 * configuration, `RelayEnv`, through `anchorPublisherSettings`) and its connections.
 */
export interface StartAnchorsOptions extends AnchorPublisherSettings {
  readonly logger: LedgerLogger;
  /** PostgreSQL, as the relay's role (`RELAY_DATABASE_URL`): reads events and outbox. */
  readonly databaseUrl: string;
  /** Kafka bootstrap brokers (`KAFKA_BROKERS`). */
  readonly brokers: readonly string[];
  /** Lease time-to-live of the anchor publisher's leadership, in ms (`RELAY_LEASE_TTL_MS`, docs/guarantees.md §4). @default 5000 */
  readonly leaseTtlMs?: number;
}

/**
 * Starts the anchor loop of the relay process (docs/architecture.md §10): loads the signing key
 * (`generateKey`: development mode generates `.stack/anchors/anchor-private.pem` and writes
 * `anchor-public.pem` beside it), starts {@link AnchorPublisher} in the background.
 *
 * Without a key (`privateKeyFile` null: outside development mode, none set) anchoring is off: logged
 * at error level (and verify then reports the unanchored events once they are older than its grace
 * period), or, with `required` (`ANCHOR_REQUIRED=true`), refused.
 * @throws Error naming `ANCHOR_PRIVATE_KEY_FILE` for an unreadable key, or a missing key when required
 */
export async function startAnchorPublisher(o: StartAnchorsOptions): Promise<AnchorPublisherHandle> {
  if (o.privateKeyFile === null) {
    const message = 'anchoring is OFF: ANCHOR_PRIVATE_KEY_FILE is not set (an Ed25519 private key, PEM PKCS#8; LEDGER_ENV=development generates one)';
    if (o.required) throw new Error(`${message}; ANCHOR_REQUIRED=true refuses to run without it`);
    o.logger.error({ variable: 'ANCHOR_PRIVATE_KEY_FILE' }, message);
    return { publisher: null, stop: async () => undefined };
  }
  const signingKey = o.generateKey ? loadOrCreateDevelopmentKey(o.privateKeyFile) : readSigningKey(o.privateKeyFile);
  if (signingKey.generated) {
    o.logger.warn({ file: signingKey.file, publicKey: `${DEFAULT_ANCHOR_DIR}/${PUBLIC_KEY_FILE_NAME}`, keyId: signingKey.keyId }, 'development mode: generated an anchor signing key');
  }
  const publisher = new AnchorPublisher({
    databaseUrl: o.databaseUrl,
    kafka: kafkaClient(o.brokers, 'ledger-anchors', o.logger),
    topic: o.topic,
    anchorFile: o.anchorFile,
    signingKey,
    intervalMs: o.intervalMs,
    ledgerId: o.ledgerId,
    leaseTtlMs: o.leaseTtlMs,
    logger: o.logger,
  });
  publisher.start();
  return { publisher, stop: () => publisher.stop() };
}
