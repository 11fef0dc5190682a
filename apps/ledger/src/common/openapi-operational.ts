import type { OpenAPIObject, OperationObject } from '@nestjs/swagger';

/** The schema of `GET /health`'s answer. */
export const HEALTH_SCHEMA = 'HealthResponse';

/** The schema of `GET /health/live`'s and `GET /health/ready`'s answers (`@nestjs/terminus`'s report). */
export const PROBE_SCHEMA = 'ProbeResponse';

/**
 * `doc` with the answers of the two public operational routes documented, where their controllers
 * do not document them themselves (docs/architecture.md §8, docs/guarantees.md §6):
 * - `GET /health` 200: `HealthResponse` `{ status: 'ok' | 'degraded', projections: { status, halted } }`;
 * - `GET /health/live` 200 and `GET /health/ready` 200 and 503: `ProbeResponse`, terminus's report
 *   `{ status: 'ok' | 'degraded' | 'error' | 'shutting_down', info, error, details }`, each check
 *   `{ status: 'up' | 'down', degraded?, ...details }` (the readiness's 503 is this report, not an `ErrorResponse`);
 * - `GET /metrics` 200: the Prometheus text exposition format (`text/plain; version=0.0.4`), not JSON.
 * The document is changed in place and returned.
 */
export function withOperationalAnswers(doc: OpenAPIObject): OpenAPIObject {
  withHealthAnswer(doc);
  withProbeAnswers(doc);
  withMetricsAnswer(doc);
  return doc;
}

/** The 200 answer of an operation, if documented. */
const ok = (op: OperationObject | undefined) => op?.responses?.['200'] as { content?: Record<string, { schema?: unknown }> } | undefined;

/** `GET /health` 200: `HealthResponse`, when its controller does not document it (see {@link withOperationalAnswers}). */
function withHealthAnswer(doc: OpenAPIObject): void {
  const health = doc.paths['/health']?.get as OperationObject | undefined;
  if (health && !Object.values(ok(health)?.content ?? {}).some((c) => c.schema)) {
    doc.components!.schemas![HEALTH_SCHEMA] = {
      type: 'object',
      required: ['status', 'projections'],
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded'], description: '`degraded` while a projection incident is open or the read model cannot be read' },
        projections: {
          type: 'object',
          required: ['status', 'halted'],
          properties: {
            status: { type: 'string', enum: ['running', 'halted', 'unknown'] },
            halted: {
              type: 'array',
              items: {
                type: 'object',
                required: ['consumerGroup', 'topic', 'partition', 'code', 'haltedAt'],
                properties: {
                  consumerGroup: { type: 'string' },
                  topic: { type: 'string' },
                  partition: { type: 'integer' },
                  code: { type: 'string', description: 'the error code the projection halted on' },
                  haltedAt: { type: 'string', format: 'date-time' },
                },
              },
            },
          },
        },
      },
      example: { status: 'ok', projections: { status: 'running', halted: [] } },
    };
    health.responses = { ...health.responses, 200: { description: 'the API answers; `status` says whether the read side is whole', content: { 'application/json': { schema: { $ref: `#/components/schemas/${HEALTH_SCHEMA}` } } } } };
  }
}

/** `GET /health/live` 200 and `GET /health/ready` 200 and 503: `ProbeResponse`, when not documented (see {@link withOperationalAnswers}). */
function withProbeAnswers(doc: OpenAPIObject): void {
  const live = doc.paths['/health/live']?.get as OperationObject | undefined;
  const ready = doc.paths['/health/ready']?.get as OperationObject | undefined;
  if (live && ready && !Object.values(ok(ready)?.content ?? {}).some((c) => c.schema)) {
    const check = {
      type: 'object',
      required: ['status'],
      properties: {
        status: { type: 'string', enum: ['up', 'down'] },
        degraded: { type: 'boolean', description: '`kafka` unreachable or `projections` halted/unreadable: up (200) but degraded' },
        message: { type: 'string' },
      },
      additionalProperties: true,
    };
    const checks = { type: 'object', additionalProperties: check };
    doc.components!.schemas![PROBE_SCHEMA] = {
      type: 'object',
      required: ['status', 'info', 'error', 'details'],
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded', 'error', 'shutting_down'], description: '`degraded`: every check up, some with `degraded: true`; `error`: a check down (503)' },
        info: { ...checks, description: 'the checks up' },
        error: { ...checks, description: 'the checks down' },
        details: { ...checks, description: 'every check' },
      },
      example: {
        status: 'degraded',
        info: { postgres: { status: 'up', latencyMs: 1 }, kafka: { status: 'up', degraded: true, reachable: false, message: 'Connection error' } },
        error: {},
        details: { postgres: { status: 'up', latencyMs: 1 }, kafka: { status: 'up', degraded: true, reachable: false, message: 'Connection error' } },
      },
    };
    const probe = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${PROBE_SCHEMA}` } } } });
    live.responses = { ...live.responses, 200: probe('the process answers (liveness)') };
    ready.responses = { ...ready.responses, 200: probe('ready (`status` `ok` or `degraded`)'), 503: probe('not ready: `postgres` or `migrations` down (or shutting down); the report, not an ErrorResponse') };
  }
}

/** `GET /metrics` 200: the Prometheus text exposition format, when not documented (see {@link withOperationalAnswers}). */
function withMetricsAnswer(doc: OpenAPIObject): void {
  const metrics = doc.paths['/metrics']?.get as OperationObject | undefined;
  if (metrics && !ok(metrics)?.content?.['text/plain']) {
    metrics.responses = {
      ...metrics.responses,
      200: {
        description: 'the metrics in the Prometheus text exposition format 0.0.4',
        content: {
          'text/plain': {
            schema: { type: 'string' },
            example: '# HELP ledger_refusals_total refused requests\n# TYPE ledger_refusals_total counter\nledger_refusals_total{reason="AUTH.UNAUTHENTICATED",authenticated="false"} 3\n',
          },
        },
      },
    };
  }
}
