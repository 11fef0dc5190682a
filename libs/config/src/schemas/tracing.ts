import { UrlVar } from '../env-var';
import type { EnvClass } from './common';

/**
 * `OTEL_EXPORTER_OTLP_ENDPOINT`: OpenTelemetry tracing of the API, the relay and the projector
 * (docs/architecture.md §11). Off unless set.
 */
export function WithTracing<B extends EnvClass>(Base: B) {
  class TracingEnv extends Base {
    /**
     * Base URL of an OTLP/HTTP collector (e.g. `http://127.0.0.1:4318`): when set, the process traces
     * (W3C `traceparent` from the HTTP request through the outbox row and the Kafka record headers to
     * the projector) and exports its spans as OTLP/HTTP JSON to `<url>/v1/traces`. Unset: tracing is
     * off, nothing is recorded or exported (docs/architecture.md §11).
     */
    @UrlVar(['http:', 'https:'], { optional: true })
    OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  }
  return TracingEnv;
}
