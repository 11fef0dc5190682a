import { Controller, Get, Inject, Optional, Query, Req, UseInterceptors } from '@nestjs/common';
import { countVerification } from '../kernel/verification-metrics';
import { ConfigService } from '@nestjs/config';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { KeyObject } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import type { GamingDayConfig } from '@ledger/projections';
import { anchorVerifySettings, DEFAULT_VERIFY_GRACE_MS, kafkaClient, readPublicKeys, verifyLedger, type AnchorVerifySettings, type VerificationReport } from '@ledger/anchors';
import { Roles } from '../kernel/auth/roles.decorator';
import { ApiError } from '../kernel/api-error';
import { exec } from '../kernel/sql';
import { HEAVY_READ_DATA_SOURCE } from '../kernel/tokens';
import { HeavyRead, HeavyReadLimiter, type HeavyReadRequest } from '../kernel/heavy-read';
import { AnchorsVerifyQuery, isIntegerText } from '../kernel/query.dto';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { AnchorsVerification } from './anchors.responses';
import { tapDivergences } from '../kernel/significant-taps';

/**
 * `GET /audit/anchors/verify` (docs/guarantees.md §8, docs/anchors.md): the report of
 * `npm run -s verify`, for auditors and pit managers. PostgreSQL against the anchor file
 * (`ANCHOR_FILE`, as this process sees it) and, with `?kafka=true`, against the anchors topic and the
 * Kafka copy of the ledger (`KAFKA_BROKERS`, `ANCHOR_TOPIC`, `LEDGER_EVENTS_TOPIC`). Public keys from
 * `ANCHOR_PUBLIC_KEY_FILE`, read at each request (unreadable: the report says no anchor could be
 * checked). The settings come from the API's validated configuration (`LedgerApiEnv`,
 * docs/architecture.md §5), read once at start. It reads the whole ledger: one check at a time per
 * process (409 `ANCHORS.VERIFY_RUNNING` meanwhile). Recorded in `query_log` like every audit read.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller('audit/anchors')
export class AnchorsController {
  private running = false;
  private readonly settings: AnchorVerifySettings;
  private readonly brokers: readonly string[];
  private readonly statementTimeoutMs: number;
  private readonly dayRule: GamingDayConfig;

  constructor(
    @Inject(HEAVY_READ_DATA_SOURCE) private readonly ds: DataSource,
    config: ConfigService<LedgerApiEnv, true>,
    @Optional() private readonly heavy: HeavyReadLimiter | null = null,
  ) {
    this.settings = anchorVerifySettings({
      ANCHOR_FILE: config.get('ANCHOR_FILE', { infer: true }),
      ANCHOR_PUBLIC_KEY_FILE: config.get('ANCHOR_PUBLIC_KEY_FILE', { infer: true }),
      ANCHOR_TOPIC: config.get('ANCHOR_TOPIC', { infer: true }),
      LEDGER_EVENTS_TOPIC: config.get('LEDGER_EVENTS_TOPIC', { infer: true }),
      LEDGER_ID: config.get('LEDGER_ID', { infer: true }),
    });
    this.brokers = config.get('KAFKA_BROKERS', { infer: true });
    this.statementTimeoutMs = config.get('HEAVY_READ_STATEMENT_TIMEOUT_MS', { infer: true });
    this.dayRule = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
  }

  @Get('verify')
  @HeavyRead()
  @ApiOperation({ summary: 'PostgreSQL against the signed anchors (and the Kafka copy): streams, events, anchors checked, the first divergence (stream, version, event)' })
  @ApiOkResponse({ type: AnchorsVerification })
  async verify(@Query() q: AnchorsVerifyQuery, @Req() req?: HeavyReadRequest): Promise<VerificationReport> {
    // a heavy read: a slot of the caller's (429 RATE.HEAVY_READ_BUSY without one), taken after the pipes
    const verify = () => countVerification('anchor', () => this.verifyNow(q));
    return this.heavy ? this.heavy.run(req, verify) : verify();
  }

  private async verifyNow(q: AnchorsVerifyQuery): Promise<VerificationReport> {
    // the DTO checked both through HTTP; checked again here for callers that skip the pipes
    if (q.kafka !== undefined && q.kafka !== 'true' && q.kafka !== 'false') throw new ApiError('VALIDATION.FAILED', 'kafka must be true or false');
    if (q.graceMs !== undefined && !isIntegerText(q.graceMs, 0, Number.MAX_SAFE_INTEGER)) throw new ApiError('VALIDATION.FAILED', 'graceMs must be an integer >= 0');
    const graceMs = q.graceMs === undefined ? DEFAULT_VERIFY_GRACE_MS : Number(q.graceMs);
    const withKafka = q.kafka === 'true';

    const config = this.settings;
    // Without a readable public key nothing can be verified: the report says so (ok false), it is not an error of the request.
    let publicKeys = new Map<string, KeyObject>();
    let keyProblem: string | null = null;
    try {
      publicKeys = readPublicKeys(config.publicKeyFiles);
    } catch (err) {
      keyProblem = `no anchor can be checked: ${(err as Error).message} (ANCHOR_PUBLIC_KEY_FILE)`;
    }
    if (this.running) throw new ApiError('ANCHORS.VERIFY_RUNNING', 'a verification is already running in this process; retry when it ends');
    this.running = true;
    const session = this.ds.createQueryRunner();
    try {
      await session.connect();
      // a heavy read: the heavy-read pool, with its statement timeout (reset before the connection goes back)
      await exec(session, `SET statement_timeout = ${this.statementTimeoutMs}`);
      const report = await verifyLedger({
        session,
        ledgerId: config.ledgerId,
        publicKeys,
        anchorFile: config.anchorFile,
        kafka: withKafka ? kafkaClient(this.brokers, 'ledger-api-verify') : null,
        anchorsTopic: withKafka ? config.anchorsTopic : null,
        eventsTopic: withKafka ? config.eventsTopic : null,
        graceMs,
        keyProblem,
        dayRule: this.dayRule,
      });
      // CHAIN.DIVERGED / ANCHOR.DIVERGED (docs/significant-events.md, "Causes"): queued, raised in the background
      tapDivergences(report.divergences);
      return report;
    } finally {
      this.running = false;
      if (session.isReleased === false) await exec(session, 'RESET statement_timeout').catch(() => undefined);
      await session.release();
    }
  }
}
