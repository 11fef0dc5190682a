import { createHash } from 'node:crypto';
import type { KafkaClient } from '@ledger/kafka';
import { canonicalJson, computeEventHash } from '@ledger/event-store';
import type { EventEnvelope } from '@ledger/events';
import { TopicMissingError, scanTopic } from './kafka-io';
import type { DivergenceList } from './report';

/**
 * The ledger topic as a copy of PostgreSQL (docs/anchors.md "Against the Kafka copy"): every record
 * read from the first retained offset to the end, kept as digests (not the values) by event id.
 */

/** What is kept of one record. */
export interface KafkaCopy {
  readonly partition: number;
  readonly offset: string;
  /** SHA-256 hex of the record's value bytes. */
  readonly digest: string;
  /** SHA-256 hex of the canonical JSON of the envelope's `data`. */
  readonly dataDigest: string;
  readonly hash: string;
  readonly prevHash: string;
  readonly streamId: string;
  readonly streamVersion: number;
  readonly globalPosition: string;
  /** Whether the record's `hash` is what its own fields give. */
  readonly selfConsistent: boolean;
}

/** The topic read: copies by event id, and how many records were read. */
export interface KafkaCopyIndex {
  readonly byEventId: Map<string, KafkaCopy>;
  readonly records: number;
}

/** SHA-256 hex of a string's UTF-8 bytes or of bytes. */
export function sha256Hex(v: string | Uint8Array): string {
  return createHash('sha256').update(v).digest('hex');
}

/**
 * Reads the ledger topic whole. A record that is not an event envelope is reported (`KAFKA_EXTRA`:
 * something put on the topic that the ledger did not write); two different records for one event id
 * are reported (`KAFKA_DUPLICATE_CONFLICT`); identical duplicates (a relay retry) are not.
 */
export async function readKafkaCopy(kafka: KafkaClient, topic: string, out: DivergenceList): Promise<KafkaCopyIndex> {
  const byEventId = new Map<string, KafkaCopy>();
  // a missing topic is an empty copy: every anchored or old event is then reported missing from it
  const scan = scanTopic(kafka, topic, (r) => {
    const where = `${topic} partition ${r.partition} offset ${r.offset}`;
    let e: EventEnvelope<string, unknown>;
    try {
      e = JSON.parse(r.value?.toString('utf8') ?? 'null');
      if (typeof e?.eventId !== 'string' || typeof e.streamId !== 'string' || typeof e.hash !== 'string') throw new Error('no eventId, streamId or hash');
    } catch (err) {
      out.add({ source: 'kafka', kind: 'KAFKA_EXTRA', reason: `${where} is not a ledger event envelope (${(err as Error).message})` });
      return;
    }
    let selfConsistent = false;
    try {
      selfConsistent = computeEventHash(e) === e.hash;
    } catch {
      selfConsistent = false;
    }
    let dataDigest = '';
    try {
      dataDigest = sha256Hex(canonicalJson(e.data));
    } catch {
      dataDigest = 'unhashable';
    }
    const copy: KafkaCopy = {
      partition: r.partition,
      offset: r.offset,
      digest: sha256Hex(r.value!),
      dataDigest,
      hash: e.hash,
      prevHash: String(e.prevHash),
      streamId: e.streamId,
      streamVersion: Number(e.streamVersion),
      globalPosition: String(e.globalPosition),
      selfConsistent,
    };
    const seen = byEventId.get(e.eventId);
    if (!seen) {
      byEventId.set(e.eventId, copy);
    } else if (seen.digest !== copy.digest) {
      out.add({
        source: 'kafka',
        kind: 'KAFKA_DUPLICATE_CONFLICT',
        streamId: e.streamId,
        version: copy.streamVersion,
        eventId: e.eventId,
        globalPosition: copy.globalPosition,
        reason: `${where} and partition ${seen.partition} offset ${seen.offset} are two different records of event ${e.eventId}`,
      });
    }
  });
  const records = await scan.catch((err) => {
    if (err instanceof TopicMissingError) return 0;
    throw err;
  });
  return { byEventId, records };
}

/** What differs between PostgreSQL's envelope and its Kafka copy, in words. */
export function describeKafkaDifference(pg: EventEnvelope<string, unknown>, k: KafkaCopy): string {
  const fields: string[] = [];
  if (sha256Hex(canonicalJson(pg.data)) !== k.dataDigest) fields.push('data');
  if (pg.hash !== k.hash) fields.push(`hash (PostgreSQL ${pg.hash}, Kafka ${k.hash})`);
  if (pg.prevHash !== k.prevHash) fields.push('prevHash');
  if (pg.globalPosition !== k.globalPosition) fields.push(`globalPosition (PostgreSQL ${pg.globalPosition}, Kafka ${k.globalPosition})`);
  if (fields.length === 0) fields.push('envelope fields (actor, times, correlation, type)');
  const kafkaSide = k.selfConsistent ? 'the Kafka copy is consistent with its own hash' : 'the Kafka copy does not match its own hash either';
  return `PostgreSQL's event differs from its Kafka copy (partition ${k.partition} offset ${k.offset}) in ${fields.join(', ')}; ${kafkaSide}`;
}
