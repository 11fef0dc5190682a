import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fromFile, Parser, type AsyncAPIDocumentInterface } from '@asyncapi/parser';
import type { ValidateFunction } from 'ajv';
import { explain, newAjv, stripParserKeys } from './asyncapi-support';
import type { OutgoingMessage } from '@ledger/kafka';
import { ANCHOR_RECORD_KEY, ANCHOR_RECORD_TYPE, anchorHash, anchorRecord, buildCheckpoint, evidenceStreamId, GENESIS_ANCHOR_HASH, parseAnchor, publicKeyId, signCheckpoint, type SignedAnchor } from '@ledger/anchors';
import { checkRecord, deadLetterMessage, QUARANTINE_MAX_VALUE_BYTES, QUARANTINE_REASONS, quarantineRow, type EventRecord } from '@ledger/projections';
import { DEV_RECORD_SIGNING_KEY, recordSignature } from '@ledger/event-store';
import { DEFAULT_EVENTS_TOPIC } from '@ledger/config';
import { toKafkaMessage } from '../../libs/event-store/src/relay-record';
import { envelopeToRow } from '../../libs/event-store/src/rows';
import { syntheticLedger } from '../../libs/projections/src/testing/synthetic-shoes';

/**
 * The records of the anchors topic and of the ledger topic's dead-letter topic, built by the
 * product's own code (the anchor publisher's `anchorRecord` of checkpoints built and signed by
 * `libs/anchors`; the projector's `deadLetterMessage` of quarantine rows of records its
 * `checkRecord` refused), validate against the payload and header schemas that
 * `docs/asyncapi/asyncapi.yaml` documents for those channels (docs/guarantees.md §10), and the
 * schemas refuse what the product never writes.
 */
jest.setTimeout(60_000);

const DOCS = resolve(__dirname, '../../docs/asyncapi');

/** Header values as a consumer reads them: text. */
function headersAsRead(m: OutgoingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('utf8') : String(v)]));
}

const synthetic = syntheticLedger({ shoes: 3, seed: 11, prefix: 'arec', voidRate: 0.08, correctionRate: 0.08, exposedCardRate: 0.03, shoeVoidRate: 0.34, maxRounds: 20 }).events;

