import { Inject, Injectable, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import type { ReadModel } from '@ledger/read-model';
import { KernelModule } from '../kernel/kernel.module';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { READ_MODEL } from '../kernel/tokens';
import { FairnessAlerts } from './fairness-alerts';
import { SignificantEventFeed } from './significant-event-feed';
import { exportOpenCounts } from './significant-metrics';
import { SignificantEventMonitor } from './significant-monitor';
import { SignificantEventsController } from './significant-events.controller';
import { SignificantEventsService } from './significant-events.service';

/** Points the escalation gauges at this process's read model (`SIGNIFICANT_ACK_DEADLINE_SECONDS`) while the module lives. */
@Injectable()
export class SignificantEventGauges implements OnModuleInit, OnModuleDestroy {
  constructor(
    @Inject(READ_MODEL) private readonly read: ReadModel,
    @Inject(ConfigService) private readonly config: ConfigService<LedgerApiEnv, true>,
  ) {}

  onModuleInit(): void {
    const deadline = this.config.get('SIGNIFICANT_ACK_DEADLINE_SECONDS', { infer: true });
    exportOpenCounts(() => this.read.significantEvents.openCounts(deadline));
  }

  onModuleDestroy(): void {
    exportOpenCounts(null);
  }
}

/**
 * Significant events (docs/significant-events.md): the monitor that raises them from the ledger
 * topic, the list, the live stream, the acknowledgement, and the escalation gauges.
 */
@Module({
  imports: [KernelModule],
  controllers: [SignificantEventsController],
  providers: [SignificantEventsService, SignificantEventFeed, SignificantEventMonitor, FairnessAlerts, SignificantEventGauges, QueryLogInterceptor],
})
export class SignificantEventsModule {}
