import { Body, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiOperation } from '@nestjs/swagger';
import { DecisionAnswer as DecisionAnswerSchema } from '../write-answers.dto';
import { parseCard } from '@ledger/rules';
import type { Principal } from '../../kernel/auth/principal';
import { CurrentPrincipal } from '../../kernel/auth/current-principal.decorator';
import type { DecisionAnswer } from '../decisions/decision-answer';
import { RequestDecisionCommand } from '../decisions/request-decision/request-decision.command';
import { CorrectCommencementDto } from './correct-commencement.dto';
import { WriteController } from '../write-controller.decorator';
import { writeRequest, type HttpRequest } from '../write-request';

/**
 * `POST /shoes/{shoeId}/commencement/corrections` (role `pit-manager`): requests the decision (docs/domain-rules.md §6) and answers
 * 202 `{ decisionId, status: "PENDING_APPROVAL", expiresAt }`. It takes effect only when a second
 * pit manager approves it (`POST /decisions/{decisionId}/approve`); see {@link RequestDecisionCommand}.
 */
@WriteController('management', 'pit-manager')
export class CorrectCommencementController {
  constructor(private readonly commands: CommandBus) {}

  @Post('shoes/:shoeId/commencement/corrections')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: DecisionAnswerSchema, description: 'PENDING_APPROVAL: a second pit manager approves it at POST /decisions/{decisionId}/approve' })
  @ApiOperation({ summary: 'Request a commencement correction before the first hand is dealt (§5.1); it takes effect once a second pit manager approves' })
  correctCommencement(@Req() req: HttpRequest, @CurrentPrincipal() p: Principal, @Param('shoeId') shoeId: string, @Body() b: CorrectCommencementDto): Promise<DecisionAnswer> {
    return this.commands.execute(new RequestDecisionCommand(writeRequest(req, p, shoeId, b), { kind: 'CORRECT_COMMENCEMENT', card: parseCard(b.card).code }, b.reason));
  }
}
