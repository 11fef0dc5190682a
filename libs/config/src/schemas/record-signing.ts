import { SecretVar, TextVar } from '../env-var';
import { DEFAULT_EVENTS_TOPIC, TOPIC_NAME, type EnvClass } from './common';

/**
 * The authentication of the ledger's Kafka records (docs/architecture.md §10, docs/guarantees.md §8):
 * the relay signs each record it publishes (header `ledger-sig`, HMAC-SHA256 over its key and value)
 * and the projector applies only records whose signature verifies with the same key.
 */

/** Shortest `RECORD_SIGNING_KEY` accepted, in bytes (the HMAC-SHA256 output size). */
export const MIN_RECORD_SIGNING_KEY_BYTES = 32;

/** The ledger topic's dead-letter topic: `baccarat.ledger.events.v1` → `baccarat.ledger.events.dlq.v1`. */
export const DEFAULT_EVENTS_DLQ_TOPIC = 'baccarat.ledger.events.dlq.v1';

/**
 * The dead-letter topic of a ledger topic: `.dlq` inserted before its `.vN` suffix
 * (`baccarat.ledger.events.v1` → `baccarat.ledger.events.dlq.v1`), else appended (`t` → `t.dlq`).
 */
export function deadLetterTopicOf(topic: string): string {
  return /\.v\d+$/.test(topic) ? topic.replace(/\.(v\d+)$/, '.dlq.$1') : `${topic}.dlq`;
}

/** `RECORD_SIGNING_KEY`: the relay's and the projector's shared record key. */
export function WithRecordSigningKey<B extends EnvClass>(Base: B) {
  class RecordSigningKeyEnv extends Base {
    /**
     * HMAC-SHA256 key the relay signs every ledger record with (header `ledger-sig`) and the
     * projector verifies it with, at least 32 bytes (`openssl rand -base64 48`); the same value for
     * both. Required outside development mode, and never the development key there: the relay and
     * the projector refuse to start. In development mode, when unset, the public development key is
     * used and a warning logged.
     */
    @SecretVar(MIN_RECORD_SIGNING_KEY_BYTES, `a secret of at least ${MIN_RECORD_SIGNING_KEY_BYTES} bytes`, { optional: true })
    RECORD_SIGNING_KEY?: string;
  }
  return RecordSigningKeyEnv;
}

/** `LEDGER_EVENTS_DLQ_TOPIC` (with `LEDGER_EVENTS_TOPIC`, which it defaults from). */
export function WithDeadLetterTopic<B extends EnvClass<{ LEDGER_EVENTS_TOPIC: string }>>(Base: B) {
  class DeadLetterTopicEnv extends Base {
    /**
     * Dead-letter topic of the projector: a copy of every ledger record it quarantined (bad
     * signature, bad hash, broken chain, unreadable), with the reason in its headers. Created by the
     * projector when missing.
     * @default `LEDGER_EVENTS_TOPIC` with `.dlq` before its `.vN` suffix (`baccarat.ledger.events.dlq.v1`)
     */
    @TextVar(TOPIC_NAME, 'a Kafka topic name ([A-Za-z0-9._-], 1..249)', {
      derived: {
        describe: '`LEDGER_EVENTS_TOPIC` with `.dlq` before its `.vN` suffix (`baccarat.ledger.events.dlq.v1`)',
        compute: (config) => deadLetterTopicOf(String(config.LEDGER_EVENTS_TOPIC ?? DEFAULT_EVENTS_TOPIC)),
      },
    })
    LEDGER_EVENTS_DLQ_TOPIC!: string;
  }
  return DeadLetterTopicEnv;
}
