import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import type { LedgerApiEnv } from '@ledger/config';
import { DomainError } from '@ledger/shoe';
import type { Principal } from '../../kernel/auth/principal';
import { DecisionsQuery } from './decisions.query';
import { ExpireDecisionCommand } from './expire-decision/expire-decision.command';

/** The ledger's own actor of DecisionExpired events (role `system`, never minted in a token). */
export const EXPIRY_ACTOR: Principal = { id: 'ledger-decision-expiry', role: 'system', tables: null };

/**
 * Every `DECISION_EXPIRY_SWEEP_MS`, records DecisionExpired for each pending decision past its
 * expiry (docs/domain-rules.md §6). Until then such a decision already counts as EXPIRED and
 * cannot be approved; the event makes the expiry part of the record. Several API instances may
 * sweep: the second to try gets `DECISION.ALREADY_DECIDED`, which is ignored.
 */
@Injectable()
export class DecisionExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DecisionExpirySweeper.name);
  private readonly everyMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly decisions: DecisionsQuery,
    private readonly commands: CommandBus,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.everyMs = config.get('DECISION_EXPIRY_SWEEP_MS', { infer: true });
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.sweep().finally(() => (this.running = null));
    }, this.everyMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Records the expiry of every pending decision past its time. @returns how many were recorded */
  async sweep(): Promise<number> {
    let recorded = 0;
    try {
      for (const d of await this.decisions.list({ status: 'EXPIRED' })) {
        if (d.steps.some((s) => s.type === 'DecisionExpired')) continue;
        try {
          await this.commands.execute(
            new ExpireDecisionCommand(
              { shoeId: d.shoeId, tableId: null, principal: EXPIRY_ACTOR, correlationId: randomUUID(), occurredAt: null, expectedVersion: undefined, idempotencyKey: null, requestHash: '', evidence: null },
              d.decisionId,
            ),
          );
          recorded++;
        } catch (e) {
          if (!(e instanceof DomainError && e.code === 'DECISION.ALREADY_DECIDED')) throw e;
        }
      }
    } catch (e) {
      this.logger.error({ err: e instanceof Error ? e.message : String(e) }, 'recording decision expiries failed; retrying at the next sweep');
    }
    return recorded;
  }
}
