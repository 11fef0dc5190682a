import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import type { LedgerApiEnv } from '@ledger/config';
import { decideDecision } from '@ledger/shoe';
import { ShoeStreamWriter } from '../../shoe-stream.writer';
import { decisionAnswer, type DecisionAnswer } from '../decision-answer';
import { RequestDecisionCommand } from './request-decision.command';

/**
 * Thin handler of {@link RequestDecisionCommand} (docs/architecture.md §3): load the shoe's stream,
 * decide `RequestDecision` (libs/shoe/src/decisions/decisions.ts: a dry run of the management
 * command, the dealers concerned, the bets it would change), append DecisionRequested. The
 * decision id is the ledger's (a UUID); it expires after `DECISION_TTL_MS`.
 */
@CommandHandler(RequestDecisionCommand)
export class RequestDecisionHandler implements ICommandHandler<RequestDecisionCommand, DecisionAnswer> {
  private readonly ttlMs: number;

  constructor(
    private readonly stream: ShoeStreamWriter,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.ttlMs = config.get('DECISION_TTL_MS', { infer: true });
  }

  /** @throws DomainError what `decideDecision` refuses; ApiError as {@link ShoeStreamWriter.write} says */
  execute({ request, proposal, reason }: RequestDecisionCommand): Promise<DecisionAnswer> {
    const decisionId = randomUUID();
    const expiresAt = new Date(Date.now() + this.ttlMs).toISOString();
    return this.stream.write(
      request,
      (shoe, ctx) => decideDecision(shoe, { type: 'RequestDecision', decisionId, request: proposal, reason, requestedBy: request.principal.id, expiresAt, ...(request.evidence ? { evidence: request.evidence } : {}) }, ctx),
      { statusCode: 202, shape: decisionAnswer(decisionId, 'PENDING_APPROVAL', { expiresAt }) },
    );
  }
}
