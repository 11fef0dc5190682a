import { Controller, Get, Inject, Optional, Query, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { DataSource } from 'typeorm';
import type { ProjectionChangeNotice } from '@ledger/projections';
import type { Principal } from '../kernel/auth/principal';
import { Roles } from '../kernel/auth/roles.decorator';
import { ApiError } from '../kernel/api-error';
import { DATA_SOURCE } from '../kernel/tokens';
import { recordQueryLog } from '../kernel/query-log';
import { NoQuery } from '../kernel/query.dto';
import { TablesRegistry } from '../kernel/tables/tables.registry';
import { inProcessLimits, LIMITS, type LimitsBackend } from '../kernel/limits/limits-backend';
import type { Slots } from '../kernel/limits/slots';
import { ProjectionChanges } from './projection-changes';
import { holdEventStream } from '../kernel/event-stream';

/** Live streams one caller (role and token subject) may hold open at once; one more is 429 `RATE.LIVE_STREAMS_BUSY`. */
export const LIVE_STREAMS_PER_CALLER = 4;
/** A comment line this often keeps proxies and the browser from closing an idle stream, in ms. */
export const KEEP_ALIVE_MS = 15_000;
/** A subscriber this far behind (bytes not yet taken by its socket) is cut off; it reconnects and re-reads. */
const MAX_BUFFERED_BYTES = 1_048_576;

/** The `data` of one `table` event. */
export interface TableEventData {
  readonly tableId: string;
  /** The shoe changed; null when every table may have changed (a rebuild, a reconnect) and the shoe is not known. */
  readonly shoeId: string | null;
  /** Global position of the last event projected (decimal string), null when unknown. */
  readonly globalPosition: string | null;
}

/**
 * `GET /live/tables` (pit managers, auditors): server-sent events (`text/event-stream`) fed by the
 * projections, not by polling (docs/architecture.md §7). After each projector transaction that
 * changed a table, PostgreSQL delivers its notice on COMMIT ({@link ProjectionChanges}) and this
 * stream writes one `event: table` per table changed with `data: {"tableId","shoeId","globalPosition"}`
 * — so a read of `GET /tables/overview` right after the event already shows the change. A notice
 * that every table may have changed (rebuild, reconnection to PostgreSQL) becomes one event per
 * configured table with `shoeId` null. A `: keep-alive` comment every {@link KEEP_ALIVE_MS} ms.
 * The normal bearer guard applies (the console sends its token with @microsoft/fetch-event-source);
 * each subscription is recorded once in `query_log` (who watched); at most
 * {@link LIVE_STREAMS_PER_CALLER} open per caller, and per role its own share of the process
 * (`LIVE_STREAMS_PIT_MANAGERS`, `LIVE_STREAMS_AUDITORS`: auditors' streams never take the pit
 * managers' places) — one more is 429 `RATE.LIVE_STREAMS_BUSY` (scope `caller` or `role`) with
 * `Retry-After`. The places count in this process's memory, or with `LIMITS_REDIS_URL` over every
 * API instance (leases renewed while the stream is open; docs/architecture.md §10). A stream ends when its token expires (`event: expired`, then the end of the
 * response): a client reconnects with a fresh token (the bearer guard refuses the old one).
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@Roles('auditor', 'pit-manager')
@Controller('live')
export class LiveTablesController {
  private readonly slots: Slots;
  private readonly roleLimits: ReadonlyMap<string, number>;
  private readonly keepAliveMs: number;

  constructor(
    private readonly changes: ProjectionChanges,
    private readonly tables: TablesRegistry,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(ConfigService) config: ConfigService<LedgerApiEnv, true>,
    @Optional() @Inject(LIMITS) limits: LimitsBackend | null = null,
  ) {
    this.slots = (limits ?? inProcessLimits()).slots('live-stream');
    this.keepAliveMs = KEEP_ALIVE_MS;
    this.roleLimits = new Map<string, number>([
      ['pit-manager', config.get('LIVE_STREAMS_PIT_MANAGERS', { infer: true })],
      ['auditor', config.get('LIVE_STREAMS_AUDITORS', { infer: true })],
    ]);
  }

  @Get('tables')
  @ApiOperation({
    summary: 'Server-sent events: `event: table` with data {"tableId","shoeId","globalPosition"} after each projection commit that changed the table; `: keep-alive` every 15 s; at most 4 streams per caller',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'an event stream (text/event-stream) that stays open',
    content: { 'text/event-stream': { schema: { type: 'string', example: 'event: table\ndata: {"tableId":"T-CLASSIC-01","shoeId":"S-1","globalPosition":"1234"}\n\n' } } },
  })
  async live(@Req() req: Request & { principal: Principal; correlationId?: string }, @Res() res: Response, @Query() _q: NoQuery): Promise<void> {
    const p = req.principal;
    const release = await this.admit(p);
    try {
      // who watched: one row per subscription, before anything is streamed (an unrecorded audit read is not allowed)
      await recordQueryLog(this.ds, { actorId: p.id, actorRole: p.role, route: 'GET /live/tables', params: '{}', resultCount: null, correlationId: req.correlationId ?? null });
    } catch (err) {
      release();
      throw err;
    }
    if (req.socket.destroyed) {
      release();
      return;
    }
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    req.socket.setKeepAlive(true);
    req.socket.setTimeout(0);
    res.write(`retry: 3000\n: listening ${this.changes.listening ? 'on' : 'soon'}\n\n`);

    const send = (data: TableEventData) => {
      res.write(`event: table\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const onNotice = (n: ProjectionChangeNotice) => {
      if (res.writableEnded) return;
      if (n.all) for (const t of this.tables.list()) send({ tableId: t.tableId, shoeId: null, globalPosition: n.globalPosition });
      else for (const t of n.tables) send({ tableId: t.tableId, shoeId: t.shoeId, globalPosition: t.globalPosition });
      if (res.writableLength > MAX_BUFFERED_BYTES) res.end();
    };
    const unsubscribe = this.changes.subscribe(onNotice);
    // the token's end is the stream's end: what it may watch is re-decided at the next connection
    holdEventStream({
      res,
      req,
      expiresAt: p.expiresAt,
      keepAliveMs: this.keepAliveMs,
      onClose: () => {
        unsubscribe();
        release();
      },
    });
  }

  /**
   * Takes a place for a stream of `p`: one of its caller's {@link LIVE_STREAMS_PER_CALLER} and one of
   * its role's share. @returns the function that gives both back (once, however often it is called)
   * @throws ApiError `AUTH.UNAUTHENTICATED` (401) when the token has expired (within the guard's clock
   *   tolerance), `RATE.LIVE_STREAMS_BUSY` (429, scope `caller` or `role`) when no place is free,
   *   `LIMITS.UNAVAILABLE` (503) when the shared places do not answer
   */
  private async admit(p: Principal): Promise<() => void> {
    // within the clock tolerance the guard accepts an expired token; a stream would end at once
    if (p.expiresAt !== undefined && p.expiresAt <= Date.now()) throw new ApiError('AUTH.UNAUTHENTICATED', 'the token has expired: a live stream needs one that has not');
    const roleLimit = this.roleLimits.get(p.role) ?? 0;
    const grant = await this.slots.take([
      { key: `live|caller|${p.role}|${p.id}`, limit: LIVE_STREAMS_PER_CALLER },
      { key: `live|role|${p.role}`, limit: roleLimit },
    ]);
    if (grant.taken) return grant.release;
    if (grant.full === 0) throw ApiError.of('RATE.LIVE_STREAMS_BUSY', { scope: 'caller', limit: LIVE_STREAMS_PER_CALLER, retryAfterSeconds: 5 });
    throw ApiError.of('RATE.LIVE_STREAMS_BUSY', { scope: 'role', limit: roleLimit, retryAfterSeconds: 5 });
  }
}
