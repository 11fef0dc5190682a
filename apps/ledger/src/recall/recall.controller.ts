import { Controller, Get, Param, Query, Req, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../kernel/api-error';
import { Roles } from '../kernel/auth/roles.decorator';
import { HeavyRead, HeavyReadLimiter, type HeavyReadRequest } from '../kernel/heavy-read';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { parseAsOf } from '../kernel/as-of/as-of';
import { AsOfQuery } from '../kernel/as-of/as-of.dto';
import { AsOfPositionService } from '../kernel/as-of/as-of-position.service';
import { recallAsOf } from '../kernel/as-of/recall-as-of';
import { decisionChains } from './recall-chains';
import { RecallResponse } from './recall.responses';
import { RecallService } from './recall.service';

/**
 * The game recall for regulators and back office (docs/architecture.md §7): one round with its
 * revisions, events, decisions, bets and chain status, live or as known at a position. Read-only
 * roles; a heavy read (its own slots); every call recorded in `query_log`.
 */
@ApiTags('audit and reconciliation')
@ApiBearerAuth()
@Roles('auditor', 'pit-manager')
@UseInterceptors(QueryLogInterceptor)
@Controller()
export class RecallController {
  constructor(
    private readonly read: RecallService,
    private readonly heavy: HeavyReadLimiter,
    private readonly positions: AsOfPositionService,
  ) {}

  @Get('shoes/:shoeId/rounds/:roundId/recall')
  @HeavyRead()
  @ApiOperation({ summary: 'Game recall: the round, every revision with actor/approver/reason, its events in order, bets and their history, chain status' })
  @ApiOkResponse({ type: RecallResponse })
  recall(@Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Query() q: AsOfQuery, @Req() req: HeavyReadRequest) {
    const asOf = parseAsOf(q.asOf);
    return this.heavy.run(req, async () => {
      // asOf (docs/reports.md §3): the position first, so the recall read after it holds everything up to it
      const position = asOf ? await this.positions.resolve(asOf) : null;
      const recall = await this.read.recall(shoeId, roundId);
      if (position === null) return recall;
      const cut = recallAsOf(recall, position, decisionChains);
      if (!cut) throw new ApiError('ROUND.NOT_FOUND', `no round ${roundId} in shoe ${shoeId} at global position ${position}`, { roundId });
      return cut;
    });
  }
}
