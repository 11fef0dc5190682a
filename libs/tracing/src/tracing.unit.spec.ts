/**
 * Tracing off and on in one process (docs/architecture.md §11): off, every helper returns after one
 * check (no context, no span); on, with a known incoming `traceparent`, the active context and the
 * spans started from a carrier continue that trace.
 */
import { context, trace, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { activeTraceContext, inSpan, initTracing, shutdownTracing, startSpanFrom, traceContextOf, tracingEnabled } from './tracing';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('libs/tracing', () => {
  afterAll(async () => {
    await shutdownTracing();
  });

  it('off (no OTEL_EXPORTER_OTLP_ENDPOINT): nothing is recorded, nothing is propagated', async () => {
    expect(initTracing('ledger-api', {})).toBe(false);
    expect(initTracing('ledger-api', { OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingEnabled()).toBe(false);
    expect(startSpanFrom('x', SpanKind.CONSUMER, { traceparent: `00-${TRACE_ID}-${PARENT}-01` })).toBeNull();
    expect(await inSpan('ledger.append', {}, async () => activeTraceContext())).toBeNull();
  });

  it('on: a span started from a carrier is its child, and the active context names the active span', async () => {
    // an endpoint nobody listens on: the exporter's failures must not surface
    expect(initTracing('ledger-relay', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/' })).toBe(true);
    expect(tracingEnabled()).toBe(true);
    const span = startSpanFrom('ledger.relay.publish', SpanKind.PRODUCER, { traceparent: `00-${TRACE_ID}-${PARENT}-01`, tracestate: 'a=b' })!;
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect((span as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId).toBe(PARENT);
    const carrier = traceContextOf(span);
    expect(carrier).toEqual({ traceparent: `00-${TRACE_ID}-${span.spanContext().spanId}-01`, tracestate: 'a=b' });
    span.end();

    const inner = await context.with(trace.setSpan(ROOT_CONTEXT, span), () => inSpan('ledger.append', {}, async () => ({ ctx: activeTraceContext(), id: trace.getActiveSpan()!.spanContext().spanId })));
    expect(inner.ctx).toEqual({ traceparent: `00-${TRACE_ID}-${inner.id}-01`, tracestate: 'a=b' });
    expect(inner.id).not.toBe(span.spanContext().spanId);
    // an invalid traceparent starts a new trace
    const root = startSpanFrom('x', SpanKind.CONSUMER, { traceparent: 'garbage' })!;
    expect(root.spanContext().traceId).not.toBe(TRACE_ID);
    root.end();
  });
});
