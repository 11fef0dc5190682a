import { failSpan, SpanKind, startSpanFrom, tracingEnabled } from '@ledger/tracing';
import type { Span } from '@opentelemetry/api';

/** The parts of a fetched record the apply spans read. */
interface TracedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly headers?: Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;
}

function headerText(r: TracedRecord, name: string): string | undefined {
  const v = r.headers?.[name];
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? undefined : first.toString();
}

/**
 * One CONSUMER span `ledger.projector.apply` per record of a projector transaction that carries a
 * `traceparent` header (docs/architecture.md §11): a child of the relay's publish span, so the trace
 * that began with the API request ends with the read model's transaction. Tracing off, or no record
 * with a trace context: an empty list, after one check.
 * @param records the transaction's records (topic, partition, offset as a decimal string, headers)
 */
export function startApplySpans(records: readonly TracedRecord[]): Span[] {
  if (!tracingEnabled()) return [];
  const spans: Span[] = [];
  for (const r of records) {
    const traceparent = headerText(r, 'traceparent');
    if (traceparent === undefined) continue;
    const tracestate = headerText(r, 'tracestate');
    const span = startSpanFrom('ledger.projector.apply', SpanKind.CONSUMER, tracestate ? { traceparent, tracestate } : { traceparent }, {
      'messaging.system': 'kafka',
      'messaging.destination.name': r.topic,
      'messaging.destination.partition.id': String(r.partition),
      'messaging.kafka.offset': r.offset,
      'messaging.message.id': headerText(r, 'ce_id') ?? '',
    });
    if (span !== null) spans.push(span);
  }
  return spans;
}

/**
 * Ends the spans of {@link startApplySpans}: with `outcome` as the attribute `ledger.projector.outcome`
 * (`applied`: the transaction committed; `retried`: it is fetched again), or failed with `err` (the
 * partition halts or the consumer fails).
 */
export function endApplySpans(spans: readonly Span[], outcome: 'applied' | 'retried', err?: unknown): void {
  for (const s of spans) {
    if (err !== undefined) failSpan(s, err);
    else s.setAttribute('ledger.projector.outcome', outcome);
    s.end();
  }
}
