import { Inject, Injectable, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import type { PgEventStore } from '@ledger/event-store';
import { SEVERITIES, severityAtLeast } from '@ledger/significant-events';
import { KernelModule } from '../kernel/kernel.module';
import { QueryLogInterceptor } from '../kernel/query-log.interceptor';
import { EVENT_STORE } from '../kernel/tokens';
import { FairnessAlerts } from './fairness-alerts';
import { SignificantEventFeed } from './significant-event-feed';
import { exportOpenCounts } from './significant-metrics';
import { SignificantEventMonitor } from './significant-monitor';
import { SignificantCauseRaiser } from './cause-raiser';
import { SignificantEventsController } from './significant-events.controller';
import { SignificantEventsService } from './significant-events.service';

/**
 * Points the escalation gauges at this process's event store (`SIGNIFICANT_ACK_DEADLINE_SECONDS`) while
 * the module lives: the open significant events are counted from the stored events, so no write to the
 * read model can silence an escalation.
 */
@Injectable()
export class SignificantEventGauges implements OnModuleInit, OnModuleDestroy {
  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    @Inject(ConfigService) private readonly config: ConfigService<LedgerApiEnv, true>,
  ) {}

  onModuleInit(): void {
    const deadline = this.config.get('SIGNIFICANT_ACK_DEADLINE_SECONDS', { infer: true });
    const severities = SEVERITIES.filter((s) => severityAtLeast(s, 'high'));
    exportOpenCounts(() => this.store.significant.openCounts({ severities, deadlineSeconds: deadline }));
  }

  onModuleDestroy(): void {
    exportOpenCounts(null);
  }
}

/**
 * Significant events (docs/significant-events.md): the monitor that raises them from the ledger
 * topic, the raiser of those whose cause is not a ledger event (refusals, 429 storms, the verifier, the projector), the list, the live stream, the acknowledgement, and the escalation gauges.
 */
@Module({
  imports: [KernelModule],
  controllers: [SignificantEventsController],
  providers: [SignificantEventsService, SignificantEventFeed, SignificantCauseRaiser, SignificantEventMonitor, FairnessAlerts, SignificantEventGauges, QueryLogInterceptor],
})
export class SignificantEventsModule {}
