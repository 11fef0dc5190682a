import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { stringify } from 'csv-stringify/sync';
import type { DataSource, QueryRunner } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { anchorVerifySettings, databaseLedgerId, parseAnchor, publicKeyPem, readAnchorLines, readPublicKeys, type SignedAnchor } from '@ledger/anchors';
import { ApiError } from '../kernel/api-error';
import { DATA_SOURCE, HEAVY_READ_DATA_SOURCE } from '../kernel/tokens';
import { headerValue, REPORT_HEADER_HTTP, reportHeader, type ReportHeader } from '../kernel/report-header';
import { csvRecord, EXPORT_REPORT_VERSION, EXPORT_SPECS, type ExportContext, type ExportKind, type ExportPositions } from './export-kinds';
import { selectAnchors } from './export-manifest';

/** The response an export streams into (an Express response fits). */
export interface ExportSink {
  setHeader(name: string, value: string): unknown;
  write(chunk: string): boolean;
  end(): unknown;
  destroy(err?: Error): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  readonly destroyed: boolean;
  readonly headersSent: boolean;
}

/** Who asked, for the access log. */
export interface ExportCaller {
  readonly id: string;
  readonly role: string;
  readonly route: string;
  readonly params: Record<string, unknown>;
  readonly correlationId: string | null;
}

/** `GET /exports/anchors`. */
export interface ExportAnchors {
  header: ReportHeader;
  ledgerId: string;
  positions: ExportPositions;
  publicKeys: { keyId: string; pem: string }[];
  anchors: SignedAnchor[];
}

/** Content types of the two formats. */
export const EXPORT_CONTENT_TYPES = { jsonl: 'application/x-ndjson; charset=utf-8', csv: 'text/csv; charset=utf-8' } as const;

/**
 * The exports for regulators (docs/reports.md §5): events, settlements, decisions, rejections and the
 * access log of a period, streamed from PostgreSQL one keyset batch (`EXPORT_BATCH_ROWS`) at a time
 * inside one REPEATABLE READ, READ ONLY transaction, so the count in the header and the rows that
 * follow are the same snapshot and the API never holds more than a batch.
 */
@Injectable()
export class ExportsService {
  private readonly schema: string;
  private readonly batchRows: number;
  private readonly statementTimeoutMs: number;
  private readonly anchorFile: string;
  private readonly publicKeyFiles: readonly string[];
  private readonly ledgerIdSetting: string | null;

  constructor(
    @Inject(HEAVY_READ_DATA_SOURCE) private readonly heavy: DataSource,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.schema = config.get('PROJECTIONS_SCHEMA', { infer: true });
    this.batchRows = config.get('EXPORT_BATCH_ROWS', { infer: true });
    this.statementTimeoutMs = config.get('HEAVY_READ_STATEMENT_TIMEOUT_MS', { infer: true });
    const anchors = anchorVerifySettings({
      ANCHOR_FILE: config.get('ANCHOR_FILE', { infer: true }),
      ANCHOR_PUBLIC_KEY_FILE: config.get('ANCHOR_PUBLIC_KEY_FILE', { infer: true }),
      ANCHOR_TOPIC: config.get('ANCHOR_TOPIC', { infer: true }),
      LEDGER_EVENTS_TOPIC: config.get('LEDGER_EVENTS_TOPIC', { infer: true }),
      LEDGER_ID: config.get('LEDGER_ID', { infer: true }),
    });
    this.anchorFile = anchors.anchorFile;
    this.publicKeyFiles = anchors.publicKeyFiles;
    this.ledgerIdSetting = anchors.ledgerId;
  }

  /**
   * Checks a period. @throws ApiError 400 `VALIDATION.FAILED` unless `from` is before `to`
   */
  static checkPeriod(from: string, to: string): void {
    if (!(Date.parse(from) < Date.parse(to))) throw new ApiError('VALIDATION.FAILED', `the period is empty: from ${from} must be before to ${to}`, { from, to });
  }

  /**
   * The signed checkpoints (of `ANCHOR_FILE`, this ledger's only) the events of the period verify
   * against, the positions the events export covers, and the public keys (`ANCHOR_PUBLIC_KEY_FILE`;
   * none when unreadable: a verifier then cannot check the anchors and says so).
   * @throws ApiError 400 `VALIDATION.FAILED`
   */
  async anchors(from: string, to: string, now = new Date()): Promise<ExportAnchors> {
    ExportsService.checkPeriod(from, to);
    const q = this.heavy.createQueryRunner();
    await q.connect();
    try {
      const { first, periodLast } = await this.periodPositions(q, from, to);
      const ledgerId = this.ledgerIdSetting ?? (await databaseLedgerId(q));
      const selection = selectAnchors(await this.ledgerAnchors(ledgerId), first, periodLast);
      let publicKeys: { keyId: string; pem: string }[] = [];
      try {
        publicKeys = [...readPublicKeys(this.publicKeyFiles)].map(([keyId, key]) => ({ keyId, pem: publicKeyPem(key) }));
      } catch {
        publicKeys = [];
      }
      const positions = { first, periodLast, through: selection.through };
      const header = reportHeader('Anchors of an export', 'export.anchors', EXPORT_REPORT_VERSION, { from, to }, {}, first === null, now);
      return { header, ledgerId, positions, publicKeys, anchors: selection.anchors };
    } finally {
      await q.release();
    }
  }

