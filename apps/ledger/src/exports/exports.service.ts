import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { anchorVerifySettings, databaseLedgerId, parseAnchor, publicKeyPem, readAnchorLines, readPublicKeys, type SignedAnchor } from '@ledger/anchors';
import type { ReadModel } from '@ledger/read-model';
import { ApiError } from '../kernel/api-error';
import { attachment, CSV_CONTENT_TYPE, csvText } from '../kernel/csv';
import { recordQueryLog } from '../kernel/query-log';
import { first, rows, type Queryable } from '../kernel/sql';
import { DATA_SOURCE, HEAVY_READ_DATA_SOURCE, READ_MODEL } from '../kernel/tokens';
import { headerValue, REPORT_HEADER_HTTP, reportHeader, type ReportHeader } from '../kernel/report-header';
import { csvRecord, EXPORT_REPORT_VERSION, EXPORT_SPECS, type ExportContext, type ExportKind, type ExportKindSpec, type ExportPositions, type ExportSource } from './export-kinds';
import { selectAnchors } from './export-manifest';
import { SinkWriter, type ExportSink } from './sink-writer';
import { ReportSigningKey } from '../kernel/closes/report-signing-key';
import { receiptSealBody, recordReceipt, tally, type ReceiptSeal } from './export-receipts';

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
export const EXPORT_CONTENT_TYPES = { jsonl: 'application/x-ndjson; charset=utf-8', csv: CSV_CONTENT_TYPE } as const;

/**
 * The exports for regulators (docs/reports.md §5): events, settlements, decisions, rejections and the
 * access log of a period, streamed from PostgreSQL one keyset batch (`EXPORT_BATCH_ROWS`) at a time
 * inside one REPEATABLE READ, READ ONLY transaction on the heavy reads' pool (`readModel.snapshot`),
 * so the count in the header and the rows that follow are the same snapshot and the API never holds
 * more than a batch.
 */
@Injectable()
export class ExportsService {
  private readonly logger = new Logger(ExportsService.name);
  private readonly batchRows: number;
  private readonly statementTimeoutMs: number;
  private readonly anchorFile: string;
  private readonly publicKeyFiles: readonly string[];
  private readonly ledgerIdSetting: string | null;

