import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { QueryLogInterceptor } from '../../kernel/query-log.interceptor';
import { KernelModule } from '../../kernel/kernel.module';
import { ShoeModule } from '../shoe.module';
import { DecisionRequestCheck } from './approve-decision/decision-request-check';
import { ApproveDecisionHandler } from './approve-decision/approve-decision.handler';
import { DecisionExpirySweeper } from './decision-expiry.sweeper';
import { DecisionsController } from './decisions.controller';
import { DecisionsQuery } from './decisions.query';
import { ExpireDecisionHandler } from './expire-decision/expire-decision.handler';
import { RejectDecisionHandler } from './reject-decision/reject-decision.handler';
import { RequestDecisionHandler } from './request-decision/request-decision.handler';

/**
 * The four-eyes flow of management decisions (docs/domain-rules.md §6): requested through the
 * management routes of the shoe module (202 PENDING_APPROVAL), approved or rejected here by a
 * second pit manager, expired by {@link DecisionExpirySweeper}.
 */
@Module({
  imports: [CqrsModule, KernelModule, ShoeModule],
  controllers: [DecisionsController],
  providers: [RequestDecisionHandler, ApproveDecisionHandler, DecisionRequestCheck, RejectDecisionHandler, ExpireDecisionHandler, DecisionsQuery, DecisionExpirySweeper, QueryLogInterceptor],
})
export class DecisionsModule {}
