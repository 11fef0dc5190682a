import { Controller, Get, Inject, OnModuleDestroy, Query, Res, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import type { Response } from 'express';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { apiReadModelRelations, type ReadModel } from '@ledger/read-model';
import { healthRunner, kafkaCheck, postgresCheck, schemaCheck, syncCommitCheck, withTimeout, CHECK_TIMEOUT_MS, SYNC_COMMIT_STALLED, type CheckResult, type HealthCheck, type ProbeQuery, type SyncCommitCheck } from '@ledger/infra';
import { createKafka } from '@ledger/kafka';
import { catalogueGauge } from '@ledger/metrics';
import { Public } from './kernel/auth/public.decorator';
import { NoQuery } from './kernel/query.dto';
import { ProjectionHealthService } from './projections/projection-health.service';
import { rows } from './kernel/sql';
import { DATA_SOURCE, READ_MODEL } from './kernel/tokens';

/** The write side's relations the API needs (docs/guarantees.md §1): present once the event store's migrations ran. */
const API_WRITE_RELATIONS = ['public.events', 'public.streams', 'public.outbox', 'public.idempotency_keys', 'public.rejections'] as const;

/** `ledger_sync_commit_stalled` and `ledger_sync_commit_probe_seconds` (docs/architecture.md §8), set at each readiness probe. */
const syncCommitStalled = catalogueGauge('syncCommitStalled');
const syncCommitSeconds = catalogueGauge('syncCommitSeconds');

/**
 * The answer of `GET /health/live` and `GET /health/ready`: terminus's `HealthCheckResult` with the
 * top-level `status` widened by `degraded` (every check up, some up with `degraded: true`).
 */
export type ProbeAnswer = Omit<HealthCheckResult, 'status'> & { status: HealthCheckResult['status'] | 'degraded' };

/**
 * The API's probes (docs/architecture.md §8), all public (no token):
 * - `GET /health`: always 200 while the API answers (kept as it was: a halted projection does not
 *   make the API dead, and restarting or unrouting it would fix nothing): `{ status: 'ok',
 *   projections: { status: 'running', halted: [] } }`, or `status: 'degraded'` with the halted
 *   partitions (group, topic, partition, code, since) while a projection incident is open, or when
 *   the read model cannot be read (`projections.status: 'unknown'`). Details: `GET /projections/status`
 *   (docs/guarantees.md §6).
 * - `GET /health/live`: liveness, 200 `{ status: 'ok', info: { process: { status: 'up', uptimeS } }, error: {}, details }`
 *   while the event loop answers, through `@nestjs/terminus`'s `HealthCheckService`.
 * - `GET /health/ready`: readiness through `@nestjs/terminus`'s `HealthCheckService.check` with
 *   indicators of `HealthIndicatorService` (`status` ok | degraded | error, `info`, `error`,
 *   `details`), 503 when the API cannot do its job:
 *   `postgres` (`SELECT 1` through the API's pool), `migrations` (the write side's and the read
 *   model's tables exist) and `syncCommit` (a transaction that writes WAL, committed on a session of
 *   its own, comes back within `READY_SYNC_COMMIT_TIMEOUT_MS`: with a synchronous standby that does
 *   not confirm every write hangs, docs/operations.md; down with `code: 'DATABASE.SYNC_COMMIT_STALLED'`
 *   and `boundMs`, details `{ commitMs, boundMs }` when up) are up or down; `kafka` (`describeCluster`) and `projections` are never
 *   down: when the broker is unreachable `kafka` is `{ status: 'up', degraded: true, reachable: false, message }`
 *   (the API writes to the outbox and needs no broker to accept facts, docs/guarantees.md §4), and
 *   while a partition is halted `projections` is `{ status: 'up', degraded: true, halted: [...] }`
 *   (reads may be stale); the top-level `status` is then `degraded` and the answer 200. Each check
 *   is bounded by 1.5 s (`CHECK_TIMEOUT_MS`) and runs at most once at a time, so the answer comes
 *   within ~2 s even when a dependency hangs. During shutdown terminus answers 503 `shutting_down`.
 */
@Controller('health')
export class HealthController implements OnModuleDestroy {
  private readonly kafka: ReturnType<typeof kafkaCheck>;
  private readonly postgres: () => Promise<CheckResult>;
  private readonly migrations: () => Promise<CheckResult>;
  private readonly kafkaBounded: () => Promise<CheckResult>;
  private readonly syncCommitProbe: SyncCommitCheck;
  private readonly syncCommit: () => Promise<CheckResult>;

  constructor(
    private readonly projections: ProjectionHealthService,
    private readonly terminus: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(DATA_SOURCE) ds: DataSource,
    @Inject(READ_MODEL) readModel: ReadModel,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    const query: ProbeQuery = <R extends Record<string, unknown>>(sql: string, params?: unknown[]) => rows<R>(ds, sql, params);
    this.kafka = kafkaCheck(
      createKafka({ clientId: `ledger-api-probe-${process.pid}`, brokers: config.get('KAFKA_BROKERS', { infer: true }), logLevel: 'nothing', retries: 0, connectionTimeoutMs: 1000, requestTimeoutMs: CHECK_TIMEOUT_MS }),
    );
    this.postgres = bounded('postgres', postgresCheck(query));
    this.migrations = bounded('migrations', schemaCheck(query, [...API_WRITE_RELATIONS, ...apiReadModelRelations(readModel.schema)]));
    this.kafkaBounded = bounded('kafka', this.kafka);
    this.syncCommitProbe = syncCommitCheck({ url: config.get('DATABASE_URL', { infer: true }), applicationName: 'ledger-api-ready', boundMs: config.get('READY_SYNC_COMMIT_TIMEOUT_MS', { infer: true }) });
    this.syncCommit = bounded('syncCommit', this.syncCommitProbe);
  }

  async onModuleDestroy(): Promise<void> {
    await this.kafka.close();
    await this.syncCommitProbe.close();
  }

  /** `GET /health`: see the class. */
  @Public()
  @Get()
  async health(@Query() _q: NoQuery) {
    const projections = await this.projections.health();
    return { status: projections.status === 'running' ? 'ok' : 'degraded', projections };
  }

  /** `GET /health/live`: 200 while the process answers (liveness; checks nothing else). */
  @Public()
  @Get('live')
  live(@Query() _q: NoQuery): Promise<ProbeAnswer> {
    return this.terminus.check([() => this.indicators.check('process').up({ uptimeS: Math.round(process.uptime()) })]);
  }

  /**
   * `GET /health/ready`: see the class. 503 with the same shape (`status: 'error'`, `info`,
   * `error`, `details`) when `postgres`, `migrations` or `syncCommit` is down: terminus's
   * `ServiceUnavailableException` is caught here and its report answered as is.
   */
  @Public()
  @Get('ready')
  async ready(@Query() _q: NoQuery, @Res({ passthrough: true }) res: Response): Promise<ProbeAnswer> {
    try {
      const report = await this.terminus.check([
        () => this.upOrDown('postgres', this.postgres),
        () => this.upOrDown('migrations', this.migrations),
        () => this.syncCommitIndicator(),
        () => this.kafkaIndicator(),
        () => this.projectionsIndicator(),
      ]);
      const degraded = Object.values(report.details).some((d) => (d as Record<string, unknown>).degraded === true);
      return { ...report, status: degraded ? 'degraded' : report.status };
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) throw err;
      res.status(503);
      return err.getResponse() as HealthCheckResult;
    }
  }

  /** The indicator `key`: up with the check's details, or down with its `message` and details. */
  private async upOrDown(key: string, run: () => Promise<CheckResult>): Promise<HealthIndicatorResult> {
    const { status, ...details } = await run();
    const session = this.indicators.check(key);
    return status === 'up' ? session.up(details) : session.down(details);
  }

  /** `syncCommit` (see the class), and its two gauges: stalled 1 and the bound when its code says so, else 0 and the commit's time. */
  private async syncCommitIndicator(): Promise<HealthIndicatorResult> {
    const result = await this.syncCommit();
    if (result.status === 'up') {
      syncCommitStalled.set(0);
      syncCommitSeconds.set(Number(result.commitMs) / 1000);
    } else if (result.code === SYNC_COMMIT_STALLED) {
      syncCommitStalled.set(1);
      syncCommitSeconds.set(Number(result.boundMs) / 1000);
    }
    return this.upOrDown('syncCommit', async () => result);
  }

  /** `kafka`: up with `{ brokers, controller }`, or up and degraded `{ degraded: true, reachable: false, message }` (never down, docs/guarantees.md §4). */
  private async kafkaIndicator(): Promise<HealthIndicatorResult> {
    const { status, ...details } = await this.kafkaBounded();
    return this.indicators.check('kafka').up(status === 'up' ? details : { ...details, degraded: true, reachable: false });
  }

  /**
   * `projections`: up `{ halted: [] }` while every partition runs; up and degraded with the halted
   * partitions (`partition`, `code`, `consumerGroup`, `topic`, `haltedAt`), or with `message: 'read
   * model unreadable'` when the read model cannot be read within 1.5 s (never down, docs/guarantees.md §6).
   */
  private async projectionsIndicator(): Promise<HealthIndicatorResult> {
    const session = this.indicators.check('projections');
    const projections = await withTimeout(this.projections.health(), CHECK_TIMEOUT_MS, 'projections').catch(() => null);
    if (projections === null || projections.status === 'unknown') return session.up({ degraded: true, message: 'read model unreadable' });
    if (projections.status === 'running') return session.up({ halted: [] });
    return session.up({ degraded: true, halted: projections.halted.map((h) => ({ partition: h.partition, code: h.code, consumerGroup: h.consumerGroup, topic: h.topic, haltedAt: h.haltedAt })) });
  }
}

/**
 * `check` bounded by `CHECK_TIMEOUT_MS` and run at most once at a time (a call while one is in
 * flight waits for it), through `healthRunner` of `@ledger/infra`; resolves its `CheckResult`
 * (`status: 'up'` with its details, or `'down'` with `message` and details), never rejects.
 */
function bounded(name: string, check: HealthCheck): () => Promise<CheckResult> {
  const run = healthRunner({ [name]: check });
  return async () => (await run()).details[name];
}
