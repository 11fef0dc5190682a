/**
 * Tracing of the API, the relay and the projector with OpenTelemetry (docs/architecture.md §11):
 * set-up (`initTracing`, off unless `OTEL_EXPORTER_OTLP_ENDPOINT` is set) and the few helpers the
 * event store, the relay and the projector use to carry the W3C trace context along a card's path.
 */
export * from './tracing';
