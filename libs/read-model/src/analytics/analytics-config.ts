import type { ProjectorEnv } from '@ledger/config';
import { ProjectionError } from '@ledger/projections';
import { AnalyticsCrashPoint, AnalyticsTopicNames, DEFAULT_ANALYTICS_TOPICS } from './analytics-publisher';

/** The analytics part of the projector's environment (read by `apps/projector/src/main.ts`). */
export interface AnalyticsConfig {
  /** `ANALYTICS_ENABLED` (`false` to turn off): the applier writes analytics records to the outbox. @default true */
  readonly enabled: boolean;
  /** `ANALYTICS_PUBLISH` (`false` to turn off): this process runs the outbox publisher. @default true */
  readonly publish: boolean;
  /**
   * `ANALYTICS_ROUND_OUTCOMES_TOPIC`, `ANALYTICS_SETTLEMENTS_TOPIC`, `ANALYTICS_ROADS_TOPIC`.
   * @default the documented names (`baccarat.analytics.*.v1`)
   */
  readonly topics: AnalyticsTopicNames;
  /** `ANALYTICS_PUBLISH_BATCH_SIZE`, 1..5000. @default 500 */
  readonly batchSize: number;
  /** `ANALYTICS_POLL_INTERVAL_MS`, 10..60000. @default 200 */
  readonly pollIntervalMs: number;
  /** `ANALYTICS_RETAIN_PUBLISHED_HOURS`: published outbox rows kept this long; 0 keeps them forever. @default 168 */
  readonly retainPublishedHours: number;
  /** `ANALYTICS_PUBLISHER_CRASH_POINT` (`before-send` | `after-send`): fault injection for tests, never in production. */
  readonly crashPoint: AnalyticsCrashPoint | null;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ProjectionError('PROJECTION.BAD_CONFIG', `${name} must be an integer ${min}..${max}, got ${JSON.stringify(raw)}`, { name });
  }
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ProjectionError('PROJECTION.BAD_CONFIG', `${name} must be true or false, got ${JSON.stringify(raw)}`, { name });
}

/**
 * Reads the analytics configuration from the environment.
 * @throws ProjectionError `PROJECTION.BAD_CONFIG`
 */
export function analyticsConfigFromEnv(env: NodeJS.ProcessEnv): AnalyticsConfig {
  const crash = env.ANALYTICS_PUBLISHER_CRASH_POINT;
  if (crash && crash !== 'before-send' && crash !== 'after-send') {
    throw new ProjectionError('PROJECTION.BAD_CONFIG', `ANALYTICS_PUBLISHER_CRASH_POINT must be before-send or after-send, got ${JSON.stringify(crash)}`);
  }
  return {
    enabled: bool(env, 'ANALYTICS_ENABLED', true),
    publish: bool(env, 'ANALYTICS_PUBLISH', true),
    topics: {
      'round-outcome': env.ANALYTICS_ROUND_OUTCOMES_TOPIC || DEFAULT_ANALYTICS_TOPICS['round-outcome'],
      settlement: env.ANALYTICS_SETTLEMENTS_TOPIC || DEFAULT_ANALYTICS_TOPICS.settlement,
      roads: env.ANALYTICS_ROADS_TOPIC || DEFAULT_ANALYTICS_TOPICS.roads,
    },
    batchSize: int(env, 'ANALYTICS_PUBLISH_BATCH_SIZE', 500, 1, 5000),
    pollIntervalMs: int(env, 'ANALYTICS_POLL_INTERVAL_MS', 200, 10, 60_000),
    retainPublishedHours: int(env, 'ANALYTICS_RETAIN_PUBLISHED_HOURS', 168, 0, 100_000),
    crashPoint: (crash as AnalyticsCrashPoint | undefined) || null,
  };
}

/** The analytics options of a validated projector configuration. */
export function analyticsConfig(env: ProjectorEnv): AnalyticsConfig {
  return {
    enabled: env.ANALYTICS_ENABLED,
    publish: env.ANALYTICS_PUBLISH,
    topics: {
      'round-outcome': env.ANALYTICS_ROUND_OUTCOMES_TOPIC,
      settlement: env.ANALYTICS_SETTLEMENTS_TOPIC,
      roads: env.ANALYTICS_ROADS_TOPIC,
    },
    batchSize: env.ANALYTICS_PUBLISH_BATCH_SIZE,
    pollIntervalMs: env.ANALYTICS_POLL_INTERVAL_MS,
    retainPublishedHours: env.ANALYTICS_RETAIN_PUBLISHED_HOURS,
    crashPoint: env.ANALYTICS_PUBLISHER_CRASH_POINT ?? null,
  };
}
