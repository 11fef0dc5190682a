import { Body, Controller, Get, Inject, Optional, Param, Post, Query, Req, Res, UseInterceptors } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { LedgerApiEnv } from '@ledger/config';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Principal } from '../kernel/auth/principal';
import { CurrentPrincipal } from '../kernel/auth/current-principal.decorator';
import { Roles } from '../kernel/auth/roles.decorator';
import { ApiError } from '../kernel/api-error';
import { inProcessLimits, LIMITS, type LimitsBackend } from '../kernel/limits/limits-backend';
import type { Slots } from '../kernel/limits/slots';
import type { Page } from '../kernel/pagination';
import { NoQuery } from '../kernel/query.dto';
import { recordQueryLog } from '../kernel/query-log';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { DATA_SOURCE } from '../kernel/tokens';
import { holdEventStream } from '../kernel/event-stream';
import { AcknowledgeSignificantEventDto, SignificantEventsQuery } from './significant-events.dto';
import { SignificantEventAcknowledgement, SignificantEventsPage, SignificantEventView } from './significant-events.responses';
import { RESUME_MAX_CHANGES, SignificantEventFeed, type SignificantEventChange, type SubscriptionStart } from './significant-event-feed';
import { SignificantEventsService, type AcknowledgementAnswer } from './significant-events.service';

/** Live streams of significant events one caller may hold open at once; one more is 429 `RATE.LIVE_STREAMS_BUSY`. */
export const SIGNIFICANT_STREAMS_PER_CALLER = 4;
/** A comment line this often keeps proxies from closing an idle stream, in ms. */
const KEEP_ALIVE_MS = 15_000;

/**
 * A stream's `Last-Event-ID` header (the SSE `id` of the last change a client got: a global position),
 * or undefined without one.
 * @throws ApiError 400 `VALIDATION.FAILED` when it is not 1..19 decimal digits of a PostgreSQL bigint
 */
function lastEventIdOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const v = Array.isArray(header) ? header.join(',') : header;
  if (!/^[0-9]{1,19}$/.test(v) || BigInt(v) > 9_223_372_036_854_775_807n)
    throw new ApiError('VALIDATION.FAILED', 'Last-Event-ID must be the id of a change this stream sent (a global position: decimal digits)', { problems: ['Last-Event-ID: 1 to 19 decimal digits'] });
  return BigInt(v).toString();
}

/**
 * The significant events (docs/significant-events.md, "Raised as facts" and "Acknowledged by a
 * second person"): the searchable list and one event (pit managers, auditors), the live stream of
 * raises and acknowledgements (server-sent events), and the acknowledgement by a second person.
 */
@ApiTags('significant events')
@ApiBearerAuth()
@Roles('pit-manager', 'auditor')
@Controller('significant-events')
export class SignificantEventsController {
  private readonly slots: Slots;
  /** The live streams each role may hold open at once, over all of its callers and all live routes (`LIVE_STREAMS_PIT_MANAGERS`, `LIVE_STREAMS_AUDITORS`). */
  private readonly roleLimits: ReadonlyMap<string, number>;

  constructor(
    private readonly service: SignificantEventsService,
    private readonly feed: SignificantEventFeed,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(ConfigService) config: ConfigService<LedgerApiEnv, true>,
    @Optional() @Inject(LIMITS) limits: LimitsBackend | null = null,
  ) {
    this.slots = (limits ?? inProcessLimits()).slots('live-stream');
    this.roleLimits = new Map<string, number>([
      ['pit-manager', config.get('LIVE_STREAMS_PIT_MANAGERS', { infer: true })],
      ['auditor', config.get('LIVE_STREAMS_AUDITORS', { infer: true })],
    ]);
  }

  @Get()
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({ summary: 'Significant events, newest first: filter by code, severity, table, dealer, period (raisedAt) and acknowledged=true|false; keyset pages' })
  @ApiOkResponse({ type: SignificantEventsPage })
  list(@Query() q: SignificantEventsQuery): Promise<Page<Record<string, unknown>>> {
    return this.service.list(q);
  }

