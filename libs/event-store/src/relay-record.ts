import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { OutgoingMessage } from '@ledger/kafka';
import { canonicalJson } from './hash';
import { DEV_RECORD_SIGNING_KEY, RECORD_SIGNATURE_HEADER } from './record-signature';
import type { EventRow } from './rows';

/**
 * The Kafka record of a ledger event (docs/architecture.md §6, docs/guarantees.md §8): what the outbox
 * relay and `npm run republish` send to `baccarat.ledger.events.v1`, byte for byte the same for the
 * same event (a re-send is a byte-identical duplicate).
 *
 * - key: the table id (UTF-8), so a table's events keep their order on one partition;
 * - value: the stored envelope (`rowToEnvelope`, not upcast) as canonical JSON (RFC 8785, the same
 *   bytes `canonicalJson(rowToEnvelope(row))` gives), UTF-8 — built once, as bytes, from the row;
 * - headers, CloudEvents 1.0 Kafka protocol binding, binary content mode: the four attributes the
 *   binding requires, `ce_specversion` = `1.0`, `ce_id` = eventId (the de-duplication key),
 *   `ce_source` = `/tables/<tableId>`, `ce_type` = `baccarat.ledger.<Type>.v<schemaVersion>`;
 *   `content-type` = `application/json` (the binding's mapping of `datacontenttype`); and
 *   `ledger-sig`, the relay's signature over key and value (`record-signature.ts`). Nothing else:
 *   the optional attributes would only repeat the value (`time` = occurredAt, `subject` = streamId),
 *   and so would the headers of older records (`schema_version`, in `ce_type` and the value;
 *   `global_position`, in the value). The value is the only authority; the projector checks the
 *   signature, then reads everything from the value.
 *
 * Records of older relays (those 4 headers more) stay readable: the projector ignores headers it
 * does not need, and their signature covers key and value only, exactly as now.
 *
 * With tracing on (docs/architecture.md §11) the relay adds `traceparent` and `tracestate` (W3C trace
 * context) to the record of an outbox row that carries one (`outbox-relay.ts`); they are not built
 * here, not signed, and the projector reads them only to continue the trace.
 */

/** Header names of a ledger record, in the order they are written. */
export const LEDGER_RECORD_HEADERS = ['ce_specversion', 'ce_id', 'ce_source', 'ce_type', 'content-type', RECORD_SIGNATURE_HEADER] as const;

const SPECVERSION = Buffer.from('1.0');
const CONTENT_TYPE = Buffer.from('application/json');

/**
 * Builds signed ledger records with one signing key; caches the per-key (HMAC key object) and the
 * per-table (key bytes, `ce_source`) parts, so a record costs one JSON serialisation of the event's
 * data, one UTF-8 encoding and one HMAC.
 */
export class LedgerRecordBuilder {
  private readonly secret: KeyObject;
  private readonly tables = new Map<string, { key: Buffer; source: Buffer }>();

  /** @param signingKey the relay's `RECORD_SIGNING_KEY` (its UTF-8 bytes are the HMAC key) @default {@link DEV_RECORD_SIGNING_KEY} */
  constructor(signingKey: string = DEV_RECORD_SIGNING_KEY) {
    this.secret = createSecretKey(Buffer.from(signingKey, 'utf8'));
  }

  /**
   * The record of an events row (see the file comment for the layout). The key and the constant
   * header values are Buffers shared by every record of the builder: read them, never write to them.
   * @param row an `events` row read with `EVENT_COLUMNS`; `key` the outbox row's key (the table id)
   * @throws Error when the row's data has no JSON form (never for a stored row: the store wrote it as JSON)
   */
  build(row: EventRow & { readonly key: string }): OutgoingMessage {
    const table = this.table(row.key, row.table_id);
    const value = Buffer.from(envelopeJson(row), 'utf8');
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(table.key.length, 0);
    const sig = createHmac('sha256', this.secret).update(length).update(table.key).update(value).digest('hex');
    return {
      key: table.key,
      value,
      headers: {
        ce_specversion: SPECVERSION,
        ce_id: row.event_id,
        ce_source: table.source,
        ce_type: `baccarat.ledger.${row.type}.v${row.schema_version}`,
        'content-type': CONTENT_TYPE,
        [RECORD_SIGNATURE_HEADER]: sig,
      },
    };
  }

  private table(key: string, tableId: string): { key: Buffer; source: Buffer } {
    const cacheKey = key === tableId ? key : `${key}\u0000${tableId}`;
    let t = this.tables.get(cacheKey);
    if (t === undefined) {
      if (this.tables.size >= 10_000) this.tables.clear(); // bounded: tables are few, keys are table ids
      t = { key: Buffer.from(key, 'utf8'), source: Buffer.from(`/tables/${tableId}`, 'utf8') };
      this.tables.set(cacheKey, t);
    }
    return t;
  }
}

/**
 * The canonical JSON (RFC 8785) of a row's stored envelope, i.e. exactly
 * `canonicalJson(rowToEnvelope(row))`, written field by field in JCS key order (keys sorted by UTF-16
 * code units; strings and integers formatted as ECMAScript's JSON does, which is what JCS
 * prescribes), with only the event's `data` going through the canonicaliser.
 */
export function envelopeJson(row: EventRow): string {
  const s = JSON.stringify;
  return (
    `{"actor":{"id":${s(row.actor_id)},"role":${s(row.actor_role)}}` +
    `,"causationId":${s(row.causation_id)}` +
    `,"correlationId":${s(row.correlation_id)}` +
    `,"data":${canonicalJson(row.data)}` +
    `,"eventId":${s(row.event_id)}` +
    `,"globalPosition":${s(row.global_position)}` +
    `,"hash":${s(row.hash)}` +
    `,"occurredAt":"${row.occurred_at.toISOString()}"` +
    `,"prevHash":${s(row.prev_hash)}` +
    `,"recordedAt":"${row.recorded_at.toISOString()}"` +
    `,"schemaVersion":${integer(row.schema_version)}` +
    `,"streamId":${s(row.stream_id)}` +
    `,"streamVersion":${integer(row.stream_version)}` +
    `,"tableId":${s(row.table_id)}` +
    `,"type":${s(row.type)}}`
  );
}

function integer(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${String(n)}`);
  return String(n);
}

let defaultBuilder: LedgerRecordBuilder | null = null;
let defaultBuilderKey: string | null = null;

/**
 * The Kafka record of an outbox row, signed with `signingKey` (see the file comment for the layout).
 * A convenience over {@link LedgerRecordBuilder} for one-off records (tests, tools); the relay keeps
 * its own builder.
 * @param signingKey the relay's `RECORD_SIGNING_KEY` @default {@link DEV_RECORD_SIGNING_KEY}
 */
export function toKafkaMessage(row: EventRow & { readonly key: string }, signingKey: string = DEV_RECORD_SIGNING_KEY): OutgoingMessage {
  if (defaultBuilder === null || defaultBuilderKey !== signingKey) {
    defaultBuilder = new LedgerRecordBuilder(signingKey);
    defaultBuilderKey = signingKey;
  }
  return defaultBuilder.build(row);
}
