import { Body, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiOperation } from '@nestjs/swagger';
import { DecisionAnswer as DecisionAnswerSchema } from '../../write-answers.dto';
import type { Principal } from '../../../kernel/auth/principal';
import { CurrentPrincipal } from '../../../kernel/auth/current-principal.decorator';
import type { DecisionAnswer } from '../../decisions/decision-answer';
import { RequestDecisionCommand } from '../../decisions/request-decision/request-decision.command';
import { DecisionDto } from '../../dto/decision.dto';
import { WriteController } from '../../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../../write-request';

/**
 * `POST /shoes/{shoeId}/rounds/{roundId}/void` (role `pit-manager`): requests the decision (docs/domain-rules.md §6) and answers
 * 202 `{ decisionId, status: "PENDING_APPROVAL", expiresAt }`. It takes effect only when a second
 * pit manager approves it (`POST /decisions/{decisionId}/approve`); see {@link RequestDecisionCommand}.
 */
@WriteController('management', 'pit-manager')
export class VoidRoundController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/rounds/:roundId/void')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: DecisionAnswerSchema, description: 'PENDING_APPROVAL: a second pit manager approves it at POST /decisions/{decisionId}/approve' })
  @ApiOperation({ summary: 'Request a round void: every stake is refunded once a second pit manager approves' })
  voidRound(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Param('roundId') roundId: string, @Body() b: DecisionDto): Promise<DecisionAnswer> {
    return this.commands.execute(new RequestDecisionCommand(writeRequest(req, p, shoeId, b), { kind: 'VOID_ROUND', roundId }, b.reason));
  }
}
