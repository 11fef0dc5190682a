import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import { DEFAULT_EVENTS_TOPIC, type LedgerApiEnv } from '@ledger/config';
import { LEDGER_WIDE_TABLE_ID } from '@ledger/events';
import type { ReadModel } from '@ledger/read-model';
import { ApiError } from '../api-error';
import { first } from '../sql';
import { DATA_SOURCE, READ_MODEL } from '../tokens';
import type { AsOf } from './as-of';

/** The relay's row of `outbox_progress` (`RELAY_PROGRESS_NAME` of `@ledger/event-store`). */
const RELAY_PROGRESS = 'ledger-relay';

/**
 * Turns an `asOf` into a global position and checks the read model can answer for it
 * (docs/reports.md §3).
 *
 * - A time T → the greatest global position of an event recorded (`recordedAt`, the ledger's clock)
 *   at or before T, from the event store; 0 when none was.
 * - "Projected through P" means: the relay has published every position ≤ P
 *   (`outbox_progress.through_position` ≥ P, so no append holding a position ≤ P is still in
 *   flight and the answer can never change later), and every event ≤ P of this API's events topic
 *   is in the read model's `applied_events`. The check walks only the outbox rows above the highest
 *   position this process already found projected (kept in memory), so repeated reads are cheap.
 */
@Injectable()
export class AsOfPositionService {
  private readonly topic: string;
  /** Every position ≤ it is known projected (found by an earlier check of this process). */
  private projectedThrough = 0n;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.topic = config.get('LEDGER_EVENTS_TOPIC', { infer: true });
  }

  /**
   * The global position of `asOf`, checked projected.
   * @throws ApiError 409 `ASOF.NOT_PROJECTED`
   */
  async resolve(asOf: AsOf): Promise<bigint> {
    const position = asOf.kind === 'position' ? asOf.position : await this.positionAt(asOf.at);
    await this.assertProjected(position);
    return position;
  }

  /** The greatest global position recorded at or before `at` (ISO-8601); 0 when none. */
  async positionAt(at: string): Promise<bigint> {
    const row = await first<{ p: string }>(this.ds, `SELECT global_position::text AS p FROM events WHERE recorded_at <= $1::timestamptz ORDER BY global_position DESC LIMIT 1`, [at]);
    return row ? BigInt(row.p) : 0n;
  }

  /**
   * The greatest global position of this ledger's table events recorded before `at` (ISO-8601,
   * exclusive); 0 when none. Ledger-wide events (a gaming day's close requests and closes, table id
   * `*`) carry no money and are left out. Where several ledgers share the database (the test suites),
   * only this API's events topic counts (by its outbox rows).
   */
  async lastRecordedBefore(at: string): Promise<bigint> {
    const own = this.topic === DEFAULT_EVENTS_TOPIC ? '' : `AND EXISTS (SELECT 1 FROM outbox o WHERE o.global_position = e.global_position AND o.topic = $2)`;
    const row = await first<{ p: string }>(
      this.ds,
      `SELECT e.global_position::text AS p FROM events e WHERE e.recorded_at < $1::timestamptz AND e.table_id <> '${LEDGER_WIDE_TABLE_ID}' ${own} ORDER BY e.global_position DESC LIMIT 1`,
      own ? [at, this.topic] : [at],
    );
    return row ? BigInt(row.p) : 0n;
  }

  /**
   * The latest position the read model can answer for now: the relay's published horizon, lowered to
   * just below the first event of this topic it has not applied yet. What a gaming-day close covers.
   */
  async latestProjected(): Promise<bigint> {
    const horizon = await this.relayHorizon();
    const missing = await this.readModel.health.firstUnapplied(this.topic, this.projectedThrough, horizon);
    const through = missing !== null ? missing - 1n : horizon;
    if (through > this.projectedThrough) this.projectedThrough = through;
    return through;
  }

  /**
   * @throws ApiError 409 `ASOF.NOT_PROJECTED` unless everything ≤ `position` is published and applied
   */
  async assertProjected(position: bigint): Promise<void> {
    if (position <= this.projectedThrough) return;
    const horizon = await this.relayHorizon();
    if (horizon < position) throw this.notProjected(position, `the relay has published through ${horizon}`);
    const missing = await this.readModel.health.firstUnapplied(this.topic, this.projectedThrough, position);
    if (missing !== null) throw this.notProjected(position, `event ${missing} is not applied yet`);
    this.projectedThrough = position;
  }

  private async relayHorizon(): Promise<bigint> {
    // capped at the highest recorded event: a progress marker pushed beyond it answers for nothing (docs/guarantees.md §5)
    const row = await first<{ p: string }>(this.ds, `SELECT least(through_position, coalesce((SELECT max(global_position) FROM events), 0))::text AS p FROM outbox_progress WHERE name = $1`, [RELAY_PROGRESS]);
    return row ? BigInt(row.p) : 0n;
  }

  private notProjected(position: bigint, reason: string): ApiError {
    return new ApiError('ASOF.NOT_PROJECTED', `the read model has not yet applied every event up to global position ${position} (${reason}); retry later`, {
      position: position.toString(),
    });
  }
}
