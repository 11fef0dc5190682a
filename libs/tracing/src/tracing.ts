import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * OpenTelemetry tracing of a card's path (docs/architecture.md §11): the API's request span, the
 * append span, the relay's publish span and the projector's apply span share one trace, carried as a
 * W3C trace context (`traceparent`, `tracestate`) from the HTTP request through the outbox row and
 * the Kafka record's headers. Off unless `OTEL_EXPORTER_OTLP_ENDPOINT` is set: then no provider is
 * registered, `@opentelemetry/api` stays a no-op, nothing is recorded and every helper here returns
 * after one check.
 */

/** The W3C trace context of a span as carried between processes: header values, `tracestate` only when present. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** What {@link initTracing} reads: the `WithTracing` part of a process's configuration. */
export interface TracingSettings {
  /** Base URL of the OTLP/HTTP collector; spans go to `<url>/v1/traces`. Unset: tracing off. */
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string;
}

/** The service names of the three traced processes (`service.name` of their spans). */
export type TracedService = 'ledger-api' | 'ledger-relay' | 'ledger-projector';

const TRACER_NAME = '@ledger/tracing';
/** Pause of the batch span processor between two exports, in ms (spans reach the collector within about this). */
const EXPORT_DELAY_MS = 1000;

let provider: NodeTracerProvider | null = null;

/**
 * Turns tracing on for this process when `settings.OTEL_EXPORTER_OTLP_ENDPOINT` is set
 * (docs/architecture.md §11): registers a Node tracer provider (async-local context), the W3C
 * trace-context propagator and an OTLP/HTTP JSON exporter with `service.name` = `service`; spans are
 * flushed on `beforeExit` and by {@link shutdownTracing}. Unset: does nothing.
 * Call it once, first thing in `main`, before any span is started.
 * @returns whether tracing is on
 */
export function initTracing(service: TracedService, settings: TracingSettings): boolean {
  const endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined || endpoint === '' || provider !== null) return provider !== null;
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: EXPORT_DELAY_MS })],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  process.once('beforeExit', () => void shutdownTracing());
  return true;
}

/** Whether {@link initTracing} turned tracing on in this process. */
export function tracingEnabled(): boolean {
  return provider !== null;
}

/** Exports the spans still buffered and stops the provider (no-op when tracing is off). Never throws. */
export async function shutdownTracing(): Promise<void> {
  const p = provider;
  if (p === null) return;
  try {
    await p.shutdown();
  } catch {
    // the collector is unreachable: the spans are lost, the process is not
  }
}

/**
 * Runs `fn` inside a new span `name` (a child of the active span), ended when `fn` settles; a
 * rejection is recorded on the span (status ERROR) and re-thrown unchanged. Tracing off: just `fn()`.
 */
export async function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (provider === null) return fn();
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      return await fn();
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * The W3C trace context of the active span (`traceparent`, and `tracestate` when it has one), to
 * store with what continues the trace elsewhere; null when tracing is off or no span is active.
 */
export function activeTraceContext(): TraceCarrier | null {
  if (provider === null) return null;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : null;
}

/**
 * Starts (does not activate) a span `name` of `kind` whose parent is the trace context in `carrier`
 * (header values; an invalid or missing `traceparent` makes it a root span); end it yourself.
 * @returns the span, or null when tracing is off
 */
export function startSpanFrom(name: string, kind: SpanKind, carrier: TraceCarrier | null, attributes: Attributes = {}): Span | null {
  if (provider === null) return null;
  const parent = carrier?.traceparent ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
  return trace.getTracer(TRACER_NAME).startSpan(name, { kind, attributes }, parent);
}

/** The W3C trace context naming `span` as the parent, as header values (`tracestate` only when non-empty). */
export function traceContextOf(span: Span): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier;
}

/** Marks `span` failed with `err` (status ERROR, the exception recorded). */
export function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** The minimum of an Express request and response the middleware reads. */
interface HttpRequest {
  readonly method: string;
  readonly originalUrl?: string;
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly route?: { readonly path?: string };
  readonly baseUrl?: string;
}
interface HttpResponse {
  readonly statusCode: number;
  once(event: 'finish' | 'close', listener: () => void): unknown;
}

/**
 * Express middleware of the API (docs/architecture.md §11): one SERVER span per request, named
 * `<METHOD> <route>` (the matched route pattern, or the path), a child of the request's
 * `traceparent`/`tracestate` when it carries a valid one, active while the request is handled (so
 * the append span is its child), ended when the response is finished (status ≥ 500: ERROR).
 * Tracing off: calls `next()` at once.
 */
export function httpTracingMiddleware(): (req: HttpRequest, res: HttpResponse, next: () => void) => void {
  return (req, res, next) => {
    if (provider === null) return next();
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(',') : v;
    };
    const carrier: TraceCarrier = { traceparent: header('traceparent'), tracestate: header('tracestate') };
    const path = (req.originalUrl ?? req.url).split('?')[0];
    const span = startSpanFrom(`${req.method} ${path}`, SpanKind.SERVER, carrier, { 'http.request.method': req.method, 'url.path': path })!;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = req.route?.path ? `${req.baseUrl ?? ''}${req.route.path}` : undefined;
      if (route) {
        span.updateName(`${req.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(trace.setSpan(context.active(), span), next);
  };
}

/** The span kinds of `@opentelemetry/api` (SERVER, PRODUCER, CONSUMER …), re-exported for {@link startSpanFrom}'s callers. */
export { SpanKind };
