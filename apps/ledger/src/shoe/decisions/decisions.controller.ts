import { Body, Controller, Get, Param, Post, Query, Req, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ID_PATTERN } from '@ledger/events';
import type { Principal } from '../../kernel/auth/principal';
import { CurrentPrincipal } from '../../kernel/auth/current-principal.decorator';
import { Roles } from '../../kernel/auth/roles.decorator';
import { ApiError } from '../../kernel/api-error';
import { NoQuery } from '../../kernel/query.dto';
import { QueryLogInterceptor } from '../../kernel/query-log.interceptor';
import { DecisionsPage, DecisionView as DecisionViewSchema } from './decisions.responses';
import { DecisionAnswer as DecisionAnswerSchema } from '../write-answers.dto';
import { writeRequest, type HttpRequest } from '../write-request';
import { ApproveDecisionCommand } from './approve-decision/approve-decision.command';
import type { DecisionAnswer } from './decision-answer';
import type { DecisionView } from './decision-view';
import { ApproveDecisionDto, ListDecisionsQuery, RejectDecisionDto } from './decisions.dto';
import { DecisionsQuery } from './decisions.query';
import { RejectDecisionCommand } from './reject-decision/reject-decision.command';

/** A decision id in a path (the ledger's UUIDs, or any id of the ledger's id form). @throws ApiError 404 `DECISION.NOT_FOUND` */
function decisionIdOf(id: string): string {
  if (!ID_PATTERN.test(id)) throw new ApiError('DECISION.NOT_FOUND', `no decision ${JSON.stringify(id.slice(0, 64))}`, { decisionId: id.slice(0, 64) });
  return id;
}

/**
 * The second pair of eyes (docs/domain-rules.md §6): pit managers approve or reject the decisions
 * other pit managers requested, each with their own token; pit managers and auditors list them.
 */
@ApiTags('decisions')
@ApiBearerAuth()
@Controller('decisions')
export class DecisionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly decisions: DecisionsQuery,
  ) {}

  @Post(':decisionId/approve')
  @Roles('pit-manager')
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'a retry with the same key gets the first answer' })
  @ApiOperation({ summary: 'Approve a pending decision as a second pit manager: the compensating events are recorded (201)' })
  @ApiCreatedResponse({ type: DecisionAnswerSchema, description: 'APPROVED, with the compensating events' })
  async approve(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('decisionId') id: string, @Body() b: ApproveDecisionDto): Promise<DecisionAnswer> {
    const d = await this.decisions.get(decisionIdOf(id));
    return this.commands.execute(new ApproveDecisionCommand(writeRequest(req, p, d.shoeId, b), d.decisionId, b.reason ?? null));
  }

  @Post(':decisionId/reject')
  @Roles('pit-manager')
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'a retry with the same key gets the first answer' })
  @ApiOperation({ summary: 'Reject a pending decision with a reason as a second pit manager: nothing changes (201)' })
  @ApiCreatedResponse({ type: DecisionAnswerSchema, description: 'REJECTED' })
  async reject(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('decisionId') id: string, @Body() b: RejectDecisionDto): Promise<DecisionAnswer> {
    const d = await this.decisions.get(decisionIdOf(id));
    return this.commands.execute(new RejectDecisionCommand(writeRequest(req, p, d.shoeId, b), d.decisionId, b.reason));
  }

  @Get()
  @Roles('pit-manager', 'auditor')
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({ summary: 'Management decisions with what they change and how they were decided (status PENDING_APPROVAL | APPROVED | REJECTED | EXPIRED)' })
  @ApiOkResponse({ type: DecisionsPage })
  async list(@Query() q: ListDecisionsQuery): Promise<{ decisions: DecisionView[] }> {
    return { decisions: await this.decisions.list(q) };
  }

  @Get(':decisionId')
  @Roles('pit-manager', 'auditor')
  @UseInterceptors(QueryLogInterceptor)
  @ApiOperation({ summary: 'One management decision: request, affected bets, approval, rejection or expiry' })
  @ApiOkResponse({ type: DecisionViewSchema })
  get(@Param('decisionId') id: string, @Query() _q: NoQuery): Promise<DecisionView> {
    return this.decisions.get(decisionIdOf(id));
  }
}