  /**
   * Streams one export into `sink`: response headers (`Ledger-Report-Header`, `Ledger-Export-Count`,
   * `Ledger-Export-Positions`), then for JSONL the line `{"header":…,"positions":…}`, one line per row and
   * the line `{"trailer":{"rows":N}}`; for CSV a header line of the column names and one record per row.
   * The read is recorded in `query_log` (with its row count) before the first byte; a failure after it
   * cuts the response (the client sees a truncated body, which the trailer, the count and the
   * manifest's SHA-256 reveal).
   * @throws ApiError 400 `VALIDATION.FAILED` (before anything is written); a database error before the first byte
   */
  async stream(kind: ExportKind, o: { from: string; to: string; format: 'jsonl' | 'csv'; through?: string }, caller: ExportCaller, sink: ExportSink, now = new Date()): Promise<void> {
    ExportsService.checkPeriod(o.from, o.to);
    const spec = EXPORT_SPECS.get(kind);
    if (!spec) throw new ApiError('ROUTE.NOT_FOUND', `no export ${kind}`);
    const q = this.heavy.createQueryRunner();
    await q.connect();
    let started = false;
    try {
      await q.query(`SET statement_timeout = ${this.statementTimeoutMs}`);
      await q.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      let positions: ExportPositions = { first: null, periodLast: null, through: null };
      if (kind === 'events' || kind === 'settlements' || kind === 'decisions') {
        const p = await this.periodPositions(q, o.from, o.to);
        let through = p.periodLast;
        if (kind === 'events' && p.first !== null && p.periodLast !== null) {
          if (o.through !== undefined) {
            through = BigInt(o.through) > BigInt(p.periodLast) ? o.through : p.periodLast;
          } else {
            const ledgerId = this.ledgerIdSetting ?? (await databaseLedgerId(q));
            through = selectAnchors(await this.ledgerAnchors(ledgerId), p.first, p.periodLast).through;
          }
        }
        positions = { ...p, through: kind === 'events' ? through : null };
      }
      const ctx: ExportContext = { schema: this.schema, from: o.from, to: o.to, positions };
      const count = positions.first === null && kind !== 'rejections' && kind !== 'access-log' ? 0 : await this.count(q, spec.count(ctx));
      const filters: Record<string, unknown> = { format: o.format, selects: spec.selects };
      if (kind === 'events') filters.through = positions.through ?? undefined;
      const header = reportHeader(spec.title, `export.${kind}`, EXPORT_REPORT_VERSION, { from: o.from, to: o.to }, filters, count === 0, now);
      await this.ds.query(
        `INSERT INTO query_log (actor_id, actor_role, route, params, result_count, status, correlation_id) VALUES ($1, $2, $3, $4, $5, 200, $6)`,
        [caller.id, caller.role, caller.route, JSON.stringify(caller.params), count, caller.correlationId],
      );

      sink.setHeader('content-type', EXPORT_CONTENT_TYPES[o.format]);
      sink.setHeader('content-disposition', `attachment; filename="${kind}.${o.format}"`);
      sink.setHeader(REPORT_HEADER_HTTP, headerValue(header));
      sink.setHeader('ledger-export-count', String(count));
      sink.setHeader('ledger-export-positions', headerValue(positions));
      started = true;
      let closed = false;
      sink.once('close', () => (closed = true));
      const write = async (s: string) => {
        if (!sink.write(s)) await new Promise<void>((r) => { sink.once('drain', r); sink.once('close', r); });
      };
      if (o.format === 'jsonl') await write(`${JSON.stringify({ header, positions })}\n`);
      else await write(stringify([spec.columns as string[]]));

      let after: string | null = null;
      let rows = 0;
      while (!closed) {
        const b = spec.batch(ctx, after, this.batchRows);
        const batch: Record<string, unknown>[] = await q.query(b.sql, b.args);
        if (batch.length === 0) break;
        const objects = batch.map((r) => spec.json(r));
        await write(o.format === 'jsonl' ? objects.map((x) => `${JSON.stringify(x)}\n`).join('') : stringify(objects.map((x) => csvRecord(spec.columns, x))));
        rows += batch.length;
        after = spec.key(batch[batch.length - 1]);
        if (batch.length < this.batchRows) break;
      }
      if (closed) return;
      if (rows !== count) throw new Error(`export ${kind}: ${rows} rows streamed, ${count} counted in the same snapshot`);
      if (o.format === 'jsonl') await write(`${JSON.stringify({ trailer: { rows } })}\n`);
      await q.query('COMMIT');
      sink.end();
    } catch (err) {
      if (!started) throw err;
      sink.destroy(err as Error);
    } finally {
      if (q.isReleased === false) {
        await q.query('ROLLBACK').catch(() => undefined);
        await q.query('RESET statement_timeout').catch(() => undefined);
        await q.release();
      }
    }
  }

  /** Lowest and highest global position of an event recorded in [from, to) (the BRIN index on `recorded_at`). */
  private async periodPositions(q: QueryRunner, from: string, to: string): Promise<{ first: string | null; periodLast: string | null }> {
    const [r] = await q.query(`SELECT min(global_position)::text AS first, max(global_position)::text AS last FROM events WHERE recorded_at >= $1 AND recorded_at < $2`, [from, to]);
    return { first: r?.first ?? null, periodLast: r?.last ?? null };
  }

  private async count(q: QueryRunner, c: { sql: string; args: unknown[] }): Promise<number> {
    const [r] = await q.query(c.sql, c.args);
    return Number(r.n);
  }

  /** The well-formed signed anchors of `ledgerId` in the anchor file, in file order (none when the file is missing). */
  private async ledgerAnchors(ledgerId: string): Promise<SignedAnchor[]> {
    const out: SignedAnchor[] = [];
    for (const line of await readAnchorLines(this.anchorFile)) {
      const p = parseAnchor(line.text);
      if ('anchor' in p && p.anchor.checkpoint.ledgerId === ledgerId) out.push(p.anchor);
    }
    return out;
  }
}
