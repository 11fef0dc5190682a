import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { gamingDay, type GamingDayConfig } from '@ledger/projections';
import { ApiError } from '../../common/api-error';
import { DATA_SOURCE } from '../../persistence/persistence.module';
import { TablesRegistry } from '../../tables/tables.registry';
import { AsOfPositionService } from '../as-of/as-of-position.service';
import { CloseComputation } from './close-computation.service';
import { canonicalReportBytes, sha256Hex, signReport, type CloseReportBody } from './close-report';
import { ReportSigningKey } from './report-signing-key';

/** Who closes a day: a pit manager (`MANAGER`) or the API's sweeper (`AUTOMATIC`). */
export interface CloseActor {
  readonly id: string;
  readonly role: string;
  readonly trigger: 'MANAGER' | 'AUTOMATIC';
}

/** A stored close (the record around the signed bytes). */
export interface StoredClose {
  closeId: string;
  gamingDay: string;
  tableIds: string[];
  throughPosition: string;
  trigger: string;
  closedBy: string;
  closedByRole: string;
  closedAt: string;
  keyId: string;
  signature: string;
  sha256: string;
}

const CLOSE_COLUMNS = `id::text AS "closeId", gaming_day::text AS "gamingDay", table_ids AS "tableIds", through_position::text AS "throughPosition",
  trigger, closed_by AS "closedBy", closed_by_role AS "closedByRole", to_char(closed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "closedAt",
  key_id AS "keyId", signature, report_sha256 AS sha256`;

/**
 * Closing gaming days (docs/reports.md §2): freezes the report of a day for a table set at the
 * latest projected global position, signs its canonical bytes with the report signing key, and
 * appends it to `gaming_day_closes` (append-only). One close per (day, table): the primary key of
 * `gaming_day_close_tables` refuses a second, whichever API instance tries.
 */
@Injectable()
export class GamingDayCloseService {
  private readonly scope: string;
  private readonly dayRule: GamingDayConfig;

  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    private readonly positions: AsOfPositionService,
    private readonly computation: CloseComputation,
    private readonly key: ReportSigningKey,
    private readonly tables: TablesRegistry,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.scope = config.get('LEDGER_EVENTS_TOPIC', { infer: true });
    this.dayRule = { timeZone: config.get('GAMING_DAY_TZ', { infer: true }), cutoffHour: config.get('GAMING_DAY_CUTOFF_HOUR', { infer: true }) };
  }

  /** The gaming day an instant falls in (GAMING_DAY_TZ, GAMING_DAY_CUTOFF_HOUR). */
  dayOf(at: Date): string {
    return gamingDay(at.toISOString(), this.dayRule);
  }

  /**
   * Closes `day` for `tableIds` (null: every configured table not closed yet for that day).
   * @returns the stored close with its report
   * @throws ApiError 422 `GAMING_DAY.NOT_STARTED` (a day after the current one), 404 `TABLE.UNKNOWN`,
   *   409 `GAMING_DAY.ALREADY_CLOSED` (a table of the set, or every table, already closed that day),
   *   409 `ASOF.NOT_PROJECTED` (nothing projected yet), 503 `GAMING_DAY.NO_SIGNING_KEY`
   */
  async close(day: string, tableIds: readonly string[] | null, actor: CloseActor, now: Date = new Date()): Promise<StoredClose & { report: CloseReportBody }> {
    const current = this.dayOf(now);
    if (day > current) throw new ApiError('GAMING_DAY.NOT_STARTED', `gaming day ${day} has not started yet (the current gaming day is ${current})`, { day, currentDay: current });
    const configured = this.tables.list().map((t) => t.tableId);
    for (const t of tableIds ?? []) this.tables.get(t); // TABLE.UNKNOWN
    const closed = new Set<string>(
      (await this.ds.query(`SELECT table_id FROM gaming_day_close_tables WHERE scope = $1 AND gaming_day = $2::date`, [this.scope, day])).map((r: { table_id: string }) => r.table_id),
    );
    const set = [...new Set(tableIds ?? configured.filter((t) => !closed.has(t)))].sort();
    const already = set.filter((t) => closed.has(t));
    if (set.length === 0 || already.length > 0) throw alreadyClosed(day, already.length ? already : [...closed].sort());
    const key = this.key.get();
    const position = await this.positions.latestProjected();
    const report = await this.computation.body(day, set, position);
    const bytes = canonicalReportBytes(report);
    const signature = signReport(bytes, key.privateKey);
    const q = this.ds.createQueryRunner();
    await q.connect();
    try {
      await q.startTransaction();
      const [row] = await q.query(
        `INSERT INTO gaming_day_closes (scope, gaming_day, table_ids, through_position, report, report_sha256, signature, key_id, trigger, closed_by, closed_by_role)
         VALUES ($1, $2::date, $3::text[], $4::bigint, $5, $6, $7, $8, $9, $10, $11) RETURNING ${CLOSE_COLUMNS}`,
        [this.scope, day, set, position.toString(), bytes.toString('utf8'), sha256Hex(bytes), signature, key.keyId, actor.trigger, actor.id, actor.role],
      );
      await q.query(
        `INSERT INTO gaming_day_close_tables (scope, gaming_day, table_id, close_id) SELECT $1, $2::date, t, $4::bigint FROM unnest($3::text[]) AS t`,
        [this.scope, day, set, row.closeId],
      );
      await q.commitTransaction();
      return { ...row, report };
    } catch (err) {
      if (q.isTransactionActive) await q.rollbackTransaction();
      if ((err as { code?: string }).code === '23505') throw alreadyClosed(day, set);
      throw err;
    } finally {
      await q.release();
    }
  }

  /** Every close of this ledger, by gaming day then close order. */
  list(): Promise<StoredClose[]> {
    return this.ds.query(`SELECT ${CLOSE_COLUMNS} FROM gaming_day_closes WHERE scope = $1 ORDER BY gaming_day, id`, [this.scope]);
  }

  /**
   * The closes of `day` (optionally only the one covering `tableId`), each with its exact stored bytes.
   * @throws ApiError 404 `GAMING_DAY.NOT_CLOSED`
   */
  async ofDay(day: string, tableId: string | null): Promise<(StoredClose & { bytes: string })[]> {
    const rows = await this.ds.query(
      `SELECT ${CLOSE_COLUMNS}, report AS bytes FROM gaming_day_closes WHERE scope = $1 AND gaming_day = $2::date AND ($3::text IS NULL OR $3 = ANY(table_ids)) ORDER BY id`,
      [this.scope, day, tableId],
    );
    if (rows.length === 0) throw new ApiError('GAMING_DAY.NOT_CLOSED', `gaming day ${day} has no close${tableId ? ` for table ${tableId}` : ''}`, { day });
    return rows;
  }

  /**
   * The canonical bytes of a stored close computed again from the events at its position (they must
   * equal the stored bytes: docs/reports.md §2).
   */
  async recompute(close: StoredClose): Promise<Buffer> {
    return canonicalReportBytes(await this.computation.body(close.gamingDay, close.tableIds, BigInt(close.throughPosition)));
  }
}

function alreadyClosed(day: string, tableIds: readonly string[]): ApiError {
  return new ApiError('GAMING_DAY.ALREADY_CLOSED', `gaming day ${day} is already closed for table(s) ${tableIds.join(', ') || '(all)'}`, { day, tableIds: tableIds.join(',') });
}