  constructor(
    @Inject(HEAVY_READ_DATA_SOURCE) private readonly heavy: DataSource,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(READ_MODEL) private readonly readModel: ReadModel,
    private readonly signingKey: ReportSigningKey,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
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
   * is logged (with the caller's correlation id) and cuts the response (the client sees a truncated
   * body, which the trailer, the count and the manifest's SHA-256 reveal; `npm run export` names the
   * file and marks the bundle INCOMPLETE). A client gone (or cut by the heavy reads' idle timeout) is
   * seen at any point ({@link SinkWriter}): before the snapshot nothing is read, after it the rows stop
   * at the next write and the snapshot commits, its connection back in the pool. Every byte written is
   * counted and hashed; after the last one, before the response ends, its receipt (`export_receipts`,
   * id in the `Ledger-Export-Receipt` response header) is recorded, which `GET /exports/manifest`
   * signs from (docs/reports.md §5, "The bundle").
   * @throws ApiError 400 `VALIDATION.FAILED` (before anything is written); a database error before the first byte
   */
  async stream(kind: ExportKind, o: { from: string; to: string; format: 'jsonl' | 'csv'; through?: string }, caller: ExportCaller, sink: ExportSink, now = new Date()): Promise<void> {
    ExportsService.checkPeriod(o.from, o.to);
    const spec = EXPORT_SPECS.get(kind);
    if (!spec) throw new ApiError('ROUTE.NOT_FOUND', `no export ${kind}`);
    // every byte counted and hashed for the receipt, and watched before the first query: a client
    // gone while the snapshot counts is seen too
    const counted = tally(sink);
    const out = new SinkWriter(counted.sink);
    if (out.closed) return;
    let started = false;
    const receipt = { id: randomUUID(), head: null as { header: ReportHeader; positions: ExportPositions; count: number } | null };
    try {
      const complete = await this.readModel.snapshot(this.statementTimeoutMs, async (readModel, q) => {
        const src: ExportSource = { q, readModel };
        const positions = await this.positionsOf(kind, q, o);
        const ctx: ExportContext = { from: o.from, to: o.to, positions };
        const count = positions.first === null && kind !== 'rejections' && kind !== 'access-log' ? 0 : await spec.count(src, ctx);
        const filters: Record<string, unknown> = { format: o.format, selects: spec.selects };
        if (kind === 'events') filters.through = positions.through ?? undefined;
        const header = reportHeader(spec.title, `export.${kind}`, EXPORT_REPORT_VERSION, { from: o.from, to: o.to }, filters, count === 0, now);
        await recordQueryLog(this.ds, { actorId: caller.id, actorRole: caller.role, route: caller.route, params: JSON.stringify(caller.params), resultCount: count, correlationId: caller.correlationId });

        attachment(sink, EXPORT_CONTENT_TYPES[o.format], `${kind}.${o.format}`);
        sink.setHeader(REPORT_HEADER_HTTP, headerValue(header));
        sink.setHeader('ledger-export-count', String(count));
        sink.setHeader('ledger-export-positions', headerValue(positions));
        sink.setHeader('ledger-export-receipt', receipt.id);
        started = true;
        receipt.head = { header, positions, count };
        return this.writeRows(spec, src, ctx, o.format, receipt.head, out);
      });
      // after the snapshot's COMMIT: a failed commit (or receipt) cuts the response instead of ending it
      if (complete && receipt.head) {
        const { header, positions, count } = receipt.head;
        const sent = { id: receipt.id, kind, format: o.format, period: { from: o.from, to: o.to }, positions, header, rows: count, bytes: counted.tally.bytes(), sha256: counted.tally.sha256() };
        await recordReceipt(this.ds, { ...sent, actorId: caller.id, actorRole: caller.role, seal: await this.seal({ ...sent, actorId: caller.id }) });
        sink.end();
      }
    } catch (err) {
      if (!started) throw err;
      // the headers are sent: the client learns of the failure only by the cut; the log says why
      this.logger.error({ kind, format: o.format, from: o.from, to: o.to, correlationId: caller.correlationId, err: String(err) }, `export ${kind} cut short: ${String(err)}`);
      sink.destroy(err as Error);
    }
  }

  /**
   * The seal of a receipt: the report key's signature of its {@link receiptSealBody}; null when no key
   * can sign now (the receipt is recorded all the same; a manifest will not sign it).
   */
  private async seal(r: Parameters<typeof receiptSealBody>[0]): Promise<ReceiptSeal | null> {
    try {
      const signer = await this.signingKey.signer('EXPORT.NO_SIGNING_KEY');
      return { signature: await signer.sign('export-receipt', receiptSealBody(r)), keyId: signer.keyId };
    } catch (err) {
      this.logger.warn({ receiptId: r.id, err: String(err) }, `export receipt ${r.id} recorded without a seal: ${String(err)}`);
      return null;
    }
  }

  /** The positions an export covers (none for the rejections and the access log, which are cut by time). */
  private async positionsOf(kind: ExportKind, q: Queryable, o: { from: string; to: string; through?: string }): Promise<ExportPositions> {
    if (kind !== 'events' && kind !== 'settlements' && kind !== 'decisions') return { first: null, periodLast: null, through: null };
    const p = await this.periodPositions(q, o.from, o.to);
    let through = p.periodLast;
    if (kind === 'events' && p.first !== null && p.periodLast !== null) {
      if (o.through !== undefined) {
        through = BigInt(o.through) > BigInt(p.periodLast) ? o.through : p.periodLast;
      } else {
        const ledgerId = this.ledgerIdSetting ?? (await databaseLedgerId({ query: (sql, params) => rows(q, sql, params) }));
        through = selectAnchors(await this.ledgerAnchors(ledgerId), p.first, p.periodLast).through;
      }
    }
    return { ...p, through: kind === 'events' ? through : null };
  }

  /**
   * Writes the body of an export: the JSONL head line or the CSV header, every batch, and the JSONL
   * trailer. @returns false when the client went away (nothing more is written)
   * @throws Error when the rows streamed are not the rows counted in the same snapshot
   */
  private async writeRows(spec: ExportKindSpec, src: ExportSource, ctx: ExportContext, format: 'jsonl' | 'csv', head: { header: ReportHeader; positions: ExportPositions; count: number }, out: SinkWriter): Promise<boolean> {
    if (format === 'jsonl') await out.write(`${JSON.stringify({ header: head.header, positions: head.positions })}\n`);
    else await out.write(csvText([spec.columns]));

    let after: string | null = null;
    let rows = 0;
    while (!out.closed) {
      const batch = await spec.batch(src, ctx, after, this.batchRows);
      if (batch.length === 0) break;
      const objects = batch.map((r) => spec.json(r));
      await out.write(format === 'jsonl' ? objects.map((x) => `${JSON.stringify(x)}\n`).join('') : csvText(objects.map((x) => csvRecord(spec.columns, x))));
      rows += batch.length;
      after = spec.key(batch[batch.length - 1]);
      if (batch.length < this.batchRows) break;
    }
    if (out.closed) return false;
    if (rows !== head.count) throw new Error(`export ${spec.kind}: ${rows} rows streamed, ${head.count} counted in the same snapshot`);
    if (format === 'jsonl') await out.write(`${JSON.stringify({ trailer: { rows } })}\n`);
    return !out.closed;
  }

  /** Lowest and highest global position of an event recorded in [from, to) (the BRIN index on `recorded_at`). */
  private async periodPositions(q: Queryable, from: string, to: string): Promise<{ first: string | null; periodLast: string | null }> {
    const r = await first<{ first: string | null; last: string | null }>(q, `SELECT min(global_position)::text AS first, max(global_position)::text AS last FROM events WHERE recorded_at >= $1 AND recorded_at < $2`, [from, to]);
    return { first: r?.first ?? null, periodLast: r?.last ?? null };
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