  @Get('live')
  @ApiOperation({
    summary:
      "Server-sent events: `event: raised` and `event: acknowledged` with the significant event as the list answers it, as the event store records them (published by the relay, never taken from the read model), each with `id:` its global position; a reconnect with `Last-Event-ID` is first sent what it missed, in order, then the live changes (more than 5,000 back: `event: gap`, then from now); `event: expired` when the token expires, then the end; `: keep-alive` every 15 s; at most 4 streams per caller, and the role's live streams at most `LIVE_STREAMS_PIT_MANAGERS` / `LIVE_STREAMS_AUDITORS` (shared with /live/tables); each subscription recorded in the query log",
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'an event stream (text/event-stream) that stays open',
    content: { 'text/event-stream': { schema: { type: 'string', example: 'event: raised\ndata: {"significantEventId":"…","code":"WIN.LARGE",…}\n\n' } } },
  })
  async live(@Req() req: Request & { principal: Principal; correlationId?: string }, @Res() res: Response, @Query() _q: NoQuery): Promise<void> {
    const p = req.principal;
    // within the clock tolerance the guard accepts an expired token; a stream would end at once
    if (p.expiresAt !== undefined && p.expiresAt <= Date.now()) throw new ApiError('AUTH.UNAUTHENTICATED', 'the token has expired: a live stream needs one that has not');
    const lastEventId = lastEventIdOf(req.headers['last-event-id']);
    const roleLimit = this.roleLimits.get(p.role) ?? 0;
    // the role's budget is the one /live/tables takes too: all the live streams of a role
    const grant = await this.slots.take([
      { key: `significant|caller|${p.role}|${p.id}`, limit: SIGNIFICANT_STREAMS_PER_CALLER },
      { key: `live|role|${p.role}`, limit: roleLimit },
    ]);
    if (!grant.taken) {
      const byCaller = grant.full === 0;
      throw ApiError.of('RATE.LIVE_STREAMS_BUSY', { scope: byCaller ? 'caller' : 'role', limit: byCaller ? SIGNIFICANT_STREAMS_PER_CALLER : roleLimit, retryAfterSeconds: 5 });
    }
    try {
      // who watched: one row per subscription, before anything is streamed (an unrecorded audit read is not allowed)
      await recordQueryLog(this.ds, { actorId: p.id, actorRole: p.role, route: 'GET /significant-events/live', params: '{}', resultCount: null, correlationId: req.correlationId ?? null });
    } catch (err) {
      grant.release();
      throw err;
    }
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    req.socket.setTimeout(0);
    res.write('retry: 3000\n: listening\n\n');
    let subscription: { unsubscribe: () => void; start: SubscriptionStart };
    try {
      subscription = await this.feed.subscribe((c: SignificantEventChange) => {
        if (!res.writableEnded) res.write(`id: ${c.position}\nevent: ${c.kind}\ndata: ${JSON.stringify(c.event)}\n\n`);
      }, lastEventId);
    } catch (err) {
      grant.release();
      res.end();
      throw err;
    }
    if (subscription.start === 'gap')
      res.write(`event: gap\ndata: ${JSON.stringify({ reason: `more than ${RESUME_MAX_CHANGES} changes since Last-Event-ID ${lastEventId}: read them from the list; the stream goes on from now` })}\n\n`);
    holdEventStream({
      res,
      expiresAt: p.expiresAt,
      keepAliveMs: KEEP_ALIVE_MS,
      onClose: () => {
        subscription.unsubscribe();
        grant.release();
      },
    });
  }

  @Get(':significantEventId')
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({ summary: 'One significant event: its cause, and who acknowledged it, when and why' })
  @ApiOkResponse({ type: SignificantEventView })
  get(@Param('significantEventId') id: string, @Query() _q: NoQuery): Promise<Record<string, unknown>> {
    return this.service.get(id);
  }

  @Post(':significantEventId/acknowledgements')
  @ApiOperation({
    summary:
      'Acknowledge a significant event with a reason as a pit manager or auditor who had no hand in what raised it (422 MANAGEMENT.SAME_APPROVER otherwise); records SignificantEventAcknowledged (201); a second acknowledgement is 409 SIGNIFICANT.ALREADY_ACKNOWLEDGED',
  })
  @ApiCreatedResponse({ type: SignificantEventAcknowledgement })
  acknowledge(@CurrentPrincipal() p: Principal, @Param('significantEventId') id: string, @Body() b: AcknowledgeSignificantEventDto): Promise<AcknowledgementAnswer> {
    return this.service.acknowledge(id, p, b.reason);
  }
}