describe('records of the anchors and dead-letter topics validate against the documented schemas', () => {
  let doc: AsyncAPIDocumentInterface;
  const validators = (channel: string) => {
    const m = doc.channels().get(channel)!.messages().all()[0];
    const payload = newAjv().compile(stripParserKeys((m.payload()!.json() as { schema: object }).schema));
    const headers = newAjv().compile(stripParserKeys(m.headers()!.json()));
    return { payload, headers, message: m };
  };

  beforeAll(async () => {
    const out = await fromFile(new Parser(), join(DOCS, 'asyncapi.yaml')).parse();
    expect(out.diagnostics.filter((d) => d.severity === 0)).toEqual([]);
    doc = out.document!;
  });

  /** A chain of checkpoints over the synthetic ledger's stream heads, signed as the publisher signs them. */
  function signedChain(): SignedAnchor[] {
    const { privateKey } = generateKeyPairSync('ed25519');
    const keyId = publicKeyId(privateKey);
    const chain: SignedAnchor[] = [];
    const third = Math.ceil(synthetic.length / 3);
    for (let i = 0; i < 3; i++) {
      const heads = new Map<string, { streamId: string; version: number; headHash: string }>();
      const slice = synthetic.slice(i * third, (i + 1) * third);
      for (const e of slice) heads.set(e.streamId, { streamId: e.streamId, version: e.streamVersion, headHash: e.hash });
      if (i === 1) heads.set(evidenceStreamId('query_log'), { streamId: evidenceStreamId('query_log'), version: 7, headHash: 'ab'.repeat(32) });
      const checkpoint = buildCheckpoint({
        ledgerId: 'ledger@16384',
        seq: i + 1,
        createdAt: new Date(Date.UTC(2025, 2, 1, 6, i)),
        globalPosition: slice.at(-1)!.globalPosition,
        streams: [...heads.values()],
        previousAnchorHash: i === 0 ? GENESIS_ANCHOR_HASH : anchorHash(chain[i - 1].checkpoint),
        keyId,
      });
      chain.push(signCheckpoint(checkpoint, privateKey));
    }
    return chain;
  }

  it('anchors: every record the publisher sends for a signed chain of checkpoints', () => {
    const { payload, headers, message } = validators('anchors');
    const chain = signedChain();
    for (const a of chain) {
      const record = anchorRecord(a);
      expect(record.key).toBe(ANCHOR_RECORD_KEY);
      const value = JSON.parse(String(record.value));
      expect('anchor' in parseAnchor(String(record.value))).toBe(true);
      if (!payload(value)) throw new Error(explain(payload, `anchor ${a.checkpoint.seq}`));
      const h = headersAsRead(record);
      if (!headers(h)) throw new Error(explain(headers, `anchor headers ${JSON.stringify(h)}`));
      expect(h.ce_type).toBe(ANCHOR_RECORD_TYPE);
      expect(h.ce_id).toBe(`ledger@16384/${a.checkpoint.seq}`);
      const kafka = message.bindings().get('kafka')!.json();
      expect(kafka.key.const).toBe(record.key);
    }
    // and what the product never writes is refused
    const good = JSON.parse(String(anchorRecord(chain[0]).value));
    const bad = [
      { ...good, extra: 1 },
      { ...good, signature: 'x' },
      { ...good, checkpoint: { ...good.checkpoint, format: 'baccarat-ledger-anchor/2' } },
      { ...good, checkpoint: { ...good.checkpoint, seq: 0 } },
      { ...good, checkpoint: { ...good.checkpoint, streams: [{ streamId: 's', version: 1 }] } },
    ];
    for (const b of bad) expect(payload(b)).toBe(false);
    expect(headers({ ...headersAsRead(anchorRecord(chain[0])), extra: 'y' })).toBe(false);
  });

  /** Records as the relay writes them, each spoiled in one way the projector refuses. */
  function refusedRecords(): EventRecord[] {
    const at = (offset: number, m: OutgoingMessage): EventRecord => ({
      topic: DEFAULT_EVENTS_TOPIC,
      partition: offset % 6,
      offset: String(1000 + offset),
      key: m.key ?? null,
      value: m.value as string,
      headers: m.headers as EventRecord['headers'],
    });
    const genuine = synthetic.slice(0, 40).map((e) => toKafkaMessage(envelopeToRow(e)));
    const forged = (m: OutgoingMessage): OutgoingMessage => ({ ...m, value: String(m.value).replace('"tableId":"', '"tableId":"X') });
    const unsigned = (m: OutgoingMessage): OutgoingMessage => ({ ...m, headers: Object.fromEntries(Object.entries(m.headers!).filter(([k]) => k !== 'ledger-sig')) });
    const huge = (m: OutgoingMessage): OutgoingMessage => ({ ...m, value: `${String(m.value)}${' '.repeat(QUARANTINE_MAX_VALUE_BYTES)}` });
    const junk = (m: OutgoingMessage): OutgoingMessage => ({ key: null, value: Buffer.from([0xff, 0x00, 0xfe]), headers: { ...m.headers, odd: Buffer.from([0xff, 0x00]) } });
    // signed by the relay's key but not what the relay writes: a malformed hash, a changed type (its hash no longer matches)
    const resigned = (m: OutgoingMessage, value: string): OutgoingMessage => ({ ...m, value, headers: { ...m.headers, 'ledger-sig': recordSignature(DEV_RECORD_SIGNING_KEY, m.key as string, value) } });
    const rehashed = (m: OutgoingMessage) => resigned(m, String(m.value).replace(/"hash":"[0-9a-f]/, '"hash":"g'));
    const retyped = (m: OutgoingMessage) => resigned(m, String(m.value).replace(/"type":"[A-Za-z]+"/, '"type":"NoSuchEvent"'));
    const spoilers = [forged, unsigned, huge, junk, rehashed, retyped];
    return genuine.map((m, i) => at(i, spoilers[i % spoilers.length](m)));
  }

  it('dead letters: the copy of every record the projector refuses', () => {
    const { payload, headers } = validators('deadLetters');
    const records = refusedRecords();
    const reasons = new Set<string>();
    let truncated = 0;
    for (const r of records) {
      const checked = checkRecord(r, DEV_RECORD_SIGNING_KEY);
      if (checked.ok) throw new Error(`record ${r.offset} was not refused`);
      reasons.add(checked.refusal.reason);
      const copy = deadLetterMessage(quarantineRow(r, 'ledger-projector', checked.refusal, new Date(Date.UTC(2025, 2, 1, 7))));
      const h = headersAsRead(copy);
      if (!headers(h)) throw new Error(explain(headers, `dead-letter headers ${JSON.stringify(h)}`));
      expect(h).toMatchObject({ dlq_reason: checked.refusal.reason, dlq_source_topic: DEFAULT_EVENTS_TOPIC, dlq_source_offset: r.offset, dlq_consumer_group: 'ledger-projector' });
      if (h.dlq_truncated === 'true') truncated++;
      // the value is opaque: whatever it is (JSON or not), the documented payload schema asserts nothing
      let value: unknown = null;
      try {
        value = JSON.parse(String(copy.value));
      } catch {
        value = String(copy.value);
      }
      if (!payload(value)) throw new Error(explain(payload, `dead-letter value at ${r.offset}`));
    }
    expect([...reasons].sort()).toEqual(['HASH_MISMATCH', 'MALFORMED', 'SIGNATURE_INVALID']);
    expect(truncated).toBe(7);
    // every reason the projector can give is one the header schema names, and no other
    const documented = stripParserKeys(doc.channels().get('deadLetters')!.messages().all()[0].headers()!.json()) as { properties: { dlq_reason: { enum: string[] } } };
    expect(documented.properties.dlq_reason.enum).toEqual([...QUARANTINE_REASONS]);
    const sample = headersAsRead(deadLetterMessage(quarantineRow(records[0], 'g', { reason: 'MALFORMED', detail: 'd', authentic: false }, new Date())));
    expect(headers({ ...sample, dlq_reason: 'NOPE' })).toBe(false);
    const { dlq_source_offset: _offset, ...missing } = sample;
    expect(headers(missing)).toBe(false);
  });
});
