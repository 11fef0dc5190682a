import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LedgerApiEnv } from '@ledger/config';
import { PgEventStore } from '@ledger/event-store';
import type { LedgerEvent } from '@ledger/events';
import { ApiError } from '../../../kernel/api-error';
import { EVENT_STORE } from '../../../kernel/tokens';

/**
 * What the approval of a decision checks of its request's envelope, which the pure decision rule
 * (libs/shoe/src/decisions/decisions.ts) does not see (docs/domain-rules.md §6): the request event
 * was recorded by the pit manager it names as requester (a request appended in another manager's
 * name, with the API's database login, is no request), and it is approved no later than
 * `DECISION_TTL_MS` after it was recorded, whatever its `expiresAt` says (the ledger's clock stamps
 * `recordedAt`; a request cannot be made to wait forever by its data).
 */
@Injectable()
export class DecisionRequestCheck {
  private readonly ttlMs: number;

  constructor(
    @Inject(EVENT_STORE) private readonly store: PgEventStore,
    config: ConfigService<LedgerApiEnv, true>,
  ) {
    this.ttlMs = config.get('DECISION_TTL_MS', { infer: true });
  }

  /**
   * @param shoeId the decision's shoe (its stream `shoe-<shoeId>`)
   * @param now ISO-8601 ledger time of the approval
   * @throws ApiError 404 `DECISION.NOT_FOUND` when the request was not recorded by its requester,
   *   422 `DECISION.EXPIRED` when its `expiresAt` claims more than `DECISION_TTL_MS` after its `recordedAt`
   *   and `now` is past `recordedAt` + `DECISION_TTL_MS` (other expiries are the rule's). No request
   *   event at all is left to the decision rule (its own `DECISION.NOT_FOUND`).
   */
  async assertGenuine(shoeId: string, decisionId: string, now: string): Promise<void> {
    const requests = (await this.store.readByTypes(['DecisionRequested'], { field: 'decisionId', value: decisionId }, 10)) as LedgerEvent<'DecisionRequested'>[];
    const request = requests.find((e) => e.streamId === `shoe-${shoeId}`);
    if (!request) return;
    if (request.actor.id !== request.data.requestedBy || request.actor.role !== 'pit-manager') {
      throw new ApiError('DECISION.NOT_FOUND', `decision ${decisionId} was not requested by the pit manager it names: it cannot be approved`, { decisionId });
    }
    // a request's own expiresAt (set before its append) is within the TTL of its recordedAt: the rule judges it;
    // one claiming more time than the ledger grants expires at recordedAt + TTL
    const granted = Date.parse(request.recordedAt) + this.ttlMs;
    if (Date.parse(request.data.expiresAt) > granted && Date.parse(now) >= granted) throw ApiError.of('DECISION.EXPIRED', { decisionId, expiresAt: new Date(granted).toISOString() });
  }
}
