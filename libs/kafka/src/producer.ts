/**
 * The producing side of the Kafka port (docs/architecture.md §6).
 */

/** A header value as sent: text or bytes. */
export type OutgoingHeaderValue = string | Buffer;

/** One record to send. */
export interface OutgoingMessage {
  /** Partitioning key (the ledger uses the table id); records of one key keep their order on one partition. */
  readonly key?: string | Buffer | null;
  /** The payload; a string is sent as UTF-8 (a Buffer as is: no copy to encode it). Its `length` is what the outbox counts against its request bound. */
  readonly value: string | Buffer | null;
  /** Record headers, text or bytes (the ledger's: CloudEvents binary mode and `ledger-sig`, `libs/event-store/src/relay-record.ts`). */
  readonly headers?: Readonly<Record<string, OutgoingHeaderValue>>;
}

/**
 * An idempotent producer (docs/guarantees.md §4, §5): acks from every in-sync replica, one request in
 * flight per broker, client retries that add no duplicates, Java-compatible murmur2 partitioning of
 * the key (a key lands on the same partition for every client), no compression, and never a topic
 * created on the fly.
 * After a failed {@link send} the sequence is uncertain: drop the producer and take a fresh one.
 */
export interface KafkaProducer {
  /** Connects to the cluster. @throws the client's error when no broker answers */
  connect(): Promise<void>;
  /**
   * Sends the records to `topic` in their order, as one request, and resolves once every in-sync
   * replica has acknowledged them.
   * @param topic an existing topic
   * @throws the client's error (unknown topic, broker down after the retries, record too large)
   */
  send(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  /** Closes the connections. Safe after a failure. */
  disconnect(): Promise<void>;
}
